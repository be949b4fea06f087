"""Predicates a module already has at hand (defined, aliased or imported at module
scope), and what each admits: the 'defined but unused' evidence, and fix material."""

from __future__ import annotations

import re
from dataclasses import dataclass

from astroid import nodes

from gatecheck.semantics.admitted import Semantics
from gatecheck.semantics.evaluator import Evaluator
from gatecheck.semantics.values import (
    ClassRef,
    ExternalRef,
    FunctionRef,
    PartialRef,
    Tri,
    plain,
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
        if not admits or _whole_vendors(admits, semantics):
            continue  # true nowhere, or only tells vendors apart: not an arch predicate
        found.append(ScopePredicate(name, form, admits, _name_line(module, node, name), origin))
    return sorted(found, key=lambda p: (len(p.admits), p.line))


def _whole_vendors(admits: frozenset[str], semantics: Semantics) -> bool:
    registry = semantics.registry
    vendors = {registry.get(name).vendor for name in admits}
    return admits == frozenset().union(*(registry.vendor_names(v) for v in vendors))


def _evaluate(
    module: nodes.Module, name: str, semantics: Semantics
) -> tuple[str | None, frozenset[str]]:
    def read(_gen: str, evaluator: Evaluator) -> tuple[str, Tri]:
        value = evaluator.module_attribute(str(module.name), name)
        callable_value = isinstance(value, (FunctionRef, PartialRef, ExternalRef)) and not (
            isinstance(value, ClassRef)
        )
        # An alias is read by truth, not by type: `_is_cuda and is_sm120_supported()` is
        # None on AMD (sglang's is_cuda() returns None there), which is just false.
        result = evaluator.call(value, [], {}) if callable_value else plain(value)
        return ("call" if callable_value else "alias"), truth(result)

    read_by_generation = semantics.per_generation(read)
    # A name is used as `name()` or as `name`, the same on every generation.
    forms = {form for form, _ in read_by_generation.values()}
    if len(forms) != 1:
        return None, frozenset()
    admits = frozenset(g for g, (_, t) in read_by_generation.items() if t is not False)
    return forms.pop(), admits


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
