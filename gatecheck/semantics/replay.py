"""Whether another generation's evaluation of a condition would retrace this one's, so
that its answer is this one's without evaluating it again (Semantics._each).

An evaluator keeps a trace while it evaluates a condition for its generation: every
point where the generation can enter (an intrinsic asked, a naming convention or a
capability-named parameter read) with the value it gave, and every memo consulted
(its key, and the entry found when the entry read the device). Another generation's
evaluator, in the state it is in now, would walk the same path step for step if, at
every one of those points, it gets the same value:

- an intrinsic or convention gives the same value for its generation (asked again,
  compared exactly: same types, not `True == 1`);
- a memo entry that read the device is in its own memo too, with the same value and
  the same recorded reads (values compared exactly; mutable ones by identity);
- a memo entry that read nothing from the device (found in, or added to, the memo
  every generation shares) is not shadowed by an entry of its own memo.

Everything else an evaluation depends on is the same for every generation: the trees,
the shared memo and facts, the flags, the cycle set and call depth (empty at the
start, then the same path's). A trace is kept only when the evaluation added nothing
device-dependent to its own memo (the other generation would have to add its own
entry, which is work and state this does not stand for) and hit no bound (the other
would do no more work than this one, never less: a bound could fall differently).
Then the other generation would add nothing to any memo either, would read the same
conventions, bounds and modules, and would answer the same: taking the answer leaves
every memo as evaluating would have.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from gatecheck.config.model import Generation
from gatecheck.semantics.values import Capability

if TYPE_CHECKING:
    from gatecheck.semantics.conventions import Convention
    from gatecheck.semantics.evaluator import Evaluator

# Trace entries, by their first item.
BINDING = 0  # (BINDING, key, entry or None): the binding memo consulted
CALL = 1  # (CALL, key, entry or None): the call memo consulted
INTRINSIC_CALL = 2  # (INTRINSIC_CALL, dotted, args, value)
INTRINSIC_ATTRIBUTE = 3  # (INTRINSIC_ATTRIBUTE, dotted, value)
CONVENTION = 4  # (CONVENTION, convention, value)
CAPABILITY = 5  # (CAPABILITY, value): the generation's capability read
SM_VERSION = 6  # (SM_VERSION, value)
# A point whose value another generation's evaluator cannot be asked for without
# evaluating (it adds device-dependent state): the trace cannot be replayed.
OPAQUE = (7,)

_PLAIN = (bool, int, str, bytes, type(None))


def same(a: Any, b: Any) -> bool:
    """Whether two values are interchangeable in any evaluation: identical, or of the
    same type and equal part by part (a float by its repr: 0.0 and -0.0 print apart);
    mutable values and references (hashed by identity) only when identical."""
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b):
        return False
    if kind in _PLAIN:
        return bool(a == b)
    if kind is float:
        return repr(a) == repr(b)
    if kind is tuple or kind is Capability:
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    params = getattr(kind, "__dataclass_params__", None)
    if params is not None and params.frozen and params.eq:
        # (eq=False ones hash by identity: two of them make two memo keys)
        return all(same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    return False


def convention_value(convention: Convention, generation: Generation) -> Any:
    """The value a naming convention promises on `generation` (conventions.by_convention)."""
    if convention.kind == "capability":
        return Capability(generation.capability)
    if convention.kind == "sm_version":
        return generation.sm_version
    return generation.name in convention.admits


def _memo_agrees(own: dict[Any, Any], key: Any, found: tuple[Any, Any] | None) -> bool:
    mine = own.get(key)
    if found is None or not found[1].device:
        # Not found, or found in (or added to) the shared memo: none of its own shadows it.
        return mine is None
    return mine is not None and mine[1] == found[1] and same(mine[0], found[0])


def replays(trace: Sequence[tuple[Any, ...]], ev: Evaluator) -> bool:
    """Whether `ev`, evaluating now what left `trace`, would walk the same path."""
    generation = ev.generation
    bindings = ev.binding_memo.own
    calls = ev.call_memo.own
    for entry in trace:
        kind = entry[0]
        if kind == BINDING:
            if not _memo_agrees(bindings, entry[1], entry[2]):
                return False
        elif kind == CALL:
            if not _memo_agrees(calls, entry[1], entry[2]):
                return False
        elif kind == INTRINSIC_CALL:
            if not same(ev.idioms.call(entry[1], generation, entry[2]), entry[3]):
                return False
        elif kind == INTRINSIC_ATTRIBUTE:
            if not same(ev.idioms.module_attribute(entry[1], generation), entry[2]):
                return False
        elif kind == CONVENTION:
            if not same(convention_value(entry[1], generation), entry[2]):
                return False
        elif kind == CAPABILITY:
            if not same(Capability(generation.capability), entry[1]):
                return False
        elif kind == SM_VERSION:
            if not same(generation.sm_version, entry[1]):
                return False
        else:
            return False  # OPAQUE
    return True
