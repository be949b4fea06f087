"""Gates without an `if` on a gate function: the decorator that lists the capabilities it
is declared for (`@supported_compute_capability([100, 103])`) and the build lists of the
calls in its body (`get_nvcc_flags_list(supported_major_versions=[9, 10])`). The list is
the allowlist: a gate whose condition is the list as written (a literal, or the name of
a constant list), admitting what the list names. Which lists these are and what their
entries mean is the kernel readers' convention (kernels/support.py), read the same way
here, so `check` and the kernel-aware checks agree on what a declaration admits."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from astroid import nodes

from gatecheck.gates.model import Gate, GateKind, Polarity, qualname_of
from gatecheck.kernels.support import build_declarations, decorator_declarations
from gatecheck.semantics.admitted import Admission, Semantics

__all__ = ["declaration_gates", "declared_admission", "declared_list"]

_LISTS = (nodes.List, nodes.Tuple, nodes.Set, nodes.Name)


def declaration_gates(func: nodes.FunctionDef, path: Path) -> Iterator[Gate]:
    """Candidates, by shape: the semantics (declared_admission) say which are lists of
    generations; the others are no gate."""
    module = func.root()
    name = str(module.name) if isinstance(module, nodes.Module) else ""
    for decorator in func.decorators.nodes if func.decorators is not None else ():
        if (
            isinstance(decorator, nodes.Call)
            and decorator.args
            and isinstance(decorator.args[0], _LISTS)
        ):
            yield _gate(path, name, func, decorator.args[0], decorator)
    for call in func.nodes_of_class(nodes.Call):
        if call.scope() is not func:
            continue
        for keyword in call.keywords or []:
            if keyword.arg and isinstance(keyword.value, _LISTS):
                yield _gate(path, name, func, keyword.value, keyword)


def _gate(
    path: Path,
    module: str,
    func: nodes.FunctionDef,
    listed: nodes.NodeNG,
    declaration: nodes.NodeNG,
) -> Gate:
    # In the gate function's name, the decorator's too (it is written in the outer scope).
    return Gate(
        GateKind.DECLARATION, Polarity.ENABLES, path, module, qualname_of(func), listed, declaration
    )


def declared_admission(semantics: Semantics, gate: Gate) -> Admission | None:
    """What the declaration admits (the same under every generation: it is a list); None
    when the list is not one of generations."""
    registry = semantics.registry
    evaluator = semantics.evaluator(registry.names[0])
    declaration = gate.statement
    if isinstance(declaration, nodes.Keyword):
        call = declaration.parent
        found = build_declarations(call, evaluator, registry) if call is not None else iter(())
    else:
        decorated = declaration.parent.parent if declaration.parent is not None else None
        if not isinstance(decorated, (nodes.FunctionDef, nodes.ClassDef)):
            return None
        found = decorator_declarations(decorated, evaluator, registry)
    for declared in found:
        if declared.node is declaration:
            every = registry.all_names()
            return Admission(declared.generations, every - declared.generations)
    return None


def declared_list(listed: nodes.NodeNG) -> nodes.NodeNG:
    """The literal a declaration's list is written as: the list itself, or the one
    assignment of the constant it names in its module or function (else the name)."""
    if not isinstance(listed, nodes.Name):
        return listed
    scope, bound = listed.lookup(listed.name)
    if len(bound) != 1 or not isinstance(bound[0], nodes.AssignName):
        return listed
    assign = bound[0].parent
    if (
        isinstance(assign, nodes.Assign)
        and len(assign.targets) == 1
        and isinstance(assign.value, (nodes.List, nodes.Tuple, nodes.Set))
        and isinstance(scope, (nodes.Module, nodes.FunctionDef))
    ):
        return assign.value
    return listed
