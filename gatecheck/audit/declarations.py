"""Kernel declarations as audit rows: a decorator listing the capabilities a kernel is
declared supported on (`@supported_compute_capability([100, 103])`), a build arch list
(`get_nvcc_flags_list(supported_major_versions=[9, 10])`, nvcc's `-gencode` options in a
build's flags, or added to a flag list one at a time under the tests that pick them) and
a declared least capability (`def get_min_capability(cls): return 89`) gate without an
`if`. They are
read by kernels/support.py's readers (the ones the kernel-aware checks use), so a kernel
library's maintainer sees "not built for sm120" next to the gates."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from astroid import nodes

from gatecheck.audit.conditions import (
    ArchCondition,
    ModuleNodes,
    Role,
    SlotKind,
    feature_side,
    module_nodes,
    module_path,
    operands,
    outermost_slots,
    statement_of,
    varies,
)
from gatecheck.config.model import Registry
from gatecheck.gates.model import Polarity, qualname_of
from gatecheck.kernels.support import (
    Declaration,
    appended_flag_declarations,
    build_declarations,
    command_declarations,
    decorator_declarations,
    flag_declarations,
    flag_list_declarations,
    gens_for_arch,
    minimum_declarations,
    range_declarations,
)
from gatecheck.semantics.admitted import Admission, Semantics
from gatecheck.semantics.evaluator import Evaluator


def declared_conditions(
    semantics: Semantics,
    module: nodes.Module,
    vendor_gens: frozenset[str],
    slots: Sequence[Slot] | None = None,
    walked: ModuleNodes | None = None,
) -> list[ArchCondition]:
    """Every declaration of the module that tells generations of the vendor apart.
    `slots`: the module's outermost_slots, `walked` its module_nodes, when the caller
    has them (each a walk of the tree)."""
    registry = semantics.registry
    # A declared list is a constant, the same under every generation: one evaluator reads it.
    evaluator = semantics.evaluator(registry.names[0])
    every = registry.all_names()
    found: list[ArchCondition] = []
    for declared, kind in _declarations(module, evaluator, registry, walked):
        admission = Admission(declared.generations, every - declared.generations)
        if not varies(admission, vendor_gens):
            continue  # every generation of the vendor, or none of them: no gate
        statement = statement_of(declared.node)
        found.append(
            ArchCondition(
                declared.node,
                statement,
                kind,
                module_path(module),
                str(module.name),
                qualname_of(statement),
                admission,
                Polarity.ENABLES,
                declared.generations,
                Role.GATE,
                (declared.node,),
            )
        )
    return found + build_flag_conditions(semantics, module, vendor_gens, slots)


def _declarations(
    module: nodes.Module, evaluator: Evaluator, registry: Registry, walked: ModuleNodes | None
) -> Iterator[tuple[Declaration, SlotKind]]:
    walked = walked or module_nodes(module)
    for decorated in walked.definitions:
        for declared in decorator_declarations(decorated, evaluator, registry):
            yield declared, SlotKind.DECORATOR
        if isinstance(decorated, nodes.FunctionDef):
            for declared in minimum_declarations(decorated, evaluator, registry):
                yield declared, SlotKind.MINIMUM
    built = False  # a build call of the module read its flags: its rows say them
    for call in walked.calls:
        for declared in build_declarations(call, evaluator, registry):
            yield declared, SlotKind.BUILD
        for declared in flag_declarations(call, evaluator, registry):
            built = True
            yield declared, SlotKind.BUILD
        for declared in command_declarations(call, evaluator, registry):
            built = True
            yield declared, SlotKind.BUILD
        for declared in range_declarations(call, evaluator, registry):
            yield declared, SlotKind.BUILD
    if built:
        return
    owners = [module, *walked.definitions]
    for owner in owners:
        for declared in flag_list_declarations(owner, evaluator, registry):
            yield declared, SlotKind.BUILD
    for call in walked.calls:
        for declared in appended_flag_declarations(call, evaluator, registry):
            yield declared, SlotKind.BUILD


# (condition, statement, kind), as conditions.outermost_slots gives them.
Slot = tuple[nodes.NodeNG, nodes.NodeNG, SlotKind]

# An AOT build flag named for the arch it targets (`has_sm100`, `has_sm100f`, and with
# words before it and one after: `has_flash_kda_decode_sm103a_direct`, `has_sm100a_exact`,
# FlashInfer 0.7.4's aot.py): true when the arch list being compiled holds that arch,
# whatever the device.
_BUILD_FLAG = re.compile(r"^_?has_(?:[a-z0-9]+_)*?sm_?(\d{2,3}[af]?)(?:_[a-z]+)?$")


def build_flag_conditions(
    semantics: Semantics,
    module: nodes.Module,
    vendor_gens: frozenset[str],
    slots: Sequence[Slot] | None = None,
) -> list[ArchCondition]:
    """`if has_sm100:` / `if has_sm120 or has_sm121:` in an AOT builder: the kernels under
    it are built for the generations the flags name. Only conditions made of such flags
    alone (and/or/not), and only where the semantics does not read them off the device (a
    flag that is a device predicate's result is an ordinary gate)."""
    registry = semantics.registry
    every = registry.all_names()
    found: list[ArchCondition] = []
    for condition, statement, kind in outermost_slots(module) if slots is None else slots:
        flags = [_flag_arch(term) for term in operands(condition)]
        if not flags or any(arch is None for arch in flags):
            continue
        if varies(semantics.admission(condition), every):
            continue  # device-derived: discover() reports it as a gate
        can_true, can_false = _flag_sets(condition, registry)
        names = sorted({str(getattr(t, "name", "")) for t in operands(condition)})
        assumed = frozenset(
            f"{n}: a build flag, true when the build targets its arch" for n in names
        )
        admission = Admission(can_true, can_false, assumed)
        if not varies(admission, vendor_gens):
            continue
        polarity, admits = feature_side(statement, kind, admission, vendor_gens, condition)
        found.append(
            ArchCondition(
                condition,
                statement,
                SlotKind.BUILD,
                module_path(module),
                str(module.name),
                qualname_of(statement),
                admission,
                polarity,
                admits,
                Role.GATE,
                tuple(operands(condition)),
            )
        )
    return found


def _flag_arch(term: nodes.NodeNG) -> str | None:
    if not isinstance(term, nodes.Name):
        return None
    match = _BUILD_FLAG.match(str(term.name))
    return match.group(1) if match else None


def _flag_sets(
    condition: nodes.NodeNG, registry: Registry
) -> tuple[frozenset[str], frozenset[str]]:
    """Where the condition of build flags is true / false (each flag true exactly on the
    generations of its arch)."""
    every = registry.all_names()
    if isinstance(condition, nodes.BoolOp):
        parts = [_flag_sets(value, registry) for value in condition.values]
        if condition.op == "or":
            return frozenset().union(*(t for t, _ in parts)), frozenset(every).intersection(
                *(f for _, f in parts)
            )
        return frozenset(every).intersection(*(t for t, _ in parts)), frozenset().union(
            *(f for _, f in parts)
        )
    if isinstance(condition, nodes.UnaryOp):
        true_side, false_side = _flag_sets(condition.operand, registry)
        return false_side, true_side
    gens = gens_for_arch(registry, _flag_arch(condition) or "")
    return gens, every - gens
