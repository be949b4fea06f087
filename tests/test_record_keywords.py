"""Records built from keywords passed on: a call's `**fields` whose keys can be read
(gatecheck/semantics/callers.py, calls.bind_arguments), a keyword spelled beside a
`**` argument that cannot be read, and a NamedTuple's `_replace` (classes.replaced).
flash-attn-4 builds its heuristic inputs so: `Inputs(**fields, device_arch=arch)` in a
helper whose callers pass the other fields, copied with `inputs._replace(...)` under an
`if`, and tested as `inputs.device_capacity in (10, 11)` in another function."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from tests.test_callers_union import _admits

FROM_10 = {"sm100", "sm103", "sm110", "sm120", "sm121"}
MAJOR_10_11 = {"sm100", "sm103", "sm110"}

RECORD = (
    "from typing import NamedTuple\n"
    "\n"
    "class Inputs(NamedTuple):\n"
    "    cap_major: int\n"
    "    head_dim: int\n"
    "\n"
    "def pick(inputs):\n"
    "    return inputs.cap_major in (10, 11)  # gate\n"
    "\n"
)

# (source after the device helper `major()`, the generations the `# gate` line admits)
CASES = [
    pytest.param(
        RECORD + "def _inputs(*, cap_major, **fields):\n"
        "    return Inputs(**fields, cap_major=cap_major)\n"
        "\n"
        "def run(head_dim):\n"
        "    return pick(_inputs(cap_major=major(), head_dim=head_dim))\n",
        MAJOR_10_11,
        id="a-record-made-from-the-keywords-passed-on",
    ),
    pytest.param(
        RECORD + "def _inputs(*, head_dim, **fields):\n"
        "    return Inputs(**fields, head_dim=head_dim)\n"
        "\n"
        "def _config(*, cap_major, **fields):\n"
        "    inputs = _inputs(**fields, cap_major=cap_major)\n"
        "    return pick(inputs)\n"
        "\n"
        "def run(head_dim):\n"
        "    return _config(cap_major=major(), head_dim=head_dim)\n",
        MAJOR_10_11,
        id="keywords-passed-on-twice",
    ),
    pytest.param(
        RECORD + "def run(head_dim, n):\n"
        "    inputs = Inputs(cap_major=major(), head_dim=head_dim)\n"
        "    if n:\n"
        "        inputs = inputs._replace(head_dim=n)\n"
        "    return pick(inputs)\n",
        MAJOR_10_11,
        id="a-copy-with-another-field-changed-under-an-if",
    ),
    pytest.param(
        RECORD + "def run(head_dim, n):\n"
        "    inputs = Inputs(cap_major=major(), head_dim=head_dim)\n"
        "    if n:\n"
        "        inputs = inputs._replace(cap_major=10)\n"
        "    return pick(inputs)\n",
        "every",
        id="a-copy-with-the-tested-field-changed-under-an-if",
    ),
    pytest.param(
        RECORD.replace(
            "\ndef pick",
            "    def _replace(self, **changes):\n        return Inputs(9, 0)\n\ndef pick",
        )
        + "def run(head_dim):\n"
        "    inputs = Inputs(cap_major=major(), head_dim=head_dim)\n"
        "    return pick(inputs._replace(head_dim=1))\n",
        set(),
        id="a-class-s-own-replace-is-its-method",
    ),
    pytest.param(
        "def pick(cap_major, **rest):\n"
        "    return cap_major >= 10  # gate\n"
        "\n"
        "def run(options):\n"
        "    return pick(**options, cap_major=major())\n",
        FROM_10,
        id="a-keyword-spelled-beside-an-unread-spread",
    ),
    pytest.param(
        "def blackwell(*majors):\n"
        "    return majors[0] >= 10\n"
        "\n"
        "def run():\n"
        "    return blackwell(major(), 0)  # gate\n",
        FROM_10,
        id="star-args-are-the-positional-arguments-left-over",
    ),
    pytest.param(
        "def blackwell(**options):\n"
        "    return options['cap_major'] >= 10\n"
        "\n"
        "def run():\n"
        "    return blackwell(cap_major=major())  # gate\n",
        FROM_10,
        id="star-star-kwargs-are-the-keywords-left-over",
    ),
]

TABLE = (
    "MATRIX = {\n"
    "    1: {'name': 'one', 'min_major': None},\n"
    "    2: {'name': 'two', 'min_major': 8},\n"
    "    3: {'name': 'three', 'min_major': 9},\n"
    "}\n"
    "\n"
    "def check(name, min_major=None):\n"
    "    return min_major is not None and major() < min_major  # gate\n"
    "\n"
)
CASES += [
    pytest.param(
        TABLE + "def run(version):\n    return check(**MATRIX[version])\n",
        {"sm70", "sm75", "sm80", "sm86", "sm87", "sm89"},
        id="a-spread-of-a-table-entry-looked-up-by-a-key-not-known",
    ),
    pytest.param(
        TABLE.replace(", 'min_major': None", "")
        + "def run(version):\n    return check(**MATRIX[version])\n",
        {"sm70", "sm75", "sm80", "sm86", "sm87", "sm89"},
        id="an-entry-lacking-a-name-leaves-the-default",  # transformers' FA matrix
    ),
]

# A NamedTuple record read by place (vLLM's ROCm DeviceCapability(major=..., minor=...)):
# an item and an unpacking give the field made at that place.
POSITIONAL = (
    "from typing import NamedTuple\n"
    "\n"
    "class Cap(NamedTuple):\n"
    "    major: int\n"
    "    minor: int\n"
    "\n"
    "def cap():\n"
    "    return Cap(major=major(), minor=0)\n"
    "\n"
)
NOT_MAJOR_9 = {
    *("sm70", "sm75", "sm80", "sm86", "sm87", "sm89"),
    *("sm100", "sm103", "sm110", "sm120", "sm121"),
}
CASES += [
    pytest.param(
        POSITIONAL + "def run():\n    return cap()[0] != 9  # gate\n",
        NOT_MAJOR_9,
        id="a-record-item-by-place",
    ),
    pytest.param(
        POSITIONAL + "def run():\n    return cap()[-2] != 9  # gate\n",
        NOT_MAJOR_9,
        id="a-record-item-from-the-end",
    ),
    pytest.param(
        POSITIONAL + "def run():\n    first, _ = cap()\n    return first == 10  # gate\n",
        {"sm100", "sm103"},
        id="a-record-unpacked",
    ),
]

# The record's field stays unknown: every generation.
NOOPS = [
    # A plain class's instance has no items by place (unpacking it raises in Python).
    pytest.param(
        POSITIONAL.replace("(NamedTuple)", "")
        + "def run():\n    first, _ = cap()\n    return first == 10  # gate\n",
        id="an-instance-that-is-no-record-unpacked",
    ),
    pytest.param(
        RECORD + "def _make(**fields):\n"
        "    return pick(Inputs(head_dim=1, **fields))\n"
        "\n"
        "def run():\n"
        "    _make(cap_major=major())\n"
        "    _make(cap_major=major(), extra=1)\n",
        id="callers-passing-different-keywords",
    ),
    pytest.param(
        RECORD + "def _inputs(**fields):\n"
        "    fields['cap_major'] = 9\n"
        "    return pick(Inputs(head_dim=1, **fields))\n"
        "\n"
        "def run():\n"
        "    _inputs(cap_major=major())\n",
        id="keywords-changed-before-they-are-spread",
    ),
    pytest.param(
        RECORD + "def run(head_dim):\n"
        "    inputs = Inputs(cap_major=major(), head_dim=head_dim)\n"
        "    return pick(inputs._replace(no_such_field=1))\n",
        id="a-copy-naming-no-field-raises",
    ),
    pytest.param(
        RECORD + "def run(head_dim):\n"
        "    inputs = Inputs(cap_major=major(), head_dim=head_dim)\n"
        "    return pick(inputs._replace(9))\n",
        id="a-copy-given-a-position-raises",
    ),
    pytest.param(
        RECORD + "def _inputs(**fields):\n"
        "    return pick(Inputs(head_dim=1, **fields))\n"
        "\n"
        "def run(options):\n"
        "    _inputs(**options)\n",
        id="keywords-from-a-spread-that-cannot-be-read",
    ),
    pytest.param(
        TABLE.replace("3: {'name': 'three', 'min_major': 9}", "3: None")
        + "def run(version):\n    return check(**MATRIX[version])\n",
        id="a-table-entry-that-is-no-dict",
    ),
]


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_records_from_keywords_passed_on(
    ruleset: RuleSet, source: str, expected: set[str] | str
) -> None:
    every = ruleset.registry.all_names()
    assert _admits(ruleset, source) == (every if expected == "every" else expected)


@pytest.mark.parametrize("source", NOOPS)
def test_record_fields_that_stay_unknown(ruleset: RuleSet, source: str) -> None:
    assert _admits(ruleset, source) == ruleset.registry.all_names()
