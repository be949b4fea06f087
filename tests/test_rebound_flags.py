"""A flag bound more than once in one block, under `if`s (semantics/flow.py): `use_x =
False` then `if cap >= (9, 0): use_x = True` keeps its device dependence wherever it is
read -- a module constant, another module's import of it, an instance attribute set in
`__init__`. Shapes flow.py does not read keep the old meeting of every binding (unknown).
The audit reads names so (`Semantics(follow_flow=True)`); `check` keeps its answers.
Pure: in memory."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from gatecheck.semantics.admitted import Admission, admission_of
from gatecheck.semantics.expressions import _tuple_of_options
from gatecheck.semantics.values import UNKNOWN, OneOf
from tests.test_audit import MakeTree, audit, verdicts

CAP = "torch.cuda.get_device_capability()"


def flowed(source: str, expr: str, ruleset: RuleSet) -> Admission:
    """As the audit reads it (Semantics(follow_flow=True))."""
    return admission_of(source, expr, ruleset.registry, follow_flow=True)


HOPPER_UP = {"sm90", "sm100", "sm103", "sm110", "sm120", "sm121", "gfx90a", "gfx942", "gfx950"}
BELOW_HOPPER = {"sm70", "sm75", "sm80", "sm86", "sm87", "sm89"}

CASES = [
    pytest.param(
        f"use_x = False\nif {CAP} >= (9, 0):\n    use_x = True\n",
        "use_x",
        HOPPER_UP,
        id="default-then-if",
    ),
    pytest.param(
        f"if {CAP} >= (9, 0):\n    use_x = True\nelse:\n    use_x = False\n",
        "use_x",
        HOPPER_UP,
        id="if-else",
    ),
    pytest.param(
        f"use_x = True\nif {CAP} >= (9, 0):\n    use_x = False\n",
        "use_x",
        BELOW_HOPPER,
        id="switched-off-under-the-if",
    ),
    pytest.param(
        f"use_x = False\nif {CAP} >= (9, 0):\n    use_x = True\nif {CAP}[0] == 12:\n"
        "    use_x = False\n",
        "use_x",
        HOPPER_UP - {"sm120", "sm121"},
        id="two-ifs-in-order",
    ),
    pytest.param(
        f"use_x = False\nif {CAP} >= (9, 0):\n    if {CAP}[0] != 12:\n        use_x = True\n",
        "use_x",
        HOPPER_UP - {"sm120", "sm121"},
        id="nested-ifs",
    ),
    pytest.param(
        f"use_x = False\nif {CAP} >= (9, 0):\n    use_x = True\n",
        "use_x and not 'H20' in device_name",
        HOPPER_UP,
        id="read-in-a-larger-condition",
    ),
    pytest.param(
        "class Kernel:\n"
        "    def __init__(self):\n"
        "        self.use_tma = False\n"
        f"        if {CAP} >= (9, 0):\n"
        "            self.use_tma = True\n"
        "kernel = Kernel()\n",
        "kernel.use_tma",
        HOPPER_UP,
        id="instance-attribute-in-init",
    ),
    pytest.param(
        f"def run():\n    return use_x\nuse_x = False\nif {CAP} >= (9, 0):\n    use_x = True\n",
        "run()",
        HOPPER_UP,
        id="read-by-a-function-defined-before",  # called after the module ran
    ),
    pytest.param(
        f"def _major():\n    return {CAP}[0]\nuse_x = False\nif _major() >= 9:\n    use_x = True\n",
        "use_x",
        HOPPER_UP,
        id="test-through-a-helper",
    ),
]


@pytest.mark.parametrize(("source", "expr", "expected"), CASES)
def test_a_rebound_flag_keeps_its_device_dependence(
    ruleset: RuleSet, source: str, expr: str, expected: set[str]
) -> None:
    admission = flowed("import torch\n" + source, expr, ruleset)
    assert admission.can_be_true == expected
    if "device_name" not in expr:  # an unknown operand: false may come from it anywhere
        assert admission.can_be_false == ruleset.registry.all_names() - expected


EVERY = "every"
WANT = "import os\nwant = os.environ.get('FAST') == '1'\n"
VETOES = [
    pytest.param(
        WANT + f"fast = want\nif fast and {CAP} < (9, 0):\n    fast = False\n",
        "fast",
        HOPPER_UP,
        id="opted-in-then-vetoed",
    ),
    pytest.param(
        WANT
        + f"fast = want\nif not {CAP} >= (9, 0) and fast:\n    fast = False\nelse:\n    pass\n",
        "fast",
        HOPPER_UP,
        id="vetoed-with-the-flag-last",
    ),
    pytest.param(
        "class Config:\n"
        "    def __init__(self, want):\n"
        "        self.fast = want\n"
        f"        ok = {CAP} >= (9, 0)\n"
        "        if self.fast and not ok:\n"
        "            self.fast = False\n"
        "config = Config(_want)\n",
        "config.fast",
        HOPPER_UP,
        id="attribute-vetoed-in-init",
    ),
    pytest.param(
        WANT + f"fast = want\nif fast or {CAP} < (9, 0):\n    fast = False\n",
        "fast",
        set(),
        id="switched-off-on-every-path",
    ),
    # Noops: the veto tells nothing of the flag where these read it.
    pytest.param(
        WANT + f"fast = want\nif fast and {CAP} < (9, 0):\n    fast = False\n",
        "fast is None",
        EVERY,
        id="which-falsy-value-is-unknown",
    ),
    pytest.param(
        WANT + f"fast = want\nif fast != 0 and {CAP} < (9, 0):\n    fast = False\n",
        "fast",
        EVERY,
        id="a-test-not-reading-the-flag-plainly",
    ),
    pytest.param(
        WANT + f"fast = want\nif other and {CAP} < (9, 0):\n    fast = False\n",
        "fast",
        EVERY,
        id="a-test-of-another-name",
    ),
]


@pytest.mark.parametrize(("source", "expr", "expected"), VETOES)
def test_a_flag_vetoed_by_a_test_of_itself_is_false_where_the_veto_holds(
    ruleset: RuleSet, source: str, expr: str, expected: object
) -> None:
    """`if fast and not ok: fast = False` (flow._when_false): on the path that skips the
    veto, `fast` is falsy wherever `ok` is false."""
    admission = flowed("import torch\n" + source, expr, ruleset)
    assert admission.can_be_true == (
        ruleset.registry.all_names() if expected == EVERY else expected
    )


def test_an_unknown_test_keeps_both_values(ruleset: RuleSet) -> None:
    source = (
        "import os, torch\n"
        "use_x = False\n"
        f"if {CAP} >= (9, 0):\n"
        "    use_x = True\n"
        "if os.environ.get('NO_X'):\n"
        "    use_x = False\n"
    )
    admission = flowed(source, "use_x", ruleset)
    assert admission.can_be_true == HOPPER_UP
    assert admission.can_be_false == ruleset.registry.all_names()


def test_flags_whose_tests_read_earlier_flags_are_each_run_once(ruleset: RuleSet) -> None:
    """Each flag's test reads the two flags before it (TransformerEngine's backend choice
    re-binds a dozen `use_*` flags so): read anew at every test, the runs grew as the
    Fibonacci numbers and the 40th flag was past the work bound (unknown); each run is
    kept, like a binding's value, so every flag is read."""
    lines = ["import torch", "f0 = False", "f1 = False", f"if {CAP} >= (9, 0):"]
    lines += ["    f0 = True", "    f1 = True"]
    for i in range(2, 41):
        lines += [f"f{i} = False", f"if f{i - 1} or f{i - 2}:", f"    f{i} = True"]
    admission = flowed("\n".join(lines) + "\n", "f40", ruleset)
    assert not admission.bounds
    assert admission.can_be_true == HOPPER_UP
    assert admission.can_be_false == ruleset.registry.all_names() - HOPPER_UP


def test_another_module_reads_the_value_at_the_end_of_the_module(ruleset: RuleSet) -> None:
    flags = f"import torch\nuse_x = False\nif {CAP} >= (9, 0):\n    use_x = True\n"
    admission = admission_of(
        "from pkg.flags import use_x\nimport pkg.flags as flags\n",
        "use_x and flags.use_x",
        ruleset.registry,
        modules={"pkg.flags": flags},
        follow_flow=True,
    )
    assert admission.can_be_true == HOPPER_UP


# A probe in a `try` with a fallback in its handler, then a correction under an `if`
# (sglang 0.5.23's `_init_jit_cuda_arch_once`): the handler's value is one of the
# options, the correction applies where its test holds, read with the value the `try`
# left (not met with the correction's own binding).
FROM_SM100 = {"sm100", "sm103", "sm110", "sm120", "sm121"}
TRY_PROBE = f"try:\n    major, minor = {CAP}\nexcept Exception:\n    major, minor = 0, 0\n"
TRIED = [
    pytest.param(TRY_PROBE, "major >= 10", FROM_SM100, id="probe-or-fallback"),
    pytest.param(
        TRY_PROBE + "if (major, minor) == (10, 7):\n    major, minor = 10, 0\n",
        "major >= 10",
        FROM_SM100,
        id="then-a-correction",
    ),
    pytest.param(
        TRY_PROBE + "if major == 9:\n    major = 10\n",
        "major >= 10",
        FROM_SM100 | {"sm90", "gfx90a", "gfx942", "gfx950"},  # ROCm's majors are 9
        id="a-correction-that-applies",
    ),
    pytest.param(
        f"try:\n    major = {CAP}[0]\nexcept Exception:\n    raise\n",
        "major >= 10",
        FROM_SM100,
        id="a-handler-that-raises-leaves-no-path",
    ),
    # A flag set under an `if` of the body (lmdeploy's `use_fa3`, after an import that may
    # fail): a handler sees it set only where the test may hold; elsewhere it is never set.
    pytest.param(
        f"from extlib import fa3\nuse_x = False\ntry:\n    if {CAP} >= (9, 0):\n"
        "        fa3.init()\n        use_x = True\nexcept Exception:\n    pass\n",
        "use_x",
        HOPPER_UP,
        id="a-flag-set-under-an-if-of-the-body",
    ),
    pytest.param(
        f"use_x = False\ntry:\n    if {CAP} < (9, 0):\n        pass\n    else:\n"
        "        use_x = True\nexcept Exception:\n    pass\n",
        "use_x",
        HOPPER_UP,
        id="in-the-else-branch",
    ),
]


@pytest.mark.parametrize(("source", "expr", "true"), TRIED)
def test_a_try_with_a_fallback(ruleset: RuleSet, source: str, expr: str, true: set[str]) -> None:
    admission = flowed("import torch\n" + source, expr, ruleset)
    assert admission.can_be_true == true


def test_a_tuple_of_options_compares_each(ruleset: RuleSet) -> None:
    """`(major, minor) == (10, 7)` with major one of a few constants and minor known."""
    admission = flowed("import torch\n" + TRY_PROBE, "(major, minor) == (10, 7)", ruleset)
    assert admission.can_be_true == frozenset()


# A loop's body runs no time (the value before it), once or more: a flag it sets under a
# test is set where the test can be true, and can stay as it was anywhere (TransformerEngine's
# `for gpu in devices: if cc(gpu) < 100: arch_l_100 = True; break`).
EVERY_NAME = {*HOPPER_UP, *BELOW_HOPPER}
LOOPS = [
    pytest.param(
        f"use_x = False\nfor _ in range(2):\n    if {CAP} >= (9, 0):\n        use_x = True\n",
        "use_x",
        HOPPER_UP,
        EVERY_NAME,
        id="set-in-a-for",
    ),
    pytest.param(
        "old = False\nfor d in range(torch.cuda.device_count()):\n"
        "    if torch.cuda.get_device_capability(d) < (10, 0):\n"
        "        old = True\n        break\n",
        "old",
        BELOW_HOPPER | {"sm90", "gfx90a", "gfx942", "gfx950"},
        EVERY_NAME,
        id="set-then-break",
    ),
    pytest.param(
        f"ok = True\nwhile n > 0:\n    if {CAP}[0] == 12:\n        ok = False\n    n -= 1\n",
        "ok",
        EVERY_NAME,
        {"sm120", "sm121"},
        id="vetoed-in-a-while",
    ),
    pytest.param(
        f"x = False\nfor _ in range(3):\n    if {CAP} >= (9, 0):\n        x = True\n"
        "else:\n    x = False\n",
        "x",
        set(),
        EVERY_NAME,
        id="an-else-no-break-skips",
    ),
    pytest.param(
        f"x = False\nfor _ in range(3):\n    if {CAP} >= (9, 0):\n        x = True\n"
        "        break\nelse:\n    x = False\n",
        "x",
        HOPPER_UP,
        EVERY_NAME,
        id="an-else-a-break-may-skip",
    ),
]


# A jump before a binding of the body leaves a run halfway: not read so (unknown).
LOOP_NOOPS = [
    pytest.param(
        f"x = False\nfor _ in range(3):\n    if {CAP} >= (9, 0):\n        x = True\n"
        "        break\n    x = False\n",
        "x",
        id="a-break-then-a-binding",
    ),
    pytest.param(
        f"x = False\nfor _ in range(3):\n    if {CAP} >= (9, 0):\n        continue\n    x = True\n",
        "x",
        id="a-continue-then-a-binding",
    ),
]


@pytest.mark.parametrize(("source", "expr"), LOOP_NOOPS)
def test_a_loop_left_halfway_is_not_read(ruleset: RuleSet, source: str, expr: str) -> None:
    admission = flowed("import torch\n" + source, expr, ruleset)
    every = ruleset.registry.all_names()
    assert (admission.can_be_true, admission.can_be_false) == (every, every)


@pytest.mark.parametrize(("source", "expr", "true", "false"), LOOPS)
def test_a_flag_bound_in_a_loop(
    ruleset: RuleSet, source: str, expr: str, true: set[str], false: set[str]
) -> None:
    admission = flowed("import torch\n" + source, expr, ruleset)
    assert (admission.can_be_true, admission.can_be_false) == (true, false)


# Shapes flow.py does not read: every binding is met (the flag is unknown everywhere).
NOOPS = [
    pytest.param(
        "x = False\nfor _ in range(3):\n    x = not x\n",
        "x",
        "a binding reading itself in a loop: each run another value",
        id="toggled-in-a-loop",
    ),
    pytest.param(
        "class Kernel:\n"
        "    def __init__(self):\n"
        "        self.use_tma = False\n"
        "    def enable(self):\n"
        f"        if {CAP} >= (9, 0):\n"
        "            self.use_tma = True\n"
        "kernel = Kernel()\n",
        "kernel.use_tma",
        "bindings in two methods: which ran last is unknown",
        id="two-methods",
    ),
    pytest.param(
        # The caller's value unknown (a flag), the test's answer unknown: both stay.
        f"def run(use_tma, flag):\n    if flag and {CAP} < (9, 0):\n        use_tma = False\n"
        "    if flag:\n        use_tma = True\n    return use_tma\n",
        "run(want, flag)",
        "the caller's value and every binding meet where the tests are unknown",
        id="a-parameter-under-unknown-tests",
    ),
    pytest.param(
        f"use_x = False\nwith ctx():\n    if {CAP} >= (9, 0):\n        use_x = True\n",
        "use_x",
        "a with block's manager may swallow an exception",
        id="with",
    ),
]


@pytest.mark.parametrize(("source", "expr", "reason"), NOOPS)
def test_other_shapes_meet_every_binding(
    ruleset: RuleSet, source: str, expr: str, reason: str
) -> None:
    admission = flowed("import torch\n" + source, expr, ruleset)
    every = ruleset.registry.all_names()
    assert (admission.can_be_true, admission.can_be_false) == (every, every), reason


# The audit: a condition reading such a flag passes the deciding `if`'s answer on (a hop
# of that gate, listed under it), unless a binding could decide something of its own.
AUDITED = [
    pytest.param(
        "use_x = False\n"
        "if is_sm90_supported() or is_sm100_supported():\n"
        "    use_x = True\n"
        "def run(n):\n"
        "    if use_x and n > 0:\n"
        "        return 1\n",
        [4],
        [7],
        id="flag-read-later-is-a-hop",
    ),
    pytest.param(
        "def build(fp16):\n"
        "    if torch.cuda.get_device_capability()[0] in (8, 9) and fp16:\n"
        "        arc = 'sm80'\n"
        "    else:\n"
        "        arc = 'cuda_core'\n"
        "    if arc == 'sm80':\n"
        "        return 'tensor-core'\n",
        [4],
        [8],
        id="flag-compared-with-a-constant-is-a-hop",
    ),
    pytest.param(
        "def build(n):\n"
        "    disable_reason = None\n"
        "    if not (is_sm90_supported() or is_sm100_supported()):\n"
        "        disable_reason = 'needs SM90 or SM100'\n"
        "    elif n > 8:\n"
        "        disable_reason = 'too many'\n"
        "    if disable_reason is not None:\n"
        "        return None\n",
        [5],
        [9],
        id="reason-set-in-an-elif-of-the-gate",
    ),
]


@pytest.mark.parametrize(("source", "gates", "hops"), AUDITED)
def test_a_flag_read_is_a_hop_of_its_deciding_if(
    make_tree: MakeTree, source: str, gates: list[int], hops: list[int]
) -> None:
    # (lines in mod.py: the snippet starts at line 3; how each gate is classed is not
    # this test's business)
    report = audit(make_tree, source)
    assert [line for line, _ in verdicts(report)] == gates
    assert [h.line for h in report.hops] == hops


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # A parameter is the first binding: the body runs from what a caller passes
        # (unknown here), then the switch under the device test; the read after it is
        # false where the switch ran (fbgemm's `use_warp_specialization`).
        pytest.param(
            "def run(x, use_ws):\n"
            "    if torch.version.hip:\n"
            "        use_ws = False\n"
            "    if use_ws:\n"
            "        return 1\n",
            [(4, "vendor"), (6, "vendor")],
            id="switched-off-on-one-vendor",
        ),
        pytest.param(
            "def run(x, use_tma=True):\n"
            "    if torch.cuda.get_device_capability()[0] < 9:\n"
            "        use_tma = False\n"
            "    if use_tma:\n"
            "        return 1\n",
            [(4, "admits"), (6, "admits")],
            id="switched-off-below-hopper",
        ),
    ],
)
def test_a_parameter_switched_under_a_device_test_is_read_after_it(
    make_tree: MakeTree, source: str, expected: list[tuple[int, str]]
) -> None:
    assert verdicts(audit(make_tree, source)) == expected


def test_a_flag_with_a_value_of_its_own_stays_a_gate(make_tree: MakeTree) -> None:
    # The second binding is a predicate's answer, not a constant: `if use_x:` decides
    # on sm120 itself, so it is reported where it reads the flag.
    report = audit(
        make_tree,
        "use_x = False\n"
        "if is_sm90_supported():\n"
        "    use_x = True\n"
        "if n > 1:\n"
        "    use_x = is_sm100_supported()\n"
        "if use_x:\n"
        "    kernel = 'fast'\n",
    )
    # (and the predicate's answer kept as `use_x` at line 7 is a row: conditions.kept_answer)
    assert verdicts(report) == [
        (4, "probably-deliberate"),
        (7, "probably-deliberate"),
        (8, "likely-gap"),
    ]
    assert report.hops == ()


def test_an_early_return_keeps_the_earlier_value(ruleset: RuleSet) -> None:
    """`self.disabled = True`, `if not ok: return`, later `self.disabled = False`: an
    instance made on the early path keeps True, so the bindings are met (unknown), not
    read as the last one."""
    source = (
        "import os, torch\n"
        "class Communicator:\n"
        "    def __init__(self):\n"
        "        self.disabled = True\n"
        f"        if {CAP} < (9, 0):\n"
        "            return\n"
        "        self.disabled = False\n"
        "comm = Communicator()\n"
    )
    admission = flowed(source, "comm.disabled", ruleset)
    every = ruleset.registry.all_names()
    assert (admission.can_be_true, admission.can_be_false) == (every, every)


def test_check_keeps_meeting_the_bindings(ruleset: RuleSet) -> None:
    """Without follow_flow (check's reading) the bindings meet as before: unknown."""
    source = f"import torch\nuse_x = False\nif {CAP} >= (9, 0):\n    use_x = True\n"
    admission = admission_of(source, "use_x", ruleset.registry)
    every = ruleset.registry.all_names()
    assert (admission.can_be_true, admission.can_be_false) == (every, every)


# expressions._tuple_of_options: a tuple with items of a few constants is one of a few
# tuples; one holding an unknown (a cache key with a dtype in it: `key not in {}` stays
# known) or with too many combinations is left as it is.
TUPLES = [
    pytest.param((OneOf((9, 0)), 0), OneOf(((9, 0), (0, 0))), id="one-of-a-few"),
    pytest.param((OneOf((8, 32)), UNKNOWN), None, id="holding-an-unknown"),
    pytest.param((OneOf(tuple(range(3))),) * 2, None, id="too-many"),
    pytest.param((9, 0), None, id="no-options"),
]


@pytest.mark.parametrize(("value", "expected"), TUPLES)
def test_tuple_of_options(value: tuple[object, ...], expected: object) -> None:
    found = _tuple_of_options(value)
    if expected is None:
        assert found is value
    else:
        assert isinstance(found, OneOf) and isinstance(expected, OneOf)
        assert found.options == expected.options


# An instance's attribute read inside the method that sets it again later: the read sees
# the value on the way there, not the one the method leaves (classes.class_attribute's
# `reader`); read after the method, the one it leaves. Read as the value left, `if
# self.fast and not ok: self.fast = False` read its own veto (false where `ok` is) and
# the test admitted nothing; a read before a later re-assignment took the later value.
QUANT = f"""
import torch


class Quant:
    def __init__(self, cfg):
        self.fast = cfg.fast
        ok = {CAP} >= (8, 9)
        if self.fast and not ok:
            self.fast = False

    def forward(self):
        if self.fast:
            return 1


class Later:
    def __init__(self, cfg):
        self.fast = cfg.fast
        if self.fast:
            pass
        self.fast = {CAP} >= (9, 0)

    def forward(self):
        if self.fast:
            return 1
"""
EVERY_GENERATION = BELOW_HOPPER | HOPPER_UP
READ_IN_PLACE = [
    ("Quant", "__init__", BELOW_HOPPER - {"sm89"}),
    ("Quant", "forward", EVERY_GENERATION - BELOW_HOPPER | {"sm89"}),
    ("Later", "__init__", EVERY_GENERATION),
    ("Later", "forward", HOPPER_UP),
]


@pytest.mark.parametrize(("cls", "method", "expected"), READ_IN_PLACE)
def test_an_attribute_read_where_its_method_sets_it_later(
    ruleset: RuleSet, cls: str, method: str, expected: set[str]
) -> None:
    from astroid import nodes

    from gatecheck.semantics.admitted import Semantics, in_memory_project

    project = in_memory_project({"gate": QUANT})
    semantics = Semantics(project, ruleset.registry, ruleset.vocabulary, follow_callers=True)
    module = project.module("gate")
    assert module is not None
    function = module[cls][method]
    test = next(function.nodes_of_class(nodes.If)).test
    assert semantics.admission(test).can_be_true == expected
