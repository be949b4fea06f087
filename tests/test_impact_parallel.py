"""impact/parallel.py's speculation: work done here while a child decides whether it is
wanted, abandoned at its next progress event when it is not (and only then)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from gatecheck import progress
from gatecheck.impact.parallel import can_fork, speculated

pytestmark = pytest.mark.skipif(not can_fork(), reason="fork with two cores or more only")


def _steps(seconds: float) -> str:
    """Work with a progress event every millisecond, for about `seconds`."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        progress.advance()
        time.sleep(0.001)
    return "done"


def _fails() -> int:
    raise ValueError("no decision")


@pytest.mark.parametrize(
    ("decide", "work_seconds", "expected"),
    [
        (lambda: 3, 30.0, (None, 3)),  # not wanted: abandoned long before its end
        (lambda: 4, 0.5, ("done", None)),  # wanted: the work's answer
        (_fails, 0.5, ("done", None)),  # the child decides nothing: the work goes on
        (lambda: time.sleep(30) or 3, 0.2, ("done", None)),  # work done first: not waited
    ],
)
def test_speculated(decide: object, work_seconds: float, expected: tuple[object, object]) -> None:
    started = time.monotonic()
    found = speculated(decide, lambda: _steps(work_seconds), lambda n: n % 2 == 0)  # type: ignore[arg-type]
    assert found == expected
    assert time.monotonic() - started < 10


def test_abandoning_never_looks_inside_a_tree_being_built() -> None:
    """`parsed` (a tree built, inside the audit's evaluation) never raises; only stages
    and steps do, where the audit is between files."""
    reached: list[str] = []

    def work() -> str:
        time.sleep(0.5)  # the decision is in by now
        progress.parsed(Path("x.py"))
        reached.append("past parsed")
        progress.advance()
        reached.append("past the step")
        return "done"

    assert speculated(lambda: 1, work, lambda n: False) == (None, 1)
    assert reached == ["past parsed"]
