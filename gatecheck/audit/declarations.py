"""Kernel declarations as audit rows: a decorator listing the capabilities a kernel is
declared supported on (`@supported_compute_capability([100, 103])`) and a build arch list
(`get_nvcc_flags_list(supported_major_versions=[9, 10])`) gate without an `if`. They are
read by kernels/support.py's readers (the ones the kernel-aware checks use), so a kernel
library's maintainer sees "not built for sm120" next to the gates."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from astroid import nodes

from gatecheck.audit.conditions import ArchCondition, Role, SlotKind, statement_of, varies
from gatecheck.config.model import Registry
from gatecheck.gates.model import Polarity, qualname_of
from gatecheck.kernels.support import Declaration, build_declarations, decorator_declarations
from gatecheck.semantics.admitted import Admission, Semantics
from gatecheck.semantics.evaluator import Evaluator


def declared_conditions(
    semantics: Semantics, module: nodes.Module, vendor_gens: frozenset[str]
) -> list[ArchCondition]:
    """Every declaration of the module that tells generations of the vendor apart."""
    registry = semantics.registry
    # A declared list is a constant, the same under every generation: one evaluator reads it.
    evaluator = semantics.evaluator(registry.names[0])
    every = registry.all_names()
    found: list[ArchCondition] = []
    for declared, kind in _declarations(module, evaluator, registry):
        admission = Admission(declared.generations, every - declared.generations)
        if not varies(admission, vendor_gens):
            continue  # every generation of the vendor, or none of them: no gate
        statement = statement_of(declared.node)
        found.append(
            ArchCondition(
                declared.node,
                statement,
                kind,
                Path(module.file) if module.file else Path(str(module.name)),
                str(module.name),
                qualname_of(statement),
                admission,
                Polarity.ENABLES,
                declared.generations,
                Role.GATE,
                (declared.node,),
            )
        )
    return found


def _declarations(
    module: nodes.Module, evaluator: Evaluator, registry: Registry
) -> Iterator[tuple[Declaration, SlotKind]]:
    for decorated in module.nodes_of_class((nodes.FunctionDef, nodes.ClassDef)):
        for declared in decorator_declarations(decorated, evaluator, registry):
            yield declared, SlotKind.DECORATOR
    for call in module.nodes_of_class(nodes.Call):
        for declared in build_declarations(call, evaluator, registry):
            yield declared, SlotKind.BUILD
