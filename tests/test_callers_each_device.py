"""A parameter every caller gives the capability of each device of the machine, gathered
by a comprehension (`[get_device_capability(i) for i in range(device_count())]`, or over
`range(n)`, or `tuple(...)` of a generator): the value is values.EachDevice, as the same
comprehension in place is, and the callee reads it so (callers._each_device). A decision
helper for all visible GPUs, `all(major in (10, 12) for major, _ in caps)`, then admits
the generations of majors 10 and 12, not every generation.

A list a function changes before reading it is no longer the devices' (mutations.py):
`caps.append((12, 0))` adds an item that is not, so such a read stays unknown."""

from __future__ import annotations

import pytest
from astroid import nodes

from gatecheck.config.model import RuleSet
from gatecheck.semantics.admitted import Semantics, admitted, in_memory_project

DEVICE = (
    "import torch\n"
    "\n"
    "def cap(i):\n"
    "    return torch.cuda.get_device_capability(i)\n"
    "\n"
    "def count():\n"
    "    return torch.cuda.device_count()\n"
    "\n"
)

MAJORS_10_12 = {"sm100", "sm103", "sm120", "sm121"}
FROM_10 = {"sm100", "sm103", "sm110", "sm120", "sm121"}


def _decide(body: str, *arguments: str) -> str:
    """A callee `decide(caps)` returning `body`, and one caller per argument."""
    calls = "".join(f"    decide({a})\n" for a in arguments)
    return f"def decide(caps):\n    return {body}  # gate\n\ndef run(n, wanted):\n{calls}"


CASES = [
    pytest.param(
        _decide("caps[0][0] in (10, 12)", "tuple(cap(i) for i in range(2))"),
        MAJORS_10_12,
        id="an-item-of-a-tuple-of-a-generator",
    ),
    pytest.param(
        _decide("caps[0][0] in (10, 12)", "[cap(i) for i in range(2)]"),
        MAJORS_10_12,
        id="an-item-of-a-list-comprehension",
    ),
    pytest.param(
        _decide("caps[0][0] in (10, 12)", "[cap(i) for i in range(count())]"),
        MAJORS_10_12,
        id="over-the-device-count",
    ),
    pytest.param(
        _decide("caps[0][0] in (10, 12)", "tuple(cap(i) for i in range(n))"),
        MAJORS_10_12,
        id="over-an-unknown-length",
    ),
    pytest.param(
        _decide(
            "all(major in (10, 12) for major, _ in caps)",
            "[tuple(torch.cuda.get_device_capability(i)) for i in range(count())]",
        ),
        MAJORS_10_12,
        id="all-over-unpacked-items",
    ),
    pytest.param(
        _decide("all(c[0] in (10, 12) for c in caps)", "[cap(i) for i in range(n)]"),
        MAJORS_10_12,
        id="all-over-items",
    ),
    pytest.param(
        _decide(
            "min(caps) >= (10, 0)", "[cap(i) for i in range(n)]", "tuple(cap(j) for j in range(n))"
        ),
        FROM_10,
        id="two-callers-passing-the-same",
    ),
    # Another caller's constant list is one more of the parameter's values, as a tuple
    # is (values.is_option): `[(8, 0)][0][0] >= 10` is false, so it adds no generation.
    pytest.param(
        _decide("caps[0][0] >= 10", "[cap(i) for i in range(n)]", "[(8, 0)]"),
        FROM_10,
        id="another-caller-passes-a-constant-list",
    ),
    pytest.param(
        _decide("caps[0][0] >= 10", "[cap(i) for i in range(n)]", "((8, 0),)"),
        FROM_10,
        id="another-caller-passes-a-constant-tuple",
    ),
]

# Each stays unknown: not a gate, every generation admitted.
NOOPS = [
    pytest.param(
        _decide("caps[0][0] >= 10", "[cap(i) for i in range(n) if i in wanted]"),
        id="a-filtered-comprehension",
    ),
    pytest.param(
        _decide("caps[0][0] >= 10", "[str(i) for i in range(n)]"),
        id="items-not-read-from-the-device",
    ),
    pytest.param(
        _decide("caps[0][0] >= 10", "[cap(i) for i in range(n)]", "wanted"),
        id="another-caller-passes-what-is-not-read",
    ),
    pytest.param(
        _decide("len(caps) == 1", "[cap(i) for i in range(n)]"),
        id="the-length-is-not-known",
    ),
    pytest.param(
        "def decide(caps):\n"
        "    caps.append((12, 0))\n"
        "    return any(c[0] >= 12 for c in caps)  # gate\n"
        "\n"
        "def run():\n"
        "    decide([cap(i) for i in range(count())])\n",
        id="changed-by-the-callee-before-it-is-read",
    ),
]


def _admits(ruleset: RuleSet, source: str) -> frozenset[str]:
    """What the expression returned on the line marked `# gate` admits."""
    text = DEVICE + source
    project = in_memory_project({"gate": text})
    module = project.module("gate")
    assert module is not None
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "# gate" in t)
    found = next(r for r in module.nodes_of_class(nodes.Return) if r.lineno == line)
    assert found.value is not None
    semantics = Semantics(project, ruleset.registry, follow_callers=True)
    return semantics.admission(found.value).can_be_true


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_callers_pass_each_devices_capability(
    ruleset: RuleSet, source: str, expected: set[str]
) -> None:
    assert _admits(ruleset, source) == expected


@pytest.mark.parametrize("source", NOOPS)
def test_callers_pass_each_devices_capability_noop(ruleset: RuleSet, source: str) -> None:
    assert _admits(ruleset, source) == ruleset.registry.all_names()


def test_a_local_list_of_each_device_changed_in_place_is_unknown(ruleset: RuleSet) -> None:
    """In place too: the appended item is not the device's (before, `any(...)` admitted
    sm120 and sm121 only, though the list holds (12, 0) on every device)."""
    source = (
        DEVICE + "def f():\n"
        "    caps = [cap(i) for i in range(count())]\n"
        "    caps.append((12, 0))\n"
        "    return any(c[0] >= 12 for c in caps)\n"
    )
    assert admitted(source, "f()", ruleset.registry) == ruleset.registry.all_names()
