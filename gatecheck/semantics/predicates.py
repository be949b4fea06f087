"""Predicates a module already has at hand (defined, aliased or imported at module
scope), and what each admits: the 'defined but unused' evidence, and fix material."""

from __future__ import annotations

import re
from dataclasses import dataclass

from astroid import nodes

from gatecheck.semantics.admitted import Semantics
from gatecheck.semantics.values import (
    UNKNOWN,
    ClassRef,
    ExternalRef,
    FunctionRef,
    PartialRef,
    truth,
)

# Only a cost filter: names worth evaluating. The verdict comes from the body.
_ARCH_NAME = re.compile(
    r"sm_?\d|hopper|blackwell|ampere|ada|volta|turing|gfx|mi3\d|cdna|capab|arch|cuda_\d|rocm",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ScopePredicate:
    name: str
    # "call": use as name(); "alias": use as name (a module-level bool).
    form: str
    admits: frozenset[str]
    line: int
    # "import" | "def" | "alias"
    origin: str


def module_predicates(module: nodes.Module, semantics: Semantics) -> list[ScopePredicate]:
    found: list[ScopePredicate] = []
    for name, bound in module.locals.items():
        if not _ARCH_NAME.search(name) or not bound:
            continue
        node = bound[-1]
        origin = (
            "import"
            if isinstance(node, (nodes.ImportFrom, nodes.Import))
            else "def"
            if isinstance(node, nodes.FunctionDef)
            else "alias"
        )
        form, admits = _evaluate(module, name, semantics)
        if form is None:
            continue
        every = semantics.registry.all_names()
        if admits == every or not admits:
            continue
        found.append(ScopePredicate(name, form, admits, _name_line(module, node, name), origin))
    return sorted(found, key=lambda p: (len(p.admits), p.line))


def _evaluate(
    module: nodes.Module, name: str, semantics: Semantics
) -> tuple[str | None, frozenset[str]]:
    admits: set[str] = set()
    form: str | None = None
    for gen in semantics.registry.names:
        evaluator = semantics.evaluator(gen)
        value = evaluator.module_attribute(str(module.name), name)
        if isinstance(value, (FunctionRef, PartialRef, ExternalRef)) and not isinstance(
            value, ClassRef
        ):
            form = "call"
            result = evaluator.call(value, [], {})
        elif value is UNKNOWN or isinstance(value, bool):
            form = form or "alias"
            result = value
        else:
            return None, frozenset()
        if truth(result) is not False:
            admits.add(gen)
    return form, frozenset(admits)


def _name_line(module: nodes.Module, node: nodes.NodeNG, name: str) -> int:
    """The line that spells `name` (inside a multi-line import, not its first line)."""
    first = int(node.lineno or 1)
    if not isinstance(node, (nodes.ImportFrom, nodes.Import)) or not module.file:
        return first
    try:
        with open(module.file, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return first
    pattern = re.compile(rf"\b{re.escape(name)}\b")
    for number in range(first, int(node.end_lineno or first) + 1):
        if number - 1 < len(lines) and pattern.search(lines[number - 1]):
            return number
    return first
