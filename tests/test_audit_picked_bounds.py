"""A ternary picking a bound per generation inside a comparison (`rows <= (40 if
major == 9 else 24)`) is a gate of its own: the comparison around it holds an unknown
and tells no generations apart, so the ternary's test is the row, as it is where the
bound is named first (`t = 40 if major == 9 else 24; rows <= t`). Where the condition
around it is a row itself, that row is the gate, and the ternary is not listed again;
a ternary whose truth is the condition's is read with it."""

from __future__ import annotations

import pytest

from tests.test_audit import MakeTree, audit, verdicts

# (snippet, rows as (line in mod.py, class); the snippet's first line is line 3)
CASES = [
    pytest.param(
        "def cap(rows):\n"
        "    major, _ = torch.cuda.get_device_capability()\n"
        "    return rows <= (40 if major == 9 else 24)\n",
        [(5, "probably-deliberate")],
        id="right-operand-of-a-comparison",
    ),
    pytest.param(
        "def cap(rows):\n"
        "    major, _ = torch.cuda.get_device_capability()\n"
        "    return (40 if major == 9 else 24) >= rows\n",
        [(5, "probably-deliberate")],
        id="left-operand",
    ),
    pytest.param(
        "def cap(rows):\n"
        "    major, _ = torch.cuda.get_device_capability()\n"
        "    if rows <= 2 * (40 if major == 9 else 24):\n"
        "        return 1\n"
        "    return 0\n",
        [(5, "probably-deliberate")],
        id="inside-arithmetic-inside-an-if",
    ),
    pytest.param(
        "def cap(rows):\n"
        "    major, _ = torch.cuda.get_device_capability()\n"
        "    return rows <= (40 if rows > 3 or major == 9 else 24)\n",
        [(5, "admits")],
        id="a-test-with-a-shape-term",
    ),
]

NOOPS = [
    pytest.param(
        # The comparison itself tells generations apart (its other side is known): it
        # is the row, the ternary inside it not a second one.
        "def cap():\n"
        "    major, _ = torch.cuda.get_device_capability()\n"
        "    return 32 <= (40 if major == 9 else 24)\n",
        [(5, "probably-deliberate")],
        id="the-comparison-is-the-row",
    ),
    pytest.param(
        # The ternary's truth is the condition's: read with it, one row.
        "def ok(flag):\n"
        "    major, _ = torch.cuda.get_device_capability()\n"
        "    return (flag if major == 9 else False) and flag\n",
        [(5, "probably-deliberate")],
        id="a-ternary-whose-truth-is-the-condition",
    ),
    pytest.param(
        # The ternary's test does not depend on the device: no row.
        "def cap(rows, wide):\n    return rows <= (40 if wide else 24)\n",
        [],
        id="not-the-device",
    ),
]


@pytest.mark.parametrize(("snippet", "rows"), CASES + NOOPS)
def test_a_bound_picked_per_generation(
    make_tree: MakeTree, snippet: str, rows: list[tuple[int, str]]
) -> None:
    assert verdicts(audit(make_tree, snippet)) == rows
