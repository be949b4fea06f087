"""`match` on a device value: whether a `case` is taken. A case's pattern is a condition
on the subject as an `if`/`elif` chain would spell it: `case 9:` is `subject == 9`,
`case 10 | 11:` either, `case None:` is `subject is None`, `case (9, 0):` a tuple or
list of that length whose items match, `case _:` and a capture always match; its guard
(`case 12 if head_dim > 64:`) is and-ed (unknown where the pattern captures a name). The
truth is three-valued: a class, mapping or starred pattern, or a subject that cannot be
read, is unknown. flash-attn-4 selects its
per-generation configs so (`match inputs.device_capacity: case 9: ... case 12: ...`).

Each case's pattern is a condition node of its own (the audit lists it, the statement
walk skips a case that cannot be taken and the ones after a case that surely is); its
value is the case's truth, read at the `match` statement."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from astroid import nodes

from gatecheck.semantics.values import UNKNOWN, Tri, truth

if TYPE_CHECKING:
    from gatecheck.semantics.env import Env
    from gatecheck.semantics.evaluator import Evaluator

PATTERNS = (
    nodes.MatchValue,
    nodes.MatchSingleton,
    nodes.MatchOr,
    nodes.MatchAs,
    nodes.MatchSequence,
    nodes.MatchStar,
    nodes.MatchClass,
    nodes.MatchMapping,
)


def case_of(pattern: nodes.NodeNG) -> nodes.MatchCase | None:
    """The case whose whole pattern `pattern` is (not a part of one), else None."""
    case = pattern.parent
    if isinstance(case, nodes.MatchCase) and case.pattern is pattern:
        return case
    return None


def case_pattern(ev: Evaluator, node: nodes.NodeNG, env: Env | None) -> Any:
    """A pattern evaluated as a condition: its case's truth (a part of a pattern alone has
    no value)."""
    case = case_of(node)
    return UNKNOWN if case is None else case_truth(ev, case, env)


def case_truth(ev: Evaluator, case: nodes.MatchCase, env: Env | None) -> Tri:
    """Whether `case` is taken, where no case before it is: its pattern matches the
    subject and its guard holds."""
    match = case.parent
    assert isinstance(match, nodes.Match)
    from gatecheck.semantics.expressions import may_be_none

    subject = may_be_none(ev, match.subject, env)
    matched = pattern_truth(ev, case.pattern, subject, env)
    if matched is False or case.guard is None:
        return matched
    if any(True for _ in case.pattern.nodes_of_class(nodes.AssignName)):
        return _all([matched, UNKNOWN])  # a guard reading what the pattern captures
    return _all([matched, truth(ev.eval(case.guard, env))])


def pattern_truth(ev: Evaluator, pattern: nodes.NodeNG, subject: Any, env: Env | None) -> Tri:
    from gatecheck.semantics.expressions import compare

    if isinstance(pattern, nodes.MatchValue):
        return truth(compare(ev, "==", subject, ev.eval(pattern.value, env)))
    if isinstance(pattern, nodes.MatchSingleton):
        return truth(compare(ev, "is", subject, pattern.value))
    if isinstance(pattern, nodes.MatchOr):
        return _any(pattern_truth(ev, p, subject, env) for p in pattern.patterns)
    if isinstance(pattern, nodes.MatchAs):
        if pattern.pattern is None:
            return True  # `case _:` or a capture
        return pattern_truth(ev, pattern.pattern, subject, env)
    if isinstance(pattern, nodes.MatchSequence):
        items = pattern.patterns
        if any(isinstance(p, nodes.MatchStar) for p in items):
            return UNKNOWN
        if not isinstance(subject, (tuple, list)):
            return UNKNOWN  # a str is no sequence to `match`; an unknown is not read
        if len(subject) != len(items):
            return False
        return _all(pattern_truth(ev, p, s, env) for p, s in zip(items, subject, strict=True))
    return UNKNOWN


def _all(truths: Iterable[Tri]) -> Tri:
    return _kleene(truths, decisive=False)


def _any(truths: Iterable[Tri]) -> Tri:
    return _kleene(truths, decisive=True)


def _kleene(truths: Iterable[Tri], decisive: bool) -> Tri:
    """`and` (decisive False) or `or` (decisive True) of three-valued truths, read in
    order up to the first that decides."""
    found: Tri = not decisive
    for t in truths:
        if t is decisive:
            return decisive
        if t is not (not decisive):
            found = UNKNOWN
    return found
