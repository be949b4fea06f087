"""A join of values read one at a time: the values after an unknown are not evaluated
when the unknown decides the join.

`either` and `join_all` (logic.py) of values one of which is UNKNOWN are UNKNOWN, a
parameter's callers (callers.py) answer nothing once one passes an unknown, and a body
one of whose paths returns UNKNOWN returns UNKNOWN (statements.run_body): whatever
the other values are. Evaluating them costs the most in a cold audit (each may follow
its own callers, run bodies, build modules: sglang 0.5.23's `rows * 2 <= TMA_STAGE_BYTES
// element_size` took 1.4 s, for an unknown) and adds nothing to the value. What it adds
to the reads is left out too: the naming conventions a discarded value rested on are
not the answer's assumptions, nor its device reads.

Except where an environment variable was read: an unknown may then be known where none
is set, and Semantics reads the condition again in that world when the first reading
read both a variable and the device (environment.py). There the rest is evaluated as
before, so that its device reads still call for that second reading (sglang's
`_normalize_consistency_platform(override)`, `override = os.getenv(...)`, beside a
caller passing the device's platform name). The second reading is the last world asked:
an unknown found there is final, and the rest is not evaluated again (unsloth 2026.10.9,
where most bodies read a variable first, audited in 64 s instead of 74 s)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from gatecheck.semantics.values import UNKNOWN

if TYPE_CHECKING:
    from gatecheck.semantics.evaluator import Evaluator


def unknown_anyway(ev: Evaluator) -> bool:
    """Whether an unknown just found is unknown in every world the condition is read in:
    the evaluation in progress read no environment variable so far, or it is the reading
    where none is set (the last world: no other is asked)."""
    return ev.unset_environment or not ev.reads.environment


def until_unknown(ev: Evaluator, values: Iterable[Any]) -> Iterator[Any]:
    """`values` (a generator evaluating each) up to the first UNKNOWN that is unknown
    anyway, that one included: a join of what it yields is the join of them all."""
    for value in values:
        yield value
        if value is UNKNOWN and unknown_anyway(ev):
            return
