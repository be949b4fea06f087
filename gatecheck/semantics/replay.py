"""Whether another generation's evaluation of a condition would retrace this one's, so
that its answer is this one's without evaluating it again (Semantics._each).

An evaluator keeps a trace while it evaluates a condition for its generation: every
point where the generation can enter (an intrinsic asked, a naming convention or a
capability-named parameter read) with the value it gave, and every memo consulted or
added to (its key, and the entry when the entry read the device). Another generation's
evaluator, in the state it is in now, would walk the same path step for step if, at
every one of those points, it gets the same value:

- an intrinsic or convention gives the same value for its generation (asked again,
  compared exactly: same types, not `True == 1`);
- a memo entry found that read the device is in its own memo too, with the same value
  and the same recorded reads (values compared exactly; mutable ones by identity);
- a memo entry that read the device and was computed (added to this one's own memo) is
  not in the other's own memo either: it would compute it too, by the steps the trace
  holds, and add the same entry -- when the value is one any computation making a value
  `same` as it may as well make (plain values, tuples and frozen value classes of them;
  a reference or a mutable value is made anew each time: the trace is then not kept);
- a memo entry that read nothing from the device (found in, or added to, the memo
  every generation shares) is not shadowed by an entry of its own memo.

Everything else an evaluation depends on is the same for every generation: the trees,
the shared memo and facts, the flags, the evaluations in progress and the call depth
(none at the start, then the same path's, for the same question: an entry made past a
cycle cut holds along it, reads.py). A trace is kept only when the evaluation hit no
bound (the other generation does no more work than this one, never less: a bound could
fall differently). The other generation then reads the same conventions, bounds and
modules, adds to its own memo what this one added to its own, nothing to the shared
one, and answers the same: taking the answer, and the entries it would add, leaves
every memo as evaluating would have.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from gatecheck.config.model import Generation
from gatecheck.semantics.reads import Memo, Recorded
from gatecheck.semantics.values import AssumedCapability, Capability, OneOf

if TYPE_CHECKING:
    from gatecheck.semantics.conventions import Convention
    from gatecheck.semantics.evaluator import Evaluator

# Trace entries, by their first item.
BINDING = 0  # (BINDING, key, entry or None): the binding memo consulted
CALL = 1  # (CALL, key, entry or None): the call memo consulted
BINDING_ADDED = 8  # (BINDING_ADDED, key, entry): a device-dependent binding computed
CALL_ADDED = 9  # (CALL_ADDED, key, entry)
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
    if kind is tuple or kind is Capability or kind is AssumedCapability:
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    params = getattr(kind, "__dataclass_params__", None)
    if params is not None and params.frozen and params.eq:
        # (eq=False ones hash by identity: two of them make two memo keys)
        return all(same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    return False


def interchangeable(value: Any) -> bool:
    """Whether every computation making a value `same` as this one may as well make
    this one: no part of it is compared, hashed or mutated by identity."""
    kind = type(value)
    if kind in _PLAIN or kind is float or isinstance(value, enum.Enum):
        return True
    if kind is tuple or kind is Capability or kind is AssumedCapability:
        return all(interchangeable(v) for v in value)
    params = getattr(kind, "__dataclass_params__", None)
    if params is not None and params.frozen and params.eq:
        return all(interchangeable(getattr(value, f.name)) for f in dataclasses.fields(value))
    return False


def added(kind: int, key: Any, value: Any, recorded: Recorded) -> tuple[Any, ...]:
    """The trace entry of a memo entry just computed (kind: BINDING or CALL)."""
    if not recorded.device:
        return (kind, key, None)  # in the shared memo: as a miss of the other's own
    if not interchangeable(value):
        return OPAQUE
    return (BINDING_ADDED if kind == BINDING else CALL_ADDED, key, (value, recorded))


def arch_spellings(generation: Generation) -> tuple[str, ...]:
    """The arch's name as code spells it: "sm_100", "sm_100a", "sm_100f", "100"."""
    sm = f"{generation.sm_version}"
    return (f"sm_{sm}", f"sm_{sm}a", f"sm_{sm}f", sm)


def arch_texts(generation: Generation) -> Any:
    """One of the arch's spellings (values.OneOf: a test of it is each spelling's, known
    where they agree); an AMD generation's gfx name."""
    if generation.vendor != "nvidia":
        return generation.name
    return OneOf(arch_spellings(generation))


def convention_value(convention: Convention, generation: Generation) -> Any:
    """The value a naming convention promises on `generation` (conventions.by_convention)."""
    if convention.kind == "capability":
        return AssumedCapability(generation.capability)
    if convention.kind == "sm_version":
        return generation.sm_version
    if convention.kind == "compute_version":
        major, minor = generation.capability[:2]
        return f"{major}.{minor}"
    if convention.kind == "arch_text":
        return arch_texts(generation)
    if convention.kind == "properties":
        from gatecheck.semantics.idioms.device_properties import device_props

        return device_props(generation)
    return generation.name in convention.admits


def _memo_agrees(
    memo: Memo, pending: dict[Any, Any], key: Any, found: tuple[Any, Any] | None
) -> bool:
    mine = pending.get(key)
    if mine is None:
        mine = memo.own_entry(key)
    if found is None or not found[1].device:
        # Not found, or found in (or added to) the shared memo: none of its own shadows it.
        return mine is None
    return mine is not None and mine[1] == found[1] and same(mine[0], found[0])


def retraced(trace: Sequence[tuple[Any, ...]], ev: Evaluator) -> bool:
    """Whether `ev`, evaluating now what left `trace`, would walk the same path; if so,
    its memos are left as that walk would leave them (what it would add to its own)."""
    generation = ev.generation
    memos = {BINDING: ev.binding_memo, CALL: ev.call_memo}
    # What the walk would have added to its own memos by this point, per memo.
    pending: dict[int, dict[Any, Any]] = {BINDING: {}, CALL: {}}
    additions: list[tuple[int, Any, tuple[Any, Recorded]]] = []
    for entry in trace:
        kind = entry[0]
        if kind in (BINDING, CALL):
            if not _memo_agrees(memos[kind], pending[kind], entry[1], entry[2]):
                return False
        elif kind in (BINDING_ADDED, CALL_ADDED):
            memo = BINDING if kind == BINDING_ADDED else CALL
            # Computed there, so found in neither memo: nor here, then (another
            # generation may have added it to the shared memo since).
            if memos[memo].in_shared(entry[1]) or not _memo_agrees(
                memos[memo], pending[memo], entry[1], None
            ):
                return False
            pending[memo][entry[1]] = entry[2]
            additions.append((memo, entry[1], entry[2]))
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
            if not same(type(entry[1])(generation.capability), entry[1]):
                return False
        elif kind == SM_VERSION:
            if not same(generation.sm_version, entry[1]):
                return False
        else:
            return False  # OPAQUE
    for memo, key, (value, recorded) in additions:
        (ev.binding_memo if memo == BINDING else ev.call_memo).put(key, value, recorded)
    return True
