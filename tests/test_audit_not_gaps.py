"""Gates that leave the audited generation out without being gaps (audit/not_gaps.py), the
other ranking rules of the audit (a cut-off counted among the generations that reach it,
predicates required together, a parameter passed on, the words of a message and of a note),
and the order of the likely gaps: each as `(source, expected)` on a mini project, with the
reason the row shows, and noops that stay likely gaps."""

from __future__ import annotations

import dataclasses

import pytest

from gatecheck.audit import GateClass, evidence
from gatecheck.audit.report import AuditedGate, AuditReport, evidence_weight, reason_weight
from gatecheck.audit.run import run_audit
from gatecheck.config.loader import load_ruleset
from tests.test_audit import (
    IMPORTS,
    UTILS,
    MakeTree,
    assert_first_reason,
    audit,
    mod_gates,
    verdicts,
)

SM120 = load_ruleset([]).registry.get("sm120")

# (snippet of mod.py, expected (line, class) list, a piece of the first gate's reason)
CASES = [
    pytest.param(
        "def ok(cls):\n    if not (cls.is_sm100_supported() or is_sm120_supported()):\n"
        "        return False\n    return True\n",
        [(4, "admits")],
        "admits sm120",
        id="failing-condition-that-names-the-generation-admits-it",
    ),
    pytest.param(
        "def cooperative():\n"
        "    major = torch.cuda.get_device_capability()[0]\n"
        "    return major >= 9 and not is_sm120_supported()\n",
        [(5, "probably-deliberate")],
        "names sm120's own test 'is_sm120_supported()': the condition excludes it by name",
        id="own-predicate-excluded-by-name",
    ),
    pytest.param(
        "def pick(sm_major):\n"
        "    if sm_major in [10, 11]:\n"
        "        return 'sm100'\n"
        "    elif sm_major == 12:\n"
        "        return 'sm120'\n"
        "    raise ValueError(sm_major)\n\n\n"
        "pick(torch.cuda.get_device_capability()[0])\n",
        [(4, "probably-deliberate"), (6, "admits")],
        "sm120 has its own branch in this if/elif chain: line 6 'sm_major == 12'",
        id="own-branch-in-the-chain",
    ),
    pytest.param(
        "def meta():\n"
        "    cap = torch.cuda.get_device_capability()\n"
        "    if cap[0] == 9 or cap[0] == 10:\n"
        "        block = kernel_meta_sm9x()\n"
        "    else:\n"
        "        block = kernel_meta_sm12x()\n"
        "    return block\n",
        [(5, "probably-deliberate")],
        "sm120 takes the else branch, which calls 'kernel_meta_sm12x' (line 8), named for it",
        id="else-branch-calls-a-helper-named-for-the-generation",
    ),
    pytest.param(
        "import sm120_helpers\n\n\n"
        "def meta():\n"
        "    cap = torch.cuda.get_device_capability()\n"
        "    if cap[0] == 9 or cap[0] == 10:\n"
        "        block = 64\n"
        "    else:\n"
        "        block = sm120_helpers.make_block()\n"
        "    return block\n",
        [(8, "probably-deliberate")],
        "sm120 takes the else branch, which calls 'sm120_helpers.make_block' (line 11), named",
        id="else-branch-calls-into-a-module-named-for-the-generation",
    ),
    pytest.param(
        "import helpers\n\n\n"
        "def meta():\n"
        "    cap = torch.cuda.get_device_capability()\n"
        "    if cap[0] == 9 or cap[0] == 10:\n"
        "        block = 64\n"
        "    else:\n"
        "        block = helpers.sm90_fallback()\n"
        "    return block\n",
        [(8, "likely-gap")],
        "enumerates 2 majors",
        id="noop-else-branch-calls-into-another-generations-helper",
    ),
    pytest.param(
        "SIZES = {'9.0': {2: 64 * MiB, 4: 32 * MiB}, '10.0': {2: 128 * MiB}}\n\n\n"
        "def max_size(world):\n"
        "    cap = '%d.%d' % torch.cuda.get_device_capability()\n"
        "    if cap in SIZES and world in SIZES[cap]:\n"
        "        return SIZES[cap][world]\n"
        "    return None\n",
        [(8, "probably-deliberate")],
        "looks the device up in a per-GPU table of numbers ('SIZES', line 3)",
        id="per-gpu-table-of-numbers",
    ),
    pytest.param(
        "MAX = {90: 4096, 100: 8192}\n\n\n"
        "def size():\n"
        "    size = MAX.get(torch.cuda.get_device_capability()[0] * 10, 0)\n"
        "    if size > 0:\n"
        "        limit = min(size, 8192)\n"
        "    else:\n"
        "        limit = 1024\n"
        "    return limit\n",
        [(8, "probably-deliberate")],
        "a per-GPU table of numbers ('MAX', line 3)",
        id="table-read-through-a-local",
    ),
    pytest.param(
        "SM90_PLANS = {(4096, 2560): {1: Config(1, 64, 4, unroll=4)}}\n"
        "PLANS = {(9, 0): SM90_PLANS, (12, 1): SM90_PLANS}\n\n\n"
        "def enable(dtype):\n"
        "    plans = PLANS.get(torch.cuda.get_device_capability(), {})\n"
        "    if not plans:\n"
        "        return\n"
        "    install(plans)\n",
        [(9, "probably-deliberate")],
        "a per-GPU table of numbers ('PLANS', line 4)",
        id="table-of-measured-settings-held-in-names",
    ),
    pytest.param(
        "def parts(sm_count, heads):\n"
        "    if torch.cuda.get_device_capability()[0] == 10:\n"
        "        n = sm_count\n"
        "    else:\n"
        "        n = sm_count // max(1, heads // 64)\n"
        "    return n\n",
        [(4, "probably-deliberate")],
        "both sides set the same numbers",
        id="numbers-set-on-both-sides",
    ),
    pytest.param(
        "def is_supported():\n"
        "    if not (is_sm90_supported() or is_sm100_supported()):\n"
        "        return False, 'needs the library'\n"
        "    if not is_sm100_supported():\n"
        "        return False, 'this kernel requires Blackwell'\n"
        "    return True, None\n",
        # The early exit narrows who reaches the second gate; being a likely gap itself,
        # the second is the next one a fix meets: likely too, ranked last (classify.
        # _behind_likely_gaps; behind a documented exit it stays deliberate:
        # tests/test_audit_evidence.py, behind-a-documented-exclusion).
        [(4, "likely-gap"), (6, "likely-gap")],
        "enumerates 2 majors",
        id="an-early-exit-before-the-gate-that-is-a-likely-gap",
    ),
    pytest.param(
        "def fused():\n"
        "    # XQA does not support FP8 output, so require trtllm-gen (SM100+) here.\n"
        "    return is_sm100_supported() and quant\n",
        [(5, "probably-deliberate")],
        "a single-generation gate",
        id="a-limitation-explained-asks-for-nothing",
    ),
    pytest.param(
        "def config(dstate, blackwell):\n"
        "    if blackwell:\n"
        "        return 64, 1, tile(dstate, 32), 2\n"
        "    return 16, 1, tile(dstate, 64), 2\n\n\n"
        "config(8, torch.cuda.get_device_capability()[0] == 10)\n",
        [(4, "probably-deliberate"), (9, "probably-deliberate")],
        "both sides return launch numbers",
        id="launch-numbers-on-both-sides",
    ),
    pytest.param(
        "def meta():\n"
        "    cap = torch.cuda.get_device_capability()\n"
        "    if cap[0] < 8:\n"
        "        warps = pick_a()\n"
        "    elif cap[0] < 9:\n"
        "        warps = pick_b()\n"
        "    else:\n"
        "        warps = pick_c()\n"
        "    return warps\n",
        [(5, "probably-deliberate"), (7, "probably-deliberate")],
        "an older-hardware branch",
        id="elif-cut-off-counted-among-the-generations-reaching-it",
    ),
    pytest.param(
        "def supported():\n    return is_sm90_supported() and group_gemm_ok()\n\n\n"
        "def group_gemm_ok():\n    return is_sm90_supported() or is_sm100_supported()\n",
        [(4, "probably-deliberate"), (8, "likely-gap")],
        "a single-generation gate: admits only sm90",
        id="predicates-required-together-enumerate-nothing",
    ),
    pytest.param(
        "def fp8_q():\n"
        "    # FP8 queries need the fa3 or trtllm-gen path.\n"
        "    # Architectures with only fa2 (e.g. SM89, SM120) cannot\n"
        "    # consume FP8 queries, so keep the model dtype there.\n"
        "    #\n"
        "    if is_sm90_supported() or is_sm100_supported():\n"
        "        return 'fp8'\n"
        "    return 'bf16'\n",
        [(8, "probably-deliberate")],
        "documented: the comment at line 4",
        id="a-note-ending-just-above-the-condition",
    ),
    pytest.param(
        "def check():\n"
        "    if not is_sm100_supported():\n"
        "        raise RuntimeError('only supported on Hopper and Blackwell DC devices')\n",
        [(4, "probably-deliberate")],
        "a single-generation gate",
        id="datacenter-part-of-the-family-asks-for-nothing-more",
    ),
    pytest.param(
        "def attend(beam):\n"
        '    """Now only beam_width 1 is supported."""\n'
        "    if is_sm90_supported():\n"
        "        return 'sm90'\n"
        "    return 'generic'\n",
        [(5, "probably-deliberate")],
        "a single-generation gate",
        id="docstring-todo-about-something-else",
    ),
]


@pytest.mark.parametrize(("source", "expected", "reason"), CASES)
def test_not_a_gap(
    make_tree: MakeTree, source: str, expected: list[tuple[int, str]], reason: str
) -> None:
    report = audit(make_tree, source)
    assert verdicts(report) == expected
    first = min((g for g in report.gates if g.path.name == "mod.py"), key=lambda g: g.found.line)
    assert any(reason in r for r in first.reasons), first.reasons


def test_a_gate_true_on_no_generation_that_reaches_it(make_tree: MakeTree) -> None:
    """`assert threads == 128` in the branch that the only generation whose `threads` is
    128 never takes: the reason says it admits none there (it said "admits only " with
    an empty list: flash-attn-4 4.0.0b14's postprocess, audited for sm110)."""
    source = (
        "def setup():\n"
        "    major = torch.cuda.get_device_capability()[0]\n"
        "    threads = 128 if major == 9 else 256\n"
        "    if major == 9:\n"
        "        run_wgmma(threads)\n"
        "    else:\n"
        "        assert threads == 128\n"
        "        run_simt(threads)\n"
    )
    gate = next(g for g in mod_gates(audit(make_tree, source)) if g.found.line == 9)
    assert gate.gate_class is GateClass.DELIBERATE
    assert gate.reasons == ("admits no generation that reaches it, sm120 included",)


NOOPS = [
    # A branch for another generation's major is not this generation's own.
    pytest.param(
        "def pick(sm_major):\n"
        "    if sm_major in [10, 11]:\n"
        "        return 'sm100'\n"
        "    elif sm_major == 9:\n"
        "        return 'sm90'\n"
        "    raise ValueError(sm_major)\n\n\n"
        "pick(torch.cuda.get_device_capability()[0])\n",
        [(4, "likely-gap"), (6, "likely-gap")],
        id="elif-for-another-major",
    ),
    # An else calling a helper named for another generation is that generation's path.
    pytest.param(
        "def meta():\n"
        "    if is_sm90_supported() or is_sm100_supported():\n"
        "        block = fast()\n"
        "    else:\n"
        "        block = kernel_meta_sm8x()\n"
        "    return block\n",
        [(4, "likely-gap")],
        id="else-named-for-another-major",
    ),
    # A table of kernels (names, not numbers) is a dispatch, not tuning.
    pytest.param(
        "KERNELS = {'9.0': 'fused_sm90', '10.0': 'fused_sm100'}\n\n\n"
        "def kernel():\n"
        "    cap = '%d.%d' % torch.cuda.get_device_capability()\n"
        "    if cap not in KERNELS:\n"
        "        return None\n"
        "    return KERNELS[cap]\n",
        [(8, "likely-gap")],
        id="table-of-kernels",
    ),
    # One side a kernel choice, the other numbers: a feature, not tuning.
    pytest.param(
        "def config():\n"
        "    if is_sm90_supported() or is_sm100_supported():\n"
        "        return fused_kernel()\n"
        "    return 16, 1\n",
        [(4, "likely-gap")],
        id="kernel-on-one-side",
    ),
    # `use = 1` / `use = 0` is an on/off answer, not numbers tuned.
    pytest.param(
        "def flag():\n"
        "    if is_sm90_supported() or is_sm100_supported():\n"
        "        use = 1\n"
        "    else:\n"
        "        use = 0\n"
        "    return use\n",
        [(4, "likely-gap")],
        id="on-off-numbers",
    ),
    # A note inside the branch above speaks of that branch, not of the elif below it.
    pytest.param(
        "def pick():\n"
        "    if is_sm90_supported():\n"
        "        # Note: a regression on this kernel,\n"
        "        # a workaround until it is fixed,\n"
        "        # see the issue.\n"
        "        backend = 'fa3'\n"
        "    elif is_sm100_supported() or is_sm90_supported():\n"
        "        backend = 'trtllm'\n"
        "    return backend\n",
        [(4, "probably-deliberate"), (9, "likely-gap")],
        id="note-of-the-branch-above",
    ),
    # `return 1` / `return 0` on both sides is an answer, not launch numbers.
    pytest.param(
        "def pick():\n"
        "    if is_sm90_supported() or is_sm100_supported():\n"
        "        return 1\n"
        "    return 0\n",
        [(4, "likely-gap")],
        id="returns-an-on-off-answer",
    ),
    # A table of limits whose missing key switches the feature off is its support list.
    pytest.param(
        "SIZES = {'9.0': {2: 64 * MiB}, '10.0': {2: 32 * MiB}}\n\n\n"
        "def init():\n"
        "    cap = '%d.%d' % torch.cuda.get_device_capability()\n"
        "    if cap not in SIZES:\n"
        "        logger.warning('not supported, the communicator is not available')\n"
        "        return\n"
        "    start()\n",
        [(8, "likely-gap")],
        id="limits-that-switch-the-feature-off",
    ),
    # An early exit that lets the generation pass does not decide for it.
    pytest.param(
        "def is_supported():\n"
        "    if not torch.cuda.is_available():\n"
        "        return False\n"
        "    if not (is_sm90_supported() or is_sm100_supported()):\n"
        "        return False\n"
        "    return True\n",
        [(6, "likely-gap")],
        id="early-exit-that-lets-it-pass",
    ),
    # A cut-off read on the whole registry stays what it was for an allowlist of predicates
    # under an enclosing test.
    pytest.param(
        "def fast():\n"
        "    if torch.cuda.get_device_capability()[0] >= 9:\n"
        "        if is_sm90_supported() or is_sm100_supported():\n"
        "            return True\n"
        "    return False\n",
        [(4, "admits"), (5, "likely-gap")],
        id="allowlist-under-a-floor",
    ),
    # Alternatives still enumerate.
    pytest.param(
        "def fast(x):\n    return x and (is_sm90_supported() or is_sm100_supported())\n",
        [(4, "likely-gap")],
        id="alternatives-under-an-and",
    ),
    # A docstring that speaks of the hardware is still read for its TODO.
    pytest.param(
        "def attend():\n"
        '    """Now only supported on Hopper GPUs."""\n'
        "    if is_sm90_supported():\n"
        "        return 'sm90'\n"
        "    return 'generic'\n",
        [(5, "likely-gap")],
        id="docstring-todo-about-the-gpu",
    ),
]


@pytest.mark.parametrize(("source", "expected"), NOOPS)
def test_not_a_gap_noops(make_tree: MakeTree, source: str, expected: list[tuple[int, str]]) -> None:
    assert verdicts(audit(make_tree, source)) == expected


def test_a_parameter_passed_on_is_read_after_the_decision(make_tree: MakeTree) -> None:
    source = (
        "def layout(use_psum):\n"
        "    if use_psum:\n"
        "        return 'psum'\n"
        "    return 'contiguous'\n\n\n"
        "def run():\n"
        "    psum = is_sm90_supported() or is_sm100_supported()\n"
        "    return layout(psum)\n"
    )
    report = audit(make_tree, source)
    gaps = [g for g in report.gates if g.gate_class is GateClass.LIKELY_GAP]
    assert [g.found.line for g in gaps] == [10, 4], [g.reasons for g in gaps]
    assert any(r.startswith("only reads its parameter 'use_psum'") for r in gaps[1].reasons)


def _lines(gates: list[AuditedGate]) -> list[int]:
    return [g.found.line for g in gates if g.gate_class is GateClass.LIKELY_GAP]


def test_likely_gaps_are_ordered_by_the_weight_of_their_evidence(make_tree: MakeTree) -> None:
    source = (
        "def a():\n    return is_sm90_supported() or is_sm100_supported()\n\n\n"
        "# TODO: enable on SM120 once the kernel supports it\n"
        "if is_sm100_supported():\n"
        "    kernel = 'trtllm'\n"
    )
    report = audit(make_tree, source)
    # An allowlist of two majors, by their predicates (the fix is adding one), before a
    # single-major gate whose note has a TODO.
    assert _lines(list(report.gates)) == [4, 8]


def test_gates_in_tests_come_after_the_product(make_tree: MakeTree) -> None:
    from gatecheck.audit import run_audit

    root = make_tree(
        {
            "pkg/__init__.py": "",
            "pkg/utils.py": UTILS,
            "pkg/mod.py": IMPORTS
            + "# TODO: enable on SM120\nif is_sm100_supported():\n    kernel = 'fast'\n",
            "pkg/tests/__init__.py": "",
            "pkg/tests/test_mod.py": IMPORTS
            + "def test_fast():\n    assert is_sm90_supported() or is_sm100_supported()\n",
        }
    )
    report = run_audit([root], load_ruleset([]), "sm120")
    gaps = [g for g in report.gates if g.gate_class is GateClass.LIKELY_GAP]
    assert [g.path.name for g in gaps] == ["mod.py", "test_mod.py"]


@pytest.mark.parametrize(
    ("reason", "weight"),
    [
        ("the rule 'fusion' requires sm120", 10),
        ("a gap with a TODO: the comment at line 3: 'TODO: enable'", 3),
        ("'is_blackwell' is named for Blackwell but leaves out sm120, a Blackwell generation", 3),
        ("admits sm121 but not sm120, of the same major 12: an exact-minor test", 3),
        ("enumerates 2 majors (sm90, sm100) but not sm120", 2),
        ("the if/elif chain at line 4 handles sm90, sm100 but not sm120", 1),
        ("'is_sm120' (line 4) admits sm120 and is imported into this module, but never used", 3),
        ("'is_sm120' (line 4) admits sm120 and is at hand in this module, but never used", 1),
        ("'is_sm120' (line 4) admits sm120 and is used elsewhere in this module, not here", 2),
        ("admits only sm100, sm103, of sm120's family (Blackwell)", -1),
        (
            "admits sm100, sm103, every generation of major 10, but not sm110, which reported "
            "(10, 1) under earlier toolkits: a test of major 10 that took it in then",
            -1,
        ),
        ("the allowlist is 'CAPS' at line 3: [(9, 0), (10, 0)]", 0),
        ("only reads its parameter 'x': the callers' condition is the decision", -6),
        # Which option a refusal is read for is no evidence; a refusal of a whole vendor
        # in a module that serves the generation is ranked last.
        ("refuses sm120 when 'self.enable_x'", 0),
        ("refuses every amd generation (it admits only sm100, sm103), while 'f' (line 1)", -1),
    ],
)
def test_reason_weights(reason: str, weight: int) -> None:
    assert reason_weight(reason) == weight


def test_a_todo_weighs_once(make_tree: MakeTree) -> None:
    """Two notes saying a gap is meant to be widened (a comment above, the refusal's own
    "for now") are one piece of evidence: the FA4 refusal in sglang 0.5.9 counted both
    and ranked above the seed gates."""
    report = audit(
        make_tree,
        "if torch.cuda.get_device_capability()[0] != 9:\n"
        "    raise ValueError('fp8 attention currently requires SM90')\n",
    )
    (gate,) = mod_gates(report)
    todo = "a gap with a TODO: the comment at line 2: 'not yet supported'"
    again = "a gap with a TODO: the message at line 4: 'only on sm90 for now'"
    enumerates = "enumerates 2 majors (sm90, sm100) but not sm120"
    assert evidence_weight(dataclasses.replace(gate, reasons=(todo, enumerates))) == 5
    assert evidence_weight(dataclasses.replace(gate, reasons=(todo, again, enumerates))) == 5


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("TODO: enable on SM120", True),
        ("Now the fused kernel only supports sm90", True),
        ("The dispatcher does not yet select its FP8 kernel on sm100.", False),
        ("The dispatcher does not yet select its FP8 kernel on sm100 or sm120.", True),
    ],
)
def test_has_todo(text: str, expected: bool) -> None:
    words = evidence.Words(1, "comment", text)
    assert (evidence.has_todo(words, SM120) is not None) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("DeepGEMM MXFP8 BMM requires Blackwell.", True),
        ("requires Blackwell (SM100 or SM120)", True),
        ("requires sm_100/sm_103 (Blackwell)", True),
        ("requires a Blackwell (SM100) GPU.", True),
        ("requires Blackwell datacenter GPUs", False),
        ("only supported on Hopper and Blackwell DC devices.", False),
        ("requires SM100 family (Blackwell: SM100, SM103, SM110). Got SM120.", False),
        ("requires Blackwell (SM100, SM103, SM110)", False),
        ("requires Blackwell (SM100, SM110, SM120)", True),
    ],
)
def test_asks_for_its_family(text: str, expected: bool) -> None:
    words = evidence.Words(1, "message", text)
    assert (evidence.asks_for_its_family(words, SM120) is not None) is expected


@pytest.mark.parametrize(
    ("text", "taken_when_true", "expected"),
    [
        # In the branch the condition's truth takes: what the condition is for.
        ("Cannot use FA version 3 on Blackwell platform", True, True),
        ("FP8 KV cache is not supported on Blackwell yet", True, True),
        # Elsewhere (the else branch, a function's other message), it is a limitation.
        ("Cannot use FA version 3 on Blackwell platform", False, False),
        # Part of the family, or the parts glossed, still do not ask for sm120.
        ("Cannot use FA3 on Blackwell datacenter GPUs", True, False),
        ("Cannot use FA3 on Blackwell (SM100, SM103, SM110)", True, False),
    ],
)
def test_family_in_the_branch_taken(text: str, taken_when_true: bool, expected: bool) -> None:
    words = evidence.Words(1, "message", text, taken_when_true=taken_when_true)
    assert (evidence.asks_for_its_family(words, SM120) is not None) is expected


def test_a_table_imported_from_another_module_is_read_there(make_tree: MakeTree) -> None:
    from gatecheck.audit import run_audit

    root = make_tree(
        {
            "pkg/__init__.py": "",
            "pkg/sizes.py": "MiB = 1 << 20\nMAX_SIZES = {'9.0': {2: 64 * MiB}, '10.0': {2: MiB // 2}}\n",
            "pkg/mod.py": (
                "import torch\n"
                "from pkg.sizes import MAX_SIZES\n\n\n"
                "def max_size(world):\n"
                "    cap = '%d.%d' % torch.cuda.get_device_capability()\n"
                "    if cap in MAX_SIZES:\n"
                "        return MAX_SIZES[cap][world]\n"
                "    return 1 << 20\n"
            ),
        }
    )
    report = run_audit([root], load_ruleset([]), "sm120")
    assert verdicts(report) == [(7, "probably-deliberate")]
    assert "a per-GPU table of numbers ('MAX_SIZES', line 2)" in report.gates[0].reasons[0]


def test_a_likely_gap_ranked_last_is_not_carried_up_by_its_feature(make_tree: MakeTree) -> None:
    # A feature's gates stay together, placed by its strongest; not a likely gap on a
    # ground ranked last (here: behind another likely gap), which waits for every gate
    # with evidence of its own (the enumeration in b()).
    source = (
        "def a(x):\n"
        "    # TODO: enable on SM120\n"
        "    if not (is_sm90_supported() or is_sm100_supported()):\n"
        "        return None\n"
        "    if torch.cuda.get_device_capability() == (10, 0):\n"
        "        x = pack(x)\n"
        "    return x\n\n\n"
        "def b():\n"
        "    return is_sm90_supported() or is_sm100_supported()\n"
    )
    report = audit(make_tree, source)
    gaps = [g for g in report.gates if g.gate_class is GateClass.LIKELY_GAP]
    assert [g.found.line for g in gaps] == [5, 13, 7]
    assert gaps[-1].reasons[0].endswith("behind the likely gap at line 5")


# The module's own grouping of the generation (`arch // 10 in [10, 11]`, Thor with the
# datacenter Blackwell parts) and a chain that sends the generation the way that group
# goes. Line 3 is the snippet's first line.
_ARCH = (
    "def arch():\n"
    "    major, minor = torch.cuda.get_device_capability()\n"
    "    return major * 10 + minor\n\n\n"
    "def backward():\n"
    "    if arch() // 10 in [10, 11]:\n"
    "        return 'two_cta'\n"
    "    return 'one_cta'\n\n\n"
)

GROUPED_CASES = [
    pytest.param(
        _ARCH + "def forward():\n"
        "    a = arch()\n"
        "    if a // 10 == 12:\n"
        "        cfg = 'sm120'\n"
        "    elif a // 10 == 9:\n"
        "        cfg = 'sm90'\n"
        "    else:\n"
        "        cfg = 'sm100'\n"
        "    return cfg\n",
        [(9, "admits"), (16, "probably-deliberate"), (18, "probably-deliberate")],
        "sm110 goes the way sm100, sm103 go, which the condition at line 9 tests together with it",
        id="chain-sends-it-with-its-group-to-the-else",
    ),
    pytest.param(
        _ARCH + "def forward():\n"
        "    mma = 'tcgen05'\n"
        "    if arch() // 10 in [8, 12]:\n"
        "        mma = 'sm80'\n"
        "    return mma\n",
        [(9, "admits"), (16, "probably-deliberate")],
        "sm110 goes the way sm100, sm103 go, which the condition at line 9 tests together",
        id="enumeration-leaves-it-with-its-group",
    ),
    pytest.param(
        # `else: if` is an elif; a test also false on sm100 keeps sm100 on the way.
        _ARCH + "def forward(d):\n"
        "    a = arch()\n"
        "    if a // 10 in [8, 12]:\n"
        "        cfg = 'sm80'\n"
        "    elif a // 10 == 9:\n"
        "        cfg = 'sm90'\n"
        "    else:\n"
        "        if a // 10 == 10 and d == 256:\n"
        "            cfg = 'hd256'\n"
        "        else:\n"
        "            cfg = 'sm100'\n"
        "    return cfg\n",
        [
            (9, "admits"),
            (16, "probably-deliberate"),
            (18, "probably-deliberate"),
            (21, "likely-gap"),
        ],
        "sm110 goes the way sm100, sm103 go",
        id="a-test-that-can-be-false-keeps-the-group-on-the-way",
    ),
]


@pytest.mark.parametrize(("source", "expected", "reason"), GROUPED_CASES)
def test_the_generation_goes_with_its_group(
    make_tree: MakeTree, source: str, expected: list[tuple[int, str]], reason: str
) -> None:
    report = audit(make_tree, source, generation="sm110")
    assert verdicts(report) == expected
    first = min(
        (g for g in report.gates if g.path.name == "mod.py" and g.found.line > 9),
        key=lambda g: g.found.line,
    )
    assert any(reason in r for r in first.reasons), first.reasons


GROUPED_NOOPS = [
    # The mirror: a gate that splits the group is the gap (vLLM 0.22.0 -> 0.23.0 widened
    # three `arch // 10 == 10` to sm110 in such a module).
    pytest.param(
        _ARCH + "def forward():\n"
        "    if arch() // 10 == 10:\n"
        "        return 'hd256'\n"
        "    return 'generic'\n",
        "sm110",
        [(9, "admits"), (15, "likely-gap")],
        id="a-gate-splitting-the-group",
    ),
    # The chain handles part of the group: the group does not go one way.
    pytest.param(
        _ARCH + "def forward():\n"
        "    a = arch()\n"
        "    if a // 10 == 9:\n"
        "        cfg = 'sm90'\n"
        "    elif a // 10 == 10:\n"
        "        cfg = 'sm100'\n"
        "    else:\n"
        "        cfg = 'generic'\n"
        "    return cfg\n",
        "sm110",
        [(9, "admits"), (16, "likely-gap"), (18, "likely-gap")],
        id="the-chain-handles-part-of-the-group",
    ),
    # Siblings newer than anything the chain handles: the chain may predate them all.
    pytest.param(
        _ARCH + "def forward():\n"
        "    a = arch()\n"
        "    if a // 10 == 8:\n"
        "        cfg = 'sm80'\n"
        "    elif a // 10 == 9:\n"
        "        cfg = 'sm90'\n"
        "    else:\n"
        "        cfg = 'generic'\n"
        "    return cfg\n",
        "sm110",
        [(9, "admits"), (16, "likely-gap"), (18, "likely-gap")],
        id="siblings-newer-than-the-chain",
    ),
    # Grouped with its own major's sibling only (`is_sm120_supported()`): the seed's
    # `sm90 or sm100` still forgot both.
    pytest.param(
        "def fused():\n"
        "    if is_sm120_supported():\n"
        "        return 'sm120'\n"
        "    return 'generic'\n\n\n"
        "def enable():\n"
        "    if is_sm90_supported() or is_sm100_supported():\n"
        "        return True\n"
        "    return False\n",
        "sm120",
        [(4, "admits"), (10, "likely-gap")],
        id="grouped-with-its-own-major-only",
    ),
]


@pytest.mark.parametrize(("source", "generation", "expected"), GROUPED_NOOPS)
def test_the_generation_goes_with_its_group_noops(
    make_tree: MakeTree, source: str, generation: str, expected: list[tuple[int, str]]
) -> None:
    assert verdicts(audit(make_tree, source, generation=generation)) == expected


# The group may be made where the device is read, and the gate in a helper given the value
# (flash-attn-4's backward postprocess, `arch // 10 == 10` on an `arch` its interface
# passes, the interface grouping `[10, 11]`; widened to sm110 in 4.0.0b15): the gates of
# the files calling the helper count. (helper.py, expected (file, line, class), reason)
_CALLER = (
    "import torch\n"
    "from pkg.helper import Finisher, finish\n\n\n"
    "def device_arch():\n"
    "    major, minor = torch.cuda.get_device_capability()\n"
    "    return major * 10 + minor\n\n\n"
    "def backward(dim):\n"
    "    arch = device_arch()\n"
    "    paired = False\n"
    "    if arch // 10 in [10, 11]:\n"
    "        paired = dim >= 128\n"
    "    finish(arch, dim)\n"
    "    return Finisher(arch, paired).run()\n"
)
CALLERS_GROUP = [
    pytest.param(
        "class Finisher:\n"
        "    def __init__(self, arch, paired):\n"
        "        self.arch = arch\n"
        "        self.paired = paired\n\n"
        "    def run(self):\n"
        "        if self.arch // 10 == 10 and self.paired:\n"
        "            return 'pair'\n"
        "        return 'single'\n\n\n"
        "def finish(arch, dim):\n"
        "    return 'two' if arch // 10 == 10 else 'one'\n",
        [("api.py", 13, "admits"), ("helper.py", 7, "likely-gap"), ("helper.py", 13, "likely-gap")],
        # A test of all of major 10 is also Thor's former major (the registry's
        # `formerly`), evidence of its own that comes first.
        "which reported (10, 1) under earlier toolkits",
        id="object-and-function-given-the-callers-arch",
    ),
    pytest.param(
        "def finish(arch, dim):\n"
        "    if arch // 10 in [8, 12]:\n"
        "        return 'simt'\n"
        "    elif arch // 10 == 9:\n"
        "        return 'wgmma'\n"
        "    return 'tcgen05'\n\n\n"
        "class Finisher:\n"
        "    def __init__(self, arch, paired):\n"
        "        self.arch = arch\n\n"
        "    def run(self):\n"
        "        return 'x'\n",
        [
            ("api.py", 13, "admits"),
            ("helper.py", 2, "probably-deliberate"),
            ("helper.py", 4, "probably-deliberate"),
        ],
        "sm110 goes the way sm100, sm103 go, which the condition at line 13 of pkg.api",
        id="a-chain-sending-it-with-the-callers-group",
    ),
]


def _caller_verdicts(report: AuditReport) -> list[tuple[str, int, str]]:
    return sorted((g.path.name, g.found.line, g.gate_class.value) for g in report.gates)


@pytest.mark.parametrize(("helper", "expected", "reason"), CALLERS_GROUP)
def test_the_group_of_the_callers(
    make_tree: MakeTree, helper: str, expected: list[tuple[str, int, str]], reason: str
) -> None:
    files = {"pkg/__init__.py": "", "pkg/api.py": _CALLER, "pkg/helper.py": helper}
    report = run_audit([make_tree(files)], load_ruleset([]), "sm110")
    assert _caller_verdicts(report) == expected
    assert_first_reason(report, "helper.py", reason)


CALLERS_GROUP_NOOPS = [
    # The helper reads the device itself: what its callers group says nothing of it.
    pytest.param(
        "import torch\n\n\n"
        "def finish(arch, dim):\n"
        "    return 'two' if torch.cuda.get_device_capability() == (10, 0) else 'one'\n\n\n"
        "class Finisher:\n"
        "    def __init__(self, arch, paired):\n"
        "        pass\n\n"
        "    def run(self):\n"
        "        return 'x'\n",
        [("api.py", 13, "admits"), ("helper.py", 5, "probably-deliberate")],
        id="the-helper-reads-the-device-itself",
    ),
]


@pytest.mark.parametrize(("helper", "expected"), CALLERS_GROUP_NOOPS)
def test_the_group_of_the_callers_noops(
    make_tree: MakeTree, helper: str, expected: list[tuple[str, int, str]]
) -> None:
    files = {"pkg/__init__.py": "", "pkg/api.py": _CALLER, "pkg/helper.py": helper}
    assert _caller_verdicts(run_audit([make_tree(files)], load_ruleset([]), "sm110")) == expected


# A refusal guarded by an option's switch (sglang's `--enable-fp4-indexer` check, widened
# to sm120 a release later): the feature's set is every generation (the switch may be
# off), the option's is where the arch tests can be false. (source of mod.py, expected
# (line, class), a piece of the first reason.)
SWITCHED = [
    pytest.param(
        "class Args:\n"
        "    def check(self):\n"
        "        if self.enable_fp4_indexer and not is_sm100_supported():\n"
        "            raise ValueError('--enable-fp4-indexer requires SM100 GPUs')\n"
        "        if not (is_sm90_supported() or is_sm100_supported()) and self.fused:\n"
        "            raise ValueError('fused needs it')\n",
        [(5, "probably-deliberate"), (7, "likely-gap")],
        "refuses sm120 when 'self.enable_fp4_indexer'",
        id="switch-and-refusal",
    ),
]


@pytest.mark.parametrize(("source", "expected", "reason"), SWITCHED)
def test_a_switched_refusal_is_the_options_gate(
    make_tree: MakeTree, source: str, expected: list[tuple[int, str]], reason: str
) -> None:
    report = audit(make_tree, source)
    assert verdicts(report) == expected
    first = min((g for g in report.gates if g.path.name == "mod.py"), key=lambda g: g.found.line)
    assert first.reasons[0] == reason, first.reasons
    assert "sm120" in first.found.admits  # the feature's set is as the semantics read it


SWITCHED_NOOPS = [
    # The arch test may be false on the generation: it lets it through when it is.
    pytest.param(
        "def check(flag, x):\n"
        "    if flag and not (is_sm100_supported() or x):\n"
        "        raise ValueError('no')\n",
        [(4, "admits")],
        id="arch-test-unknown-on-the-generation",
    ),
    # An `or`: the switch alone refuses everywhere.
    pytest.param(
        "def check(flag):\n"
        "    if flag or not is_sm100_supported():\n"
        "        raise ValueError('no')\n",
        [(4, "probably-deliberate")],
        id="an-or-is-no-switch",
    ),
    # A refusal on every generation of the vendor when on is the option's own matter:
    # no gate, only a test constant over the registry (listed apart, never weighed).
    pytest.param(
        "def check(flag):\n"
        "    if flag and torch.cuda.get_device_capability()[0] >= 7:\n"
        "        raise ValueError('no')\n",
        [(4, "constant")],
        id="refused-everywhere",
    ),
    # A constraint on every part from one on is no option some forgot.
    pytest.param(
        "def check(decode, dtype):\n"
        "    if decode == 'flashinfer' and dtype != 'bf16' and "
        "torch.cuda.get_device_capability()[0] >= 10:\n"
        "        raise ValueError('flashinfer decode on SM100+ requires bfloat16')\n",
        [(4, "probably-deliberate")],
        id="constraint-on-newer-hardware",
    ),
    # An enabling gate keeps its reading.
    pytest.param(
        "def run(flag):\n"
        "    if flag and is_sm100_supported():\n"
        "        return fast()\n"
        "    return slow()\n",
        [(4, "probably-deliberate")],
        id="enabling",
    ),
]


@pytest.mark.parametrize(("source", "expected"), SWITCHED_NOOPS)
def test_a_switched_refusal_noops(
    make_tree: MakeTree, source: str, expected: list[tuple[int, str]]
) -> None:
    report = audit(make_tree, source)
    assert verdicts(report) == expected
    for gate in report.gates:
        assert not any(r.startswith("refuses ") for r in gate.reasons) or (
            "a constraint on newer hardware" in gate.reasons[0]
        ), gate.reasons


# A dispatch written with early exits is an if/elif chain (vLLM 0.27.1's XQA decode:
# `if is_device_capability(90): return ...` then `assert family(100)`, widened to sm120
# in 0.28.0; its `elif` twin was already read as one).
EARLY_EXIT_CHAINS = [
    pytest.param(
        "def supports(is_prefill):\n"
        "    if is_sm90_supported():\n"
        "        return not is_prefill\n"
        "    return is_sm100_supported()\n",
        [(4, "likely-gap")],  # the function is a predicate: its last answer is passed on
        id="if-return-then-return",
    ),
    pytest.param(
        "def kernel():\n"
        "    if is_sm90_supported():\n"
        "        return 'xqa'\n"
        "    assert is_sm100_supported()\n"
        "    return 'trtllm-gen'\n",
        [(4, "likely-gap"), (6, "likely-gap")],
        id="if-return-then-assert",
    ),
    pytest.param(
        "def kernel():\n"
        "    if is_sm90_supported():\n"
        "        return 'xqa'\n"
        "    if is_sm100_supported():\n"
        "        return 'trtllm-gen'\n"
        "    raise NotImplementedError('no decode kernel')\n",
        [(4, "likely-gap"), (6, "likely-gap")],
        id="if-return-then-if-return",
    ),
]


@pytest.mark.parametrize(("source", "expected"), EARLY_EXIT_CHAINS)
def test_a_chain_of_early_exits(
    make_tree: MakeTree, source: str, expected: list[tuple[int, str]]
) -> None:
    report = audit(make_tree, source)
    assert verdicts(report) == expected
    for gate in report.gates:
        if gate.path.name == "mod.py":
            assert any(
                "the if/elif chain at line 4 handles sm90, sm100, sm103 but not sm120" in r
                for r in gate.reasons
            ), gate.reasons


EARLY_EXIT_NOOPS = [
    # A guard that tells no generations apart is not an arm of the dispatch.
    pytest.param(
        "def supports(x):\n"
        "    if x is None:\n"
        "        return False\n"
        "    if is_sm90_supported():\n"
        "        return True\n"
        "    return False\n",
        [(6, "probably-deliberate")],
        id="a-guard-before",
    ),
    # An arm that does not leave falls through: no dispatch.
    pytest.param(
        "def supports():\n"
        "    tile = 64\n"
        "    if is_sm90_supported():\n"
        "        tile = 128\n"
        "    return tile > 64 or is_sm100_supported()\n",
        [(5, "probably-deliberate"), (7, "likely-gap")],  # 7: `or`, not a chain
        id="an-arm-that-falls-through",
    ),
]


@pytest.mark.parametrize(("source", "expected"), EARLY_EXIT_NOOPS)
def test_a_chain_of_early_exits_noops(
    make_tree: MakeTree, source: str, expected: list[tuple[int, str]]
) -> None:
    report = audit(make_tree, source)
    assert verdicts(report) == expected
    for gate in report.gates:
        assert not any("if/elif chain" in r for r in gate.reasons), gate.reasons
