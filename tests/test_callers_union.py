"""Callers that pass different known values for a parameter (gatecheck/semantics/callers.py):
inside the function the parameter is one of them (values.OneOf, logic.either), so a
threshold given `min_major=8` at one call and `min_major=9` at another admits the
generations below 9. Past logic.MAX_OPTIONS values, or values that are not all constants
(or all references), it stays unknown, as does a caller that passes what is not read."""

from __future__ import annotations

import pytest
from astroid import nodes

from gatecheck.config.model import RuleSet
from gatecheck.semantics.admitted import Admission, Semantics, in_memory_project

DEVICE = "import torch\n\ndef major():\n    return torch.cuda.get_device_capability()[0]\n\n"

BELOW_9 = {"sm70", "sm75", "sm80", "sm86", "sm87", "sm89"}
BELOW_10 = BELOW_9 | {"sm90", "gfx90a", "gfx942", "gfx950"}
FROM_9 = {"sm90", "sm100", "sm103", "sm110", "sm120", "sm121", "gfx90a", "gfx942", "gfx950"}

CAPABILITY_CLASS = (
    "class Cap:\n"
    "    def __init__(self, min_cc=None):\n"
    "        self.min_cc = min_cc\n"
    "\n"
    "    def ok(self):\n"
    "        cc = torch.cuda.get_device_capability()\n"
    "        return {test}  # gate\n"
    "\n"
)

# A check called in a comprehension over each device's capability (its `return` to come).
FITS_EACH_DEVICE = (
    "def fits(cc):\n"
    "    return cc >= (9, 0)  # gate\n"
    "\n"
    "def run():\n"
    "    n = torch.cuda.device_count()\n"
    "    caps = [torch.cuda.get_device_capability(i) for i in range(n)]\n"
)

# (source after DEVICE, the generations the line marked `# gate` admits)
CASES = [
    # A table looked up with one of the names its callers pass: those names' items,
    # not every item of the table.
    pytest.param(
        "def floor(kind):\n"
        '    table = {"fa2": 8, "fa3": 9, "fa4": 10}\n'
        "    return major() >= table[kind]  # gate\n"
        "\n"
        "def run():\n"
        '    floor("fa3")\n'
        '    floor("fa4")\n',
        FROM_9,
        id="a-table-looked-up-with-one-of-two-names",
    ),
    pytest.param(
        "def check(name, min_major=None):\n"
        "    return major() < min_major  # gate\n"
        "\n"
        "def run():\n"
        "    check('fa2', min_major=8)\n"
        "    check('fa3', min_major=9)\n",
        BELOW_9,
        id="a-function-given-two-floors",
    ),
    pytest.param(
        "def check(name, min_major=None):\n"
        "    return major() >= min_major + 1  # gate\n"
        "\n"
        "def run():\n"
        "    check('fa2', min_major=8)\n"
        "    check('fa3', min_major=9)\n",
        FROM_9,
        id="arithmetic-on-one-of-two-floors-is-one-of-the-results",
    ),
    pytest.param(
        "def pick(majors):\n"
        "    return 10 in majors  # gate\n"
        "\n"
        "def run():\n"
        "    majors = [major()]\n"
        "    return [c for c in [pick(majors)] if c]\n",
        {"sm100", "sm103"},
        id="a-call-inside-a-comprehension-reads-the-list-where-it-runs",
    ),
    pytest.param(
        "def majors():\n"
        "    try:\n"
        "        return {major()}\n"
        "    except Exception:\n"
        "        return None\n"
        "\n"
        "def pick(found):\n"
        "    if not found:\n"
        "        return False\n"
        "    return next(iter(found)) == 10  # gate\n"
        "\n"
        "def run():\n"
        "    return pick(majors())\n",
        {"sm100", "sm103"},
        id="iter-of-a-value-that-may-be-none-raises-on-none",
    ),
    pytest.param(
        "class Loader:\n"
        "    def check(self, name, min_major=None):\n"
        "        return major() < min_major  # gate\n"
        "\n"
        "    def run(self):\n"
        "        self.check('fa2', min_major=8)\n"
        "        self.check('fa3', 9)\n",
        BELOW_9,
        id="a-method-given-two-floors-by-keyword-and-by-position",
    ),
    pytest.param(
        # No receiver: the first parameter is what the callers pass, through the class
        # or an instance (FlashInfer's CompilationContext._normalize_cuda_arch).
        "class Arch:\n"
        "    @staticmethod\n"
        "    def hopper(major, minor):\n"
        "        return major == 9  # gate\n"
        "\n"
        "    def here(self):\n"
        "        return self.hopper(major(), 0)\n"
        "\n"
        "def run():\n"
        "    return Arch.hopper(major(), 0)\n",
        {"sm90", "gfx90a", "gfx942", "gfx950"},
        id="a-staticmethod-s-first-parameter-is-an-argument",
    ),
    pytest.param(
        # The argument is a comprehension's target: an item of what it runs over, here
        # each device's capability.
        FITS_EACH_DEVICE + "    return all(fits(c) for c in caps)\n",
        FROM_9,
        id="a-comprehension-passing-its-target",
    ),
    pytest.param(
        "def fits(arch):\n"
        "    return arch in ('sm90', 'sm100')  # gate\n"
        "\n"
        "def run():\n"
        "    a, b = torch.cuda.get_device_capability()\n"
        "    return [fits(x) for x in (f'sm{a}{b}',)]\n",
        {"sm90", "sm100", "gfx90a"},
        id="a-comprehension-over-one-known-item",
    ),
    pytest.param(
        CAPABILITY_CLASS.format(test="cc < self.min_cc")
        + "A = Cap(min_cc=(9, 0))\n"
        + "B = Cap((10, 0))\n",
        BELOW_10,
        id="an-instance-field-from-two-constructions",
    ),
    pytest.param(
        CAPABILITY_CLASS.format(test="self.min_cc is not None and cc < self.min_cc")
        + "A = Cap(min_cc=(9, 0))\n"
        + "B = Cap(min_cc=(10, 0))\n"
        + "NONE = Cap()\n",
        BELOW_10,
        id="an-instance-field-from-two-constructions-and-one-leaving-the-none-default",
    ),
    pytest.param(
        "class Hopper:\n"
        "    MIN_MAJOR = 9\n"
        "\n"
        "class Blackwell:\n"
        "    MIN_MAJOR = 10\n"
        "\n"
        "def fits(kernel):\n"
        "    return major() >= kernel.MIN_MAJOR  # gate\n"
        "\n"
        "def run():\n"
        "    return fits(Hopper) or fits(Blackwell)\n",
        FROM_9,
        id="callers-passing-two-classes",
    ),
    # Optional keywords spread from a dict display that does not name the parameter:
    # that call leaves its default (spread_keywords.py).
    pytest.param(
        "def check(name, min_major=8, **extra):\n"
        "    return major() < min_major  # gate\n"
        "\n"
        "def run(tag):\n"
        "    check('fa3', min_major=9)\n"
        "    check('fa2', **({'tag': tag} if tag is not None else {}))\n",
        BELOW_9,
        id="a-caller-spreading-optional-keywords-leaves-the-default",
    ),
    # An unresolved call spelled like the method, with a keyword it does not take beside a
    # spread of known names: no call of it (callers._fits), whatever the spread gives.
    pytest.param(
        "class Loader:\n"
        "    def check(self, min_major=10):\n"
        "        return major() < min_major  # gate\n"
        "\n"
        "    def run(self):\n"
        "        self.check(min_major=8)\n"
        "        self.check(min_major=9)\n"
        "\n"
        "def other(obj, extra):\n"
        "    obj.check(depth=2, **({'extra': extra} if extra else {}))\n",
        BELOW_9,
        id="an-unresolved-call-with-a-keyword-the-method-lacks-beside-a-spread",
    ),
    # A conversion of one of a few strings is each one's (builtin_calls._per_option).
    pytest.param(
        "def check(tag):\n"
        "    return major() >= int(tag) - 1  # gate\n"
        "\n"
        "def run():\n"
        "    check('9')\n"
        "    check('10')\n",
        {"sm80", "sm86", "sm87", "sm89", *FROM_9},
        id="a-conversion-of-one-of-a-few-strings",
    ),
]

# Each must stay unknown: not a gate, every generation admitted.
NOOPS = [
    pytest.param(
        # Under the comprehension's `if` only some items are passed: not read.
        FITS_EACH_DEVICE + "    return all(fits(c) for c in caps if c[1] == 0)\n",
        id="a-comprehension-target-under-its-if",
    ),
    pytest.param(
        "def check(tag):\n"
        "    return major() >= tag - 1  # gate\n"
        "\n"
        "def run():\n"
        "    check('9')\n"
        "    check('10')\n",
        id="arithmetic-on-options-that-are-not-numbers",
    ),
    pytest.param(
        "def check(min_major):\n"
        "    return major() < min_major  # gate\n"
        "\n"
        "def run():\n" + "".join(f"    check({n})\n" for n in range(1, 10)),
        id="more-values-than-logic-max-options",
    ),
    pytest.param(
        "def check(min_major, n):\n"
        "    return major() < min_major  # gate\n"
        "\n"
        "def run(n):\n"
        "    check(9, n)\n"
        "    check(n, n)\n",
        id="a-constant-beside-a-value-not-read",
    ),
    pytest.param(
        "class Hopper:\n"
        "    MIN_MAJOR = 9\n"
        "\n"
        "def check(min_major):\n"
        "    return major() < min_major  # gate\n"
        "\n"
        "def run():\n"
        "    check(9)\n"
        "    check(Hopper)\n",
        id="a-constant-beside-a-reference",
    ),
    pytest.param(
        "def check(min_major):\n"
        "    return major() < min_major  # gate\n"
        "\n"
        "def run(obj):\n"
        "    check(8)\n"
        "    check(9)\n"
        "    obj.check(10)\n",
        id="a-call-on-an-unresolved-receiver-may-pass-another",
    ),
    pytest.param(
        "def check(min_major=8, **extra):\n"
        "    return major() < min_major  # gate\n"
        "\n"
        "def run(options):\n"
        "    check(min_major=9)\n"
        "    check(**options)\n",
        id="a-caller-spreading-a-mapping-not-read-may-pass-it",
    ),
    pytest.param(
        "def check(min_major=8):\n"
        "    return major() < min_major  # gate\n"
        "\n"
        "def run(m):\n"
        "    check(min_major=9)\n"
        "    check(**({'min_major': m} if m else {}))\n",
        id="a-caller-spreading-a-dict-that-names-the-parameter",
    ),
]


def _marked(module: nodes.Module, source: str) -> nodes.NodeNG:
    """The expression the statement on the line marked `# gate` returns."""
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "# gate" in text)
    found = next(r for r in module.nodes_of_class(nodes.Return) if r.lineno == line)
    assert found.value is not None
    return found.value


def _admission(ruleset: RuleSet, source: str) -> Admission:
    """The admission of the line marked `# gate` in DEVICE + `source`."""
    text = DEVICE + source
    project = in_memory_project({"gate": text})
    module = project.module("gate")
    assert module is not None
    semantics = Semantics(project, ruleset.registry, follow_callers=True)
    return semantics.admission(_marked(module, text))


def _admits(ruleset: RuleSet, source: str) -> frozenset[str]:
    return _admission(ruleset, source).can_be_true


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_callers_values_meet_as_one_of_them(
    ruleset: RuleSet, source: str, expected: set[str]
) -> None:
    assert _admits(ruleset, source) == expected


@pytest.mark.parametrize("source", NOOPS)
def test_callers_values_that_stay_unknown(ruleset: RuleSet, source: str) -> None:
    assert _admits(ruleset, source) == ruleset.registry.all_names()
