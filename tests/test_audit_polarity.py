"""Which way an architecture condition gates (conditions.feature_side), read on in-memory
modules: for a condition whose value is assigned to a name (or an attribute), the name
decides -- a name for an off state disables, any other name enables -- whatever the
operators around the generation test. Pure: nothing touches the disk."""

from __future__ import annotations

import textwrap

import pytest

from gatecheck.audit.conditions import ArchCondition, classify_condition, outermost_slots
from gatecheck.config.model import RuleSet
from gatecheck.gates.model import Polarity
from gatecheck.semantics.admitted import Semantics, in_memory_project

HEADER = "import torch\nmajor, minor = torch.cuda.get_device_capability()\n"
ENABLES, DISABLES = Polarity.ENABLES, Polarity.DISABLES
NVIDIA_BELOW_9 = frozenset({"sm70", "sm75", "sm80", "sm86", "sm87", "sm89"})


def conditions(ruleset: RuleSet, source: str) -> list[ArchCondition]:
    """The architecture conditions of module `HEADER + source`, in line order."""
    project = in_memory_project({"mod": HEADER + textwrap.dedent(source)})
    module = project.module("mod")
    assert module is not None
    semantics = Semantics(project, ruleset.registry)
    nvidia = ruleset.registry.vendor_names("nvidia")
    found = []
    for condition, statement, kind in outermost_slots(module):
        arch = classify_condition(semantics, module, condition, statement, kind, nvidia)
        if arch is not None:
            found.append(arch)
    return sorted(found, key=lambda c: c.line)


def polarity(ruleset: RuleSet, source: str) -> tuple[Polarity, frozenset[str]]:
    """The one architecture condition's polarity and the feature's NVIDIA set."""
    (found,) = conditions(ruleset, source)
    return found.polarity, found.admits & ruleset.registry.vendor_names("nvidia")


def nvidia_from(ruleset: RuleSet, major: int) -> frozenset[str]:
    return frozenset(
        g.name for g in ruleset.registry.generations if g.vendor == "nvidia" and g.major >= major
    )


# (source, expected polarity, the feature's NVIDIA generations: "true" where the
# condition can be true, "false" where it can be false).
ASSIGNMENTS = [
    # The shape that read "disables" before: only the false side is restricted by the
    # operators, but the name says true means on.
    pytest.param(
        "use_atomic_add = dtype == half or major >= 9\n", ENABLES, "true", id="or-with-unknown"
    ),
    pytest.param(
        "use_atomic_add = (dtype == half or major >= 9) and not is_mxfp4\n",
        ENABLES,
        "true",
        id="and-not-appended",
    ),
    pytest.param("use_wgmma = major >= 9\n", ENABLES, "true", id="plain-comparison"),
    pytest.param("self.use_tma = major >= 9 or fast\n", ENABLES, "true", id="attribute-target"),
    pytest.param(
        "use_tma: bool = major >= 9 or fast\n", ENABLES, "true", id="annotated-assignment"
    ),
    pytest.param("enable_fa = not major < 9\n", ENABLES, "true", id="negated-value"),
    # Names for an off state: set True, the feature is off.
    pytest.param(
        "is_fp8_deprecated = bits < 16 and major >= 9\n", DISABLES, "false", id="deprecated"
    ),
    pytest.param(
        "skip_condition = major < 9 or dtype == half\n", DISABLES, "false", id="skip-prefix"
    ),
    pytest.param("needs_fallback = major < 9 or slow\n", DISABLES, "false", id="fallback-word"),
    pytest.param("disable_cuda_graph = not major >= 9\n", DISABLES, "false", id="disable-prefix"),
    pytest.param(
        "self.x_unsupported = major < 9 or dtype == half\n",
        DISABLES,
        "false",
        id="attribute-off-state",
    ),
    # One off-state name among the targets is enough.
    pytest.param(
        "use_x = no_y = major < 9 or slow\n", DISABLES, "false", id="any-off-state-target"
    ),
]


def assert_reads(ruleset: RuleSet, source: str, expected: Polarity, side: str) -> None:
    """The one condition's polarity is `expected`, and the feature's NVIDIA set the side
    of the condition `side` names ("true": where it can be true, "false": can be false,
    "both": either, the branch turning nothing on or off)."""
    (found,) = conditions(ruleset, source)
    nvidia = ruleset.registry.vendor_names("nvidia")
    admission = found.admission
    can = {
        "true": admission.can_be_true,
        "false": admission.can_be_false,
        "both": admission.can_be_true | admission.can_be_false,
    }[side]
    assert (found.polarity, found.admits & nvidia) == (expected, can & nvidia)


# A device test's answer returned as such (a call): the function's answer, its name
# says what true means, as an assigned name does; even where only an older generation
# can make it false (`torch.cuda.is_bf16_supported()`, unknown before Ampere).
RETURNED_ANSWERS = [
    pytest.param(
        "def spring_bf16_ok():\n    return torch.cuda.is_bf16_supported()\n",
        ENABLES,
        "true",
        id="a-device-test-returned",
    ),
    pytest.param(
        "def needs_fallback():\n    return torch.cuda.is_bf16_supported()\n",
        DISABLES,
        "false",
        id="returned-by-an-off-state-name",
    ),
]


@pytest.mark.parametrize(("source", "expected", "side"), ASSIGNMENTS + RETURNED_ANSWERS)
def test_the_assigned_name_decides(
    ruleset: RuleSet, source: str, expected: Polarity, side: str
) -> None:
    assert_reads(ruleset, source, expected, side)


def test_the_two_shapes_of_one_assignment_admit_alike(ruleset: RuleSet) -> None:
    """The release pair's false widening (sglang fused_marlin_moe): appending `and not
    x` to an assignment must not turn the feature's set from the old majors to all."""
    before = polarity(ruleset, "use_atomic_add = dtype == half or major >= 9\n")
    after = polarity(ruleset, "use_atomic_add = (dtype == half or major >= 9) and not mx\n")
    assert before == after == (ENABLES, nvidia_from(ruleset, 7))


# Not assigned to a name: the operators' shape still decides (the old reading stays).
NOOPS = [
    pytest.param(
        "if not (major >= 9 and fast):\n    fallback()\n",
        DISABLES,
        "only the else side of an if depends on the generation",
        id="if-with-restricted-false-side",
    ),
    pytest.param(
        "config['use_x'] = dtype == half or major >= 9\n",
        DISABLES,
        "a subscript target is no name: nothing says what true means",
        id="subscript-target",
    ),
    pytest.param(
        "def f():\n    return dtype == half or major >= 9\n",
        DISABLES,
        "a returned value has no name of its own",
        id="return-value",
    ),
]


@pytest.mark.parametrize(("source", "expected", "reason"), NOOPS)
def test_unnamed_values_keep_the_operator_reading(
    ruleset: RuleSet, source: str, expected: Polarity, reason: str
) -> None:
    found, _ = polarity(ruleset, source)
    assert found is expected, reason


def test_an_off_state_name_reads_the_false_side(ruleset: RuleSet) -> None:
    assert polarity(ruleset, "skip_test = major < 9\n") == (DISABLES, nvidia_from(ruleset, 9))
    assert polarity(ruleset, "run_test = major < 9\n") == (ENABLES, NVIDIA_BELOW_9)


# A branch that only asserts checks its path: it turns no feature on or off, whatever the
# assert tests (FA4's `assert self.num_threads == tiled_mma.size` on its sm80/sm90 path,
# its head-dim asserts on sm90's). One that works after its assert enables. One that only
# refuses its caller's options (`assert not deterministic`, `assert x is False`, `if x:
# raise` nested) refuses them where the test is true, as `if <test> and deterministic:
# raise` does: flash-attn-4 4.0.0b5 let sm90 through such a refusal (gates.branches
# .refuses_options). (source, polarity, the feature's NVIDIA side)
ASSERT_BODIES = [
    pytest.param(
        "def bwd(deterministic):\n"
        "    if major not in (10, 11):\n"
        "        assert not deterministic, 'deterministic backward needs sm100/sm110'\n",
        DISABLES,
        "false",
        id="a-parameter-asserted-off",
    ),
    pytest.param(
        "def bwd(args):\n"
        "    if major // 10 not in [10, 11]:\n"
        "        assert args.deterministic is False, 'only on sm100/sm110 for now'\n"
        "        assert args.sink is None\n",
        DISABLES,
        "false",
        id="options-of-a-parameter-asserted-off",
    ),
    pytest.param(
        "def bwd(deterministic, ordered):\n"
        "    if major not in (10, 11):\n"
        "        if deterministic and ordered is not None:\n"
        "            raise ValueError('ordered deterministic backward needs sm100')\n",
        DISABLES,
        "false",
        id="a-nested-refusal",
    ),
    pytest.param(
        "def bwd(q):\n"
        "    deterministic = q.requires_grad\n"
        "    if major not in (10, 11):\n"
        "        assert not deterministic\n",
        ENABLES,
        "both",
        id="a-local-asserted-is-no-option",
    ),
    pytest.param(
        "def bwd(deterministic):\n"
        "    if major not in (10, 11):\n"
        "        assert not deterministic\n"
        "        warm_up()\n",
        ENABLES,
        "true",
        id="work-after-a-refusal-enables",
    ),
    pytest.param(
        "def fwd(head_dim):\n"
        "    if major == 9:\n"
        "        logger.warning('checking')\n"
        "        assert head_dim <= 256, 'head_dim not supported on SM90'\n",
        ENABLES,
        "both",
        id="a-log-and-an-assert",
    ),
    pytest.param(
        "class Kernel:\n"
        "    def setup(self, mma):\n"
        "        if major in (8, 9, 12):\n"
        "            assert self.num_threads == self.size\n",
        ENABLES,
        "both",
        id="the-objects-own-state",
    ),
    pytest.param(
        "def fwd(head_dim):\n"
        "    if major == 9:\n"
        "        assert head_dim <= 256\n"
        "        run_fa3()\n",
        ENABLES,
        "true",
        id="work-after-the-assert-enables",
    ),
]


# An early `return True` before the work a function does (sglang's mm platform
# `if not is_blackwell(): return True` before it sets the kernel version): the work is
# the feature, where the condition is false. (source, expected polarity, the feature's
# NVIDIA side).
EARLY_RETURNS = [
    pytest.param(
        "def prepare():\n"
        "    if not major == 10:\n"
        "        return True\n"
        "    set_kernel_version(4)\n"
        "    return True\n",
        DISABLES,
        "false",
        id="a-call-after-the-early-return",
    ),
    pytest.param(
        "class Attention:\n"
        "    def setup(self):\n"
        "        if major < 10:\n"
        "            return True\n"
        "        try:\n"
        "            self.kernel = load_kernel()\n"
        "        except ImportError:\n"
        "            return False\n"
        "        return True\n",
        DISABLES,
        "false",
        id="an-attribute-written-after-it",
    ),
]


@pytest.mark.parametrize(("source", "expected", "side"), [*ASSERT_BODIES, *EARLY_RETURNS])
def test_a_branch_that_asserts_or_returns_early_skips_the_work(
    ruleset: RuleSet, source: str, expected: Polarity, side: str
) -> None:
    assert_reads(ruleset, source, expected, side)


EARLY_RETURN_NOOPS = [
    pytest.param(
        "def supported():\n"
        "    if major == 10:\n"
        "        return True\n"
        "    ok = check_memory(fast)\n"
        "    return ok\n",
        "a predicate: the rest only computes its answer",
        id="a-predicate",
    ),
    pytest.param(
        "def prepare():\n"
        "    if major == 10:\n"
        "        return True\n"
        "    logger.info('generic path')\n"
        "    return False\n",
        "only a log call after it, and the other answer is False",
        id="log-only-and-false",
    ),
    pytest.param(
        "def prepare():\n"
        "    if major == 10:\n"
        "        return True\n"
        "    set_fallback()\n"
        "    return False\n",
        "the work's path answers False: the answer is the decision",
        id="the-work-answers-false",
    ),
    pytest.param(
        "def prepare():\n"
        "    if major == 10:\n"
        "        return 'fa4'\n"
        "    set_kernel_version(2)\n"
        "    return 'fa3'\n",
        "a choice returned, not an answer",
        id="a-choice",
    ),
]


@pytest.mark.parametrize(("source", "reason"), EARLY_RETURN_NOOPS)
def test_an_early_return_true_noops(ruleset: RuleSet, source: str, reason: str) -> None:
    found, _ = polarity(ruleset, source)
    assert found is ENABLES, reason


# A branch that does its work on its own values, then clears the switch its condition
# tests so it is not done twice (FlashInfer's GDN prefill: `q, k = l2norm(q, k)` then
# `use_qk_l2norm = False`, widened to sm80 in 0.7.2): it enables.
@pytest.mark.parametrize(
    "body",
    [
        pytest.param("        q, k = normalize(q, k)\n", id="transform"),
        pytest.param(
            "        from .l2norm import normalize\n\n        q, k = normalize(q, k)\n",
            id="import-then-transform",
        ),
    ],
)
def test_work_done_then_its_switch_cleared_enables(ruleset: RuleSet, body: str) -> None:
    source = (
        "def prefill(q, k, use_l2norm):\n"
        "    if use_l2norm and major in (9, 10, 12):\n" + body + "        use_l2norm = False\n"
        "    return run(q, k, use_l2norm)\n"
    )
    found, admitted = polarity(ruleset, source)
    assert found is ENABLES
    assert admitted == frozenset({"sm90", "sm100", "sm103", "sm120", "sm121"})


@pytest.mark.parametrize(
    ("source", "expected", "reason"),
    [
        pytest.param(
            "def pick(use_fa):\n"
            "    if use_fa and major < 9:\n"
            "        use_fa = False\n"
            "    return use_fa\n",
            DISABLES,
            "nothing done before the switch is cleared",
            id="plain-switch-off",
        ),
        pytest.param(
            "def pick(use_fa, x):\n"
            "    if use_fa and major < 9:\n"
            "        backend = fallback_backend(x)\n"
            "        use_fa = False\n"
            "    return use_fa\n",
            DISABLES,
            "a fallback picked (a call's result under a new name) is no work on its own values",
            id="fallback-then-off",
        ),
        pytest.param(
            "def pick(use_fa, q):\n"
            "    if major < 9:\n"
            "        q = convert(q)\n"
            "        use_fa = False\n"
            "    return use_fa\n",
            DISABLES,
            "the switch cleared is not one the condition tests",
            id="another-switch",
        ),
        # A value put back that is no reset of a computed one (the reset rule below).
        pytest.param(
            "def pick():\n"
            "    split_k = 4\n"
            "    if major == 12:\n"
            "        split_k = 1\n"
            "    return split_k\n",
            ENABLES,
            "a number picked over a number: tuning",
            id="constant-before",
        ),
        pytest.param(
            "def pick(grid, tiles):\n"
            "    split_k = max(1, grid // tiles)\n"
            "    if major == 12:\n"
            "        split_k = 2\n"
            "    return split_k\n",
            ENABLES,
            "2 is no neutral number",
            id="not-neutral",
        ),
        pytest.param(
            "def pick(grid, tiles, split_k):\n"
            "    if major == 12:\n"
            "        split_k = 1\n"
            "    return split_k\n",
            ENABLES,
            "nothing computed before the branch (a parameter is not read as computed here)",
            id="parameter",
        ),
        pytest.param(
            "def pick(grid, tiles):\n"
            "    split_k = max(1, grid // tiles)\n"
            "    if major == 12:\n"
            "        split_k = 1\n"
            "    else:\n"
            "        split_k = 2 * split_k\n"
            "    return split_k\n",
            ENABLES,
            "both sides set it: a choice, not an undoing",
            id="with-else",
        ),
    ],
)
def test_noop_polarity_as_before(
    ruleset: RuleSet, source: str, expected: Polarity, reason: str
) -> None:
    found, _ = polarity(ruleset, source)
    assert found is expected, reason


# A value computed, then put back to its neutral number where the condition holds (vLLM
# 0.33.0's sparse top-k: split-K computed from the grid, `if not sm120: split_k = 1`,
# widened to sm90 in 0.34.0): the feature is where the condition is false.
@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param(
            "def pick(grid, tiles):\n"
            "    split_k = max(1, grid // tiles)\n"
            "    if not (major == 12 and minor == 0):\n"
            "        split_k = 1\n"
            "    return split_k\n",
            frozenset({"sm120"}),
            id="split-k-reset",
        ),
        pytest.param(
            "def stages(config):\n"
            "    num_stages = config.num_stages\n"
            "    if major < 9:\n"
            "        logger.info('no pipelining')\n"
            "        num_stages = 0\n"
            "    return num_stages\n",
            frozenset({"sm90", "sm100", "sm103", "sm110", "sm120", "sm121"}),
            id="logged-reset-to-zero",
        ),
    ],
)
def test_a_computed_value_reset_disables(
    ruleset: RuleSet, source: str, expected: frozenset[str]
) -> None:
    found, admitted = polarity(ruleset, source)
    assert found is DISABLES
    assert admitted == expected
