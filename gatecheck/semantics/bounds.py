"""Bounds on the work one condition may cost. Analysed code is data, not a program to
run to completion: `10**10**10`, `'a' * 10**9` or a 5 MB list literal must cost what a
gate costs. Past a bound the value is Unknown (never a guess), and the bound is
recorded (Reads.bounds) so that a gate lost to it is reported, not silently dropped."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from astroid import nodes

from gatecheck.semantics.values import UNKNOWN

# Largest integer a constant operation may make, in bits (arch arithmetic needs ~10).
MAX_INT_BITS = 4_096
# Longest sequence (str, bytes, tuple, list) a constant operation may make, and the most
# elements a literal may have to be evaluated element by element.
MAX_LENGTH = 100_000
# Nested predicate calls followed before giving up.
MAX_CALL_DEPTH = 24
# Calls of one function in progress at once (a recursion on other arguments each time):
# a tree walk that calls itself from a loop on new objects (PyTorch's subclass metadata
# builders) made b ** MAX_CALL_DEPTH calls, a condition reaching it the whole step budget.
MAX_RECURSION = 6
# Each name in a condition costs astroid a walk up to its scope: a condition's lookup work
# is the sum of its names' depths in it. A chain of 1,000 conditional expressions is a
# million (24 s); 1,000 levels of `not` around one name is 1,000 (and is evaluated).
MAX_LOOKUP_WORK = 100_000
# Expression nodes evaluated for one condition (each predicate body is evaluated once
# per run and memoized, so a real condition costs far less).
MAX_STEPS = 2_000_000

CONSTANT_TOO_LARGE = (
    f"a constant operation would exceed {MAX_INT_BITS} bits or {MAX_LENGTH:,} items"
)
LITERAL_TOO_LONG = f"a literal has more than {MAX_LENGTH:,} items"
CALL_DEPTH = f"predicate calls nested deeper than {MAX_CALL_DEPTH}"
RECURSION = f"a function calling itself more than {MAX_RECURSION} levels deep"
TOO_DEEP = "too deeply nested to evaluate (Python's recursion limit)"
TOO_NESTED = f"a condition too large to evaluate (names x nesting over {MAX_LOOKUP_WORK:,})"
TOO_MUCH_WORK = f"more than {MAX_STEPS:,} evaluation steps for one condition"


class WorkExceeded(Exception):
    """Raised past MAX_STEPS and caught by the evaluator's entry point."""


def lookup_work_over(node: Any, limit: int) -> bool:
    """Whether the names below `node`, weighted by their depth, sum to over `limit`
    (iterative: the tree may be deeper than Python's stack)."""
    total = 0
    stack = [(node, 0)]
    while stack:
        current, depth = stack.pop()
        if isinstance(current, nodes.Name):
            total += depth
            if total > limit:
                return True
        stack.extend((child, depth + 1) for child in current.get_children())
    return False


def safe(thunk: Callable[[], Any]) -> Any:
    """A computation on known values; any exception is Unknown (the analysed code may
    well raise there, and a raise is no value)."""
    try:
        return thunk()
    except Exception:
        return UNKNOWN


_SEQUENCES = (str, bytes, tuple, list)
_WIDE_FORMAT = re.compile(r"\d{5,}")


def too_large(op: str, left: Any, right: Any) -> bool:
    """Whether `left op right` would make a value past the bounds (before making it)."""
    if op == "**":
        if _is_int(left) and _is_int(right) and right > 0 and abs(left) > 1:
            return left.bit_length() * right > MAX_INT_BITS
        return False
    if op == "*":
        if _is_int(left) and _is_int(right):
            return left.bit_length() + right.bit_length() > MAX_INT_BITS
        for seq, count in ((left, right), (right, left)):
            if isinstance(seq, _SEQUENCES) and _is_int(count):
                return len(seq) * count > MAX_LENGTH
        return False
    if op == "+" and isinstance(left, _SEQUENCES) and isinstance(right, _SEQUENCES):
        return len(left) + len(right) > MAX_LENGTH
    if op == "%" and isinstance(left, (str, bytes)):
        # printf-style widths and precisions: "%0999999999d" % 1
        text = left if isinstance(left, str) else left.decode("latin-1")
        return _WIDE_FORMAT.search(text) is not None
    return False


def oversized(value: Any) -> bool:
    """A result past the bounds (from a method or builtin that could grow it)."""
    if isinstance(value, _SEQUENCES):
        return len(value) > MAX_LENGTH
    if _is_int(value):
        return bool(value.bit_length() > MAX_INT_BITS)
    return False


def _is_int(value: Any) -> bool:
    return isinstance(value, int)
