"""What a gate guards: a rule feature whose flags or gate functions it touches, else the
name it assigns, a flag its condition reads, its function or its module."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from astroid import nodes

from gatecheck.audit.conditions import (
    ArchCondition,
    SlotKind,
    assigned_names,
    function_scope,
    statement_of,
)
from gatecheck.audit.report import FeatureSource
from gatecheck.config.model import Feature
from gatecheck.gates.feature_gates import find_feature_gates, mentions
from gatecheck.loading.project import Project

# Feature flags: names that switch a feature (`enable_x`, `use_x`, `ENABLE_JIT_DEEPGEMM`).
FLAG_NAME = re.compile(r"^_*(enable|disable|use|allow|force)_\w+$", re.IGNORECASE)


def feature_name(found: ArchCondition) -> tuple[str, FeatureSource]:
    """What the gate guards, and how that was found: the name it assigns (`self.use_x =
    cond`, or `self.enable_x = True` in its branch), a flag its condition reads, else
    its function, else its module."""
    if found.kind is SlotKind.ATTRIBUTE:
        # A bound declared in a class's body (class_bounds.py), or given to a construction
        # (construction_bounds.py): the class, the definition a decorator's registers, or
        # the module.
        scope = found.statement.scope()
        if isinstance(scope, nodes.ClassDef):
            return found.qualname, FeatureSource.CLASS
        if isinstance(scope, nodes.FunctionDef):
            return found.qualname, FeatureSource.FUNCTION
        return found.module, FeatureSource.MODULE
    assigned = assigned_names(found.statement) or assigned_names(statement_of(found.statement))
    if assigned and found.kind in (SlotKind.ASSIGN, SlotKind.IFEXP, SlotKind.BOUND):
        return assigned[0], FeatureSource.ASSIGNED
    for name in branch_assignments(found.statement):
        if FLAG_NAME.match(name):
            return name, FeatureSource.ASSIGNED
    for name in identifiers(found.condition):
        if FLAG_NAME.match(name):
            return name, FeatureSource.READ
    if isinstance(function_scope(found.statement), nodes.FunctionDef):
        return found.qualname, FeatureSource.FUNCTION
    return found.module, FeatureSource.MODULE


def identifiers(node: nodes.NodeNG) -> list[str]:
    names = [
        str(n.name if isinstance(n, nodes.Name) else n.attrname)
        for n in node.nodes_of_class((nodes.Name, nodes.Attribute))
    ]
    return list(dict.fromkeys(names))


def branch_assignments(statement: nodes.NodeNG) -> list[str]:
    if not isinstance(statement, nodes.If):
        return []
    names: list[str] = []
    for stmt in [*statement.body, *statement.orelse]:
        for assign in stmt.nodes_of_class((nodes.Assign, nodes.AnnAssign)):
            names.extend(assigned_names(assign))
    return list(dict.fromkeys(names))


def rule_feature_matches(
    project: Project, features: Sequence[Feature], modules: Sequence[nodes.Module]
) -> dict[int, str]:
    """Conditions `check` would read as a rule feature's gates (by node), per feature id."""
    matches: dict[int, str] = {}
    for feature in features:
        relevant = [m for m in modules if mentions(_text_of(project, m), feature)]
        for gate in find_feature_gates(project, feature, relevant):
            matches.setdefault(id(gate.condition), feature.id)
    return matches


def rule_feature_of(found: ArchCondition, features: Sequence[Feature]) -> str | None:
    """A rule feature whose flags the gate reads or switches, or whose gate function holds it."""
    names = set(identifiers(found.condition)) | set(branch_assignments(found.statement))
    names |= set(assigned_names(found.statement))
    for feature in features:
        if names & set(feature.flags) or found.qualname in feature.gate_functions:
            return feature.id
    return None


def _text_of(project: Project, module: nodes.Module) -> str:
    source = project.source(Path(module.file)) if module.file else None
    return source.text if source is not None else ""
