"""Automatic reach: from the code a feature's gates guard, follow calls a few hops until
they leave the project into a kernel library (`flashinfer.comm.trtllm_allreduce_fusion`),
for rules that do not name their kernels.

Calls are bound through the evaluator (imports, receivers). A method called on a receiver
that cannot be resolved is followed only when the project defines exactly one method of
that name, and the result says so (assumed, not proven)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from astroid import nodes

from gatecheck.gates.results import Analysis, GateResult
from gatecheck.loading.trees import lookup
from gatecheck.semantics.callers import calls_named
from gatecheck.semantics.values import ExternalRef, FunctionRef, PartialRef

MAX_DEPTH = 5
_METHOD_DEF = re.compile(r"^[ \t]+(?:async[ \t]+)?def[ \t]+(\w+)[ \t]*\(", re.MULTILINE)


@dataclass(frozen=True)
class ReachedKernel:
    dotted: str  # the kernel library entry point, e.g. flashinfer.comm.trtllm_allreduce_fusion
    via: tuple[str, ...]  # the project functions followed to get there
    assumed: tuple[str, ...] = ()  # methods bound by a unique name


def reach_kernels(
    analysis: Analysis, results: Sequence[GateResult], packages: Sequence[str]
) -> list[ReachedKernel]:
    """Kernel entry points in `packages` (top-level names) reached from guarded code."""
    walker = _Walker(analysis, tuple(packages))
    for body in _guarded_bodies(analysis, results):
        for statement in body:
            walker.walk(statement, (), (), 0)
    return list(walker.found.values())


def _guarded_bodies(
    analysis: Analysis, results: Sequence[GateResult]
) -> Iterator[list[nodes.NodeNG]]:
    """Bodies the gates guard: `if gate(...)` blocks at the gate functions' call sites,
    and the body under an enabling if-gate."""
    functions = set()
    for result in results:
        statement = result.gate.statement
        if isinstance(statement, nodes.If) and result.gate.condition is statement.test:
            yield list(statement.body)
        scope = statement.scope()
        if isinstance(scope, nodes.FunctionDef) and isinstance(statement, nodes.Return):
            functions.add(scope)
    evaluator = analysis.semantics.evaluator(analysis.semantics.registry.names[0])
    for function in functions:
        name = str(function.name)
        for path in analysis.project.files:
            text = analysis.project.text_of(path)
            if text is None or name not in text:
                continue
            module = analysis.project.module_at(path)
            if module is None:
                continue
            for call in calls_named(module, name):
                value = evaluator.value(call.func)
                if not (isinstance(value, FunctionRef) and value.node is function):
                    continue
                parent, child = call.parent, call
                while (
                    parent is not None
                    and not isinstance(parent, nodes.If)
                    and not parent.is_statement
                ):
                    parent, child = parent.parent, parent
                if isinstance(parent, nodes.If) and child is parent.test:
                    yield list(parent.body)


class _Walker:
    def __init__(self, analysis: Analysis, packages: tuple[str, ...]) -> None:
        self.analysis = analysis
        self.packages = packages
        self.evaluator = analysis.semantics.evaluator(analysis.semantics.registry.names[0])
        self.found: dict[str, ReachedKernel] = {}
        self.visited: set[int] = set()
        self._methods: dict[str, list[nodes.FunctionDef]] = {}
        self._index: dict[str, list[Path]] | None = None

    def walk(
        self, root: nodes.NodeNG, via: tuple[str, ...], assumed: tuple[str, ...], depth: int
    ) -> None:
        for call in root.nodes_of_class(nodes.Call):
            for dotted in self._external_targets(call.func):
                if dotted.split(".")[0] in self.packages and dotted not in self.found:
                    self.found[dotted] = ReachedKernel(dotted, via, assumed)
            if depth >= MAX_DEPTH:
                continue
            for function, guessed in self._project_targets(call.func):
                if id(function) in self.visited:
                    continue
                self.visited.add(id(function))
                step = f"{function.root().name}.{function.name}"
                more = (
                    (*assumed, f"`{function.name}` bound by its unique name")
                    if guessed
                    else assumed
                )
                self.walk(function, (*via, step), more, depth + 1)

    def _external_targets(self, func: nodes.NodeNG) -> Iterator[str]:
        value = self.evaluator.value(func)
        while isinstance(value, PartialRef):
            value = value.func
        if isinstance(value, ExternalRef):
            yield value.dotted
            return
        # `_lib = None` ... `_lib = import_module(...)`: any binding of the receiver counts.
        if isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name):
            try:
                _scope, assigns = lookup(func.expr, func.expr.name)
            except Exception:
                return
            for bound in assigns:
                for value in self._binding_values(bound, func.expr.name):
                    if isinstance(value, ExternalRef):
                        yield f"{value.dotted}.{func.attrname}"

    def _binding_values(self, bound: nodes.NodeNG, name: str) -> Iterator[object]:
        module = bound.root()
        if isinstance(module, nodes.Module) and isinstance(
            bound, (nodes.AssignName, nodes.Import, nodes.ImportFrom)
        ):
            for node in module.locals.get(name, [bound]):
                yield self.evaluator.binding_of(node, name)
                if isinstance(node, nodes.AssignName) and isinstance(node.parent, nodes.Assign):
                    value = node.parent.value
                    if isinstance(value, nodes.Name):
                        yield self.evaluator.value(value)

    def _project_targets(self, func: nodes.NodeNG) -> Iterator[tuple[nodes.FunctionDef, bool]]:
        value = self.evaluator.value(func)
        while isinstance(value, PartialRef):
            value = value.func
        if isinstance(value, FunctionRef) and isinstance(value.node, nodes.FunctionDef):
            yield value.node, False
            return
        if isinstance(func, nodes.Attribute):
            candidates = self._methods_named(str(func.attrname))
            if len(candidates) == 1:
                yield candidates[0], True

    def _methods_named(self, name: str) -> list[nodes.FunctionDef]:
        if name not in self._methods:
            spelled = self._method_index().get(name, [])
            found: list[nodes.FunctionDef] = []
            # Only a name defined once in the whole project can be bound by its name.
            if len(spelled) == 1:
                module = self.analysis.project.module_at(spelled[0])
                if module is not None:
                    found = [
                        f
                        for f in module.nodes_of_class(nodes.FunctionDef)
                        if f.name == name and isinstance(f.parent, nodes.ClassDef)
                    ]
            self._methods[name] = found
        return self._methods[name]

    def _method_index(self) -> dict[str, list[Path]]:
        """Indented `def name(` occurrences per name, one text pass over the project."""
        if self._index is None:
            index: dict[str, list[Path]] = {}
            for path in self.analysis.project.files:
                text = self.analysis.project.text_of(path)
                if text is None:
                    continue
                for match in _METHOD_DEF.finditer(text):
                    index.setdefault(match.group(1), []).append(path)
            self._index = index
        return self._index
