"""A gate's identity across two versions of the code: where it is (module and enclosing
qualname) and what it tests (the condition, normalised), never its line. A line move, a
function moved inside its module, a reflowed or re-parenthesised condition keep it."""

from __future__ import annotations

import ast
import functools
import warnings
from dataclasses import dataclass

from gatecheck.audit.report import AuditedGate


@functools.lru_cache(maxsize=8192)
def normalise_condition(text: str) -> str:
    """The condition as `ast.unparse` prints it: one layout, no redundant parentheses,
    one quote style. Text that does not parse as an expression keeps its words only."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.unparse(ast.parse(text.strip(), mode="eval"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return " ".join(text.split())


@dataclass(frozen=True, order=True)
class Scope:
    """Where a gate is: gates are compared only with gates of the same scope."""

    module: str
    qualname: str


@dataclass(frozen=True, order=True)
class Identity:
    scope: Scope
    condition: str


def scope_of(gate: AuditedGate) -> Scope:
    return Scope(gate.found.module, gate.found.qualname)


def identity_of(gate: AuditedGate) -> Identity:
    return Identity(scope_of(gate), normalise_condition(gate.found.condition))
