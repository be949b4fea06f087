"""Classification with evidence (issue 17 item 7): each rule as `(source, expected class)`
examples on a mini project, with the reason it must show, and noops."""

from __future__ import annotations

import pytest

from gatecheck.audit import evidence
from gatecheck.config.loader import load_ruleset
from tests.test_audit import MakeTree, assert_first_reason, audit, mod_gates, verdicts

REGISTRY = load_ruleset([]).registry
SM120 = REGISTRY.get("sm120")

# An early exit that is a likely gap, and a gate behind it.
BEHIND = (
    "def scales(x):\n"
    "    if not (is_sm90_supported() or is_sm100_supported()):\n"
    "        return None\n"
    "    if is_sm100_supported():\n"
    "        x = pack(x)\n"
    "    return x\n"
)

# (snippet of mod.py, generation, expected (line, class) list, a piece of the first reason)
CASES = [
    pytest.param(
        "# SM120 does not support tcgen05, so the fused MoE stays on Hopper and SM100.\n"
        "if is_sm90_supported() or is_sm100_supported():\n"
        "    kernel = 'fused'\n",
        "sm120",
        [(4, "probably-deliberate")],
        "documented: the comment at line 3",
        id="comment-says-unsupported-on-the-generation",
    ),
    pytest.param(
        "if not (is_sm90_supported() or is_sm100_supported()):\n"
        "    raise RuntimeError('not supported on the SM12x family')\n",
        "sm120",
        [(3, "probably-deliberate")],
        "documented: the message at line 4",
        id="message-names-the-family",
    ),
    pytest.param(
        "# TODO: enable on SM120 once the kernel supports it\n"
        "if is_sm100_supported():\n"
        "    kernel = 'trtllm'\n",
        "sm120",
        [(4, "likely-gap")],
        "a gap with a TODO",
        id="todo-makes-a-single-generation-gate-a-gap",
    ),
    pytest.param(
        "# SM120 is not supported yet\n"
        "if is_sm90_supported() or is_sm100_supported():\n"
        "    kernel = 'fused'\n",
        "sm120",
        [(4, "likely-gap")],
        "a gap with a TODO",
        id="not-yet-is-a-todo-not-a-decision",
    ),
    pytest.param(
        "# a workaround for a known issue in the fused kernel\n"
        "if is_sm90_supported() or is_sm100_supported():\n"
        "    kernel = 'fused'\n",
        "sm120",
        [(4, "probably-deliberate")],
        "a workaround",
        id="workaround",
    ),
    # In the branch, over a test of its own, a comment naming the hardware is the gate's.
    pytest.param(
        "if is_sm90_supported() or is_sm100_supported():\n"
        "    # a workaround: SM120 hangs in the fused kernel\n"
        "    if nnodes == 1:\n"
        "        fuse = True\n",
        "sm120",
        [(3, "probably-deliberate")],
        "a workaround",
        id="workaround-naming-the-hardware-over-a-nested-test",
    ),
    # Or naming a product (vLLM 0.33.0's recurrent FLA kernel, tuned in the branch).
    pytest.param(
        "def pick(n):\n"
        "    if is_sm90_supported() or is_sm100_supported():\n"
        "        # Tuned on GB300; validated on GB200 and with 148 SMs.\n"
        "        if n <= 64:\n"
        "            return 4\n"
        "    return 32\n",
        "sm120",
        [(4, "probably-deliberate")],
        "validated or tuned",
        id="a-product-named-over-a-nested-test",
    ),
    # A floor on the other vendor and one older part of this one's (torchao 0.17.0's
    # float8 check, which let gfx950 through a release later).
    pytest.param(
        "def check():\n"
        "    cap = torch.cuda.get_device_capability()\n"
        "    arch = torch.cuda.get_device_properties(0).gcnArchName\n"
        "    if not (torch.version.cuda is not None and cap >= (8, 9) or 'gfx942' in arch):\n"
        "        raise ValueError('float8 needs a recent GPU')\n",
        "gfx950",
        [(6, "likely-gap")],
        "admits nvidia from sm89 up to its newest, but of amd only gfx942",
        id="a-floor-on-the-other-vendor",
    ),
    # The other vendor's newest part alone is no floor: it may be the one that has it.
    pytest.param(
        "def check():\n"
        "    cap = torch.cuda.get_device_capability()\n"
        "    arch = torch.cuda.get_device_properties(0).gcnArchName\n"
        "    if not (torch.version.cuda is not None and cap >= (12, 0) or 'gfx942' in arch):\n"
        "        raise ValueError('needs FP4')\n",
        "gfx950",
        [(6, "probably-deliberate")],
        "a single-generation gate: admits only gfx942",
        id="the-other-vendors-newest-alone",
    ),
    pytest.param(
        "def fast():\n"
        '    """Only validated end to end on Hopper and SM100."""\n'
        "    return is_sm90_supported() or is_sm100_supported()\n",
        "sm120",
        [(5, "probably-deliberate")],
        "validated or tuned",
        id="docstring-says-validated",
    ),
    pytest.param(
        "def fast():\n"
        "    # Keep the old window (Hopper and SM100, excludes SM120): the wider range\n"
        "    # was not validated.\n"
        "    return is_sm90_supported() or is_sm100_supported()\n",
        "sm120",
        [(6, "likely-gap")],
        "a gap with a TODO",
        id="not-validated-is-untested-not-a-decision",  # vLLM 0.31 -> 0.32 (fix study K)
    ),
    pytest.param(
        "def fast():\n"
        "    # Untested on other GPUs.\n"
        "    return is_sm90_supported() or is_sm100_supported()\n",
        "sm120",
        [(5, "likely-gap")],
        "a gap with a TODO",
        id="untested-elsewhere",
    ),
    pytest.param(
        "class Mixer:\n"
        "    def __init__(self):\n"
        "        # Check if running on Blackwell (SM100+) for kernel tuning\n"
        "        self.is_blackwell = torch.cuda.get_device_capability()[0] == 10\n",
        "sm120",
        [(6, "probably-deliberate")],
        "validated or tuned",
        id="comment-says-it-is-for-tuning",
    ),
    pytest.param(
        "def check_fp8_marlin():\n"
        "    if not (is_sm90_supported() or is_sm100_supported()):\n"
        "        raise ValueError('FP8 Marlin is off here: it is slower than W4A16 on other devices')\n",
        "sm120",
        [(4, "probably-deliberate")],
        "validated or tuned",
        id="message-says-it-is-slower-elsewhere",
    ),
    pytest.param(
        "def check_fp8_marlin():\n"
        "    if not (is_sm90_supported() or get_device_sm() == 120):\n"
        "        raise ValueError('FP8 Marlin needs SM90 or SM120: slower than W4A16 on others')\n",
        "sm121",
        [(4, "likely-gap")],
        "admits sm120 but not sm121",
        id="noop-slower-elsewhere-naming-a-sibling",  # vLLM 0.22 added sm121 (fix study I)
    ),
    pytest.param(
        "if not is_sm100_supported():\n    raise RuntimeError('MXFP8 requires Blackwell (SM100+)')\n",
        "sm120",
        [(3, "likely-gap")],
        "its words ask for SM100+",
        id="message-asks-for-more-than-the-gate",
    ),
    pytest.param(
        "# SM100 (Blackwell) -> trtllm-gen path.\n"
        "# SM90 (Hopper) -> cutlass path.\n"
        "if is_sm90_supported() and not is_sm100_supported():\n"
        "    kernel = 'cutlass'\n",
        "sm120",
        [(5, "likely-gap")],
        "its words enumerate sm9x, sm10x, not sm120",
        id="comment-maps-other-generations",
    ),
    pytest.param(
        "major = torch.cuda.get_device_capability()[0]\n"
        "if major == 9:\n"
        "    run_hopper()\n"
        "elif major == 10:\n"
        "    run_blackwell()\n",
        "sm120",
        [(4, "likely-gap"), (6, "likely-gap")],
        "the if/elif chain at line 4 handles sm90, sm100, sm103 but not sm120",
        id="if-elif-chain-enumerates-majors",
    ),
    pytest.param(
        "major, minor = torch.cuda.get_device_capability()\n"
        "if major == 10 and minor == 0:\n"
        "    kernel = 'trtllm'\n",
        "sm103",
        [(4, "likely-gap")],
        "admits sm100 but not sm103, of the same major 10",
        id="exact-minor-leaves-out-a-sibling",
    ),
    pytest.param(
        "cap = torch.cuda.get_device_capability()\n"
        "if (10, 0) <= cap < (12, 0) or cap >= (13, 0):\n"
        "    kernel = 'tcgen'\n",
        "sm120",
        [(4, "probably-deliberate")],
        "a hole written out around sm120",
        id="hole-written-out",
    ),
    pytest.param(
        "major = torch.cuda.get_device_capability()[0]\n"
        "if major >= 9 and major != 12:\n"
        "    kernel = 'wgmma'\n",
        "sm120",
        [(4, "probably-deliberate")],
        "excludes sm120 by name",
        id="exclusion-by-name",
    ),
    pytest.param(
        "if is_sm90_supported() or is_sm100_supported():\n    logger.info('using the fast path')\n",
        "sm120",
        [(3, "probably-deliberate")],
        "only log or pick a message",
        id="branch-only-logs",
    ),
    pytest.param(
        "major = torch.cuda.get_device_capability()[0]\n"
        "if major == 9:\n"
        "    BLOCK = 128\n"
        "elif major == 10:\n"
        "    BLOCK = 256\n"
        "else:\n"
        "    BLOCK = 64\n",
        "sm120",
        [(4, "probably-deliberate"), (6, "probably-deliberate")],
        "per-GPU tuning with a generic fallback",
        id="tuning-ladder",
    ),
    pytest.param(
        "def options(opts):\n"
        "    if is_sm90_supported() or is_sm100_supported():\n"
        "        opts['BLOCK_M'] //= 2\n"
        "        opts['BLOCK_N'] //= 2\n"
        "    return opts\n",
        "sm120",
        [(4, "probably-deliberate")],
        "per-GPU tuning with a generic fallback",
        # Numbers only changed by numbers (vLLM's flex attention halves its blocks below a
        # shared-memory size): the value before is what the others keep.
        id="numbers-adjusted-in-place",
    ),
    pytest.param(
        "class Platform:\n"
        "    def setup(self):\n"
        "        major = torch.cuda.get_device_capability()[0]\n"
        "        self.is_blackwell = major == 10\n",
        "sm120",
        [(6, "likely-gap")],
        "'is_blackwell' is named for Blackwell but leaves out sm120",
        id="family-name-promises-more",
    ),
    pytest.param(
        "if not is_sm100_supported():\n"
        "    raise ValueError('The backend is only supported on Blackwell GPUs (SM100).')\n",
        "sm120",
        [(3, "likely-gap")],
        "its words ask for Blackwell, which sm120 is",
        id="message-asks-for-the-family",
    ),
    pytest.param(
        "def quantize(x):\n"
        "    if x.dtype not in DTYPES:\n"
        "        raise ValueError('quantize requires SM90+ GPU and a known dtype')\n"
        "    if is_sm100_supported():\n"
        "        return fast(x)\n"
        "    return slow(x)\n",
        "sm120",
        [(6, "likely-gap")],
        "in its function, its words ask for SM90+",
        id="function-message-asks-for-more",
    ),
    pytest.param(
        "if is_sm100_supported():\n"
        "    y = fast(x)\n"
        "else:\n"
        "    # SM90: the slow path takes the inverted scale\n"
        "    y = slow(x)\n",
        "sm120",
        [(3, "likely-gap")],
        "sm120 takes the else branch, written for sm9x",
        id="else-branch-written-for-another-generation",
    ),
    pytest.param(
        "@supported_compute_capability([100, 103])\n"
        "def _cudnn_mm_check(a):\n"
        "    return True\n"
        "@supported_compute_capability([100, 103, 120])\n"
        "def _cudnn_fp4_check(a):\n"
        "    return True\n"
        "MM = {'cudnn': _cudnn_mm_check}\n"
        "FP4 = {'cudnn': _cudnn_fp4_check}\n",
        "sm120",
        [(3, "likely-gap"), (6, "admits")],
        "registered as the 'cudnn' check, like '_cudnn_fp4_check' (line 6), which admits sm120",
        id="sibling-check-of-the-same-backend-admits-it",
    ),
    pytest.param(
        "# Now the fused kernel only supports sm90\n"
        "if is_sm90_supported():\n"
        "    kernel = 'fused'\n",
        "sm120",
        [(4, "likely-gap")],
        "a gap with a TODO",
        id="now-only-is-a-todo",
    ),
    pytest.param(
        "if not (is_sm90_supported() or is_sm100_supported()):\n"
        "    raise RuntimeError('FA3 requires SM>=90 and SM<=100')\n",
        "sm120",
        [(3, "probably-deliberate")],
        "its words stop at SM<=100, below sm120",
        # A ceiling in words (sglang's "FlashAttention v3 Backend requires SM>=80 and
        # SM<=90", kept for Hopper through every later release).
        id="words-set-a-ceiling-below-the-generation",
    ),
    pytest.param(
        "def fa3_ok():\n    major = torch.cuda.get_device_capability()[0]\n"
        "    if major < 8 or major >= 10:\n"
        "        return False, 'FA3 is only supported on compute capability >= 8 excluding "
        "Blackwell archs (>=10)'\n"
        "    return True, None\n",
        "sm100",
        [(5, "probably-deliberate")],
        "its words exclude Blackwell",
        # vLLM's FA3 check: the family is left out by name, not asked for.
        id="words-exclude-the-family",
    ),
    pytest.param(
        "# SM120 needs this fix: https://example.org/pull/1\n"
        "if is_sm90_supported() or is_sm100_supported():\n"
        "    kernel = 'fused'\n",
        "sm120",
        [(4, "likely-gap")],
        "a gap with a TODO",
        id="needs-this-fix-is-a-todo",
    ),
    # The branch the condition's truth takes is said to be for the family: sm120, a
    # Blackwell, should take it too (vLLM widened `major == 10` to `>= 10` there).
    pytest.param(
        "def pick(version):\n"
        "    cap = torch.cuda.get_device_capability()\n"
        "    if cap[0] == 10 and version == 3:\n"
        "        logger.warning('Cannot use FA version 3 on Blackwell platform')\n"
        "        version = 2\n"
        "    return version\n",
        "sm120",
        [(5, "likely-gap")],
        "the branch its condition takes speaks of Blackwell, which sm120 is",
        id="branch-said-to-be-for-the-family",
    ),
    pytest.param(
        "def setup(tp):\n"
        "    if tp != 8 or torch.cuda.get_device_capability()[0] != 10:\n"
        "        logger.warning('fusion unavailable: requires Blackwell and TP8')\n"
        "    else:\n"
        "        enable_fusion()\n",
        "sm120",
        [(4, "likely-gap")],
        "the branch its condition takes speaks of Blackwell, which sm120 is",
        id="refusal-said-to-need-the-family",
    ),
    # Hardware the generation lacks documents the exclusion; hardware it has does not
    # (the registry's `hardware`: sm110 has tcgen05's tensor memory and 2-CTA pairs).
    pytest.param(
        "# the 2-CTA kernel keeps its accumulator in TMEM\n"
        "if is_sm90_supported() or is_sm100_supported():\n"
        "    kernel = 'fused'\n",
        "sm120",
        [(4, "probably-deliberate")],
        "a hardware requirement: the comment at line 3",
        id="hardware-the-generation-lacks",
    ),
    pytest.param(
        "# the 2-CTA kernel keeps its accumulator in TMEM\n"
        "if is_sm90_supported() or is_sm100_supported():\n"
        "    kernel = 'fused'\n",
        "sm110",
        [(4, "likely-gap")],
        "enumerates 2 majors",
        id="hardware-the-generation-has",
    ),
    # A module that admits the generation together with exactly what a gate admits
    # elsewhere groups them: the gate left one of the group out (FA4's `arch // 10 in
    # [10, 11]` beside `arch // 10 == 10`, widened to Thor a release later; written here
    # with exact capabilities: a test of all of major 10 is Thor's former major, its own
    # evidence).
    pytest.param(
        "cap = torch.cuda.get_device_capability()\n"
        "use_two = cap == (10, 0) and x\n"
        "if cap in ((10, 0), (11, 0)):\n"
        "    run_wide()\n",
        "sm110",
        [(4, "likely-gap"), (5, "admits")],
        "the gate at line 5 admits sm100, sm110 together",
        id="grouped-with-the-generation-elsewhere",
    ),
    # Noops: a group without the generation, or one holding other majors too.
    pytest.param(
        "major = torch.cuda.get_device_capability()[0]\n"
        "use_two = major == 10 and x\n"
        "if major in (10, 11):\n"
        "    run_wide()\n",
        "sm120",
        [(4, "probably-deliberate"), (5, "likely-gap")],
        "a single-generation gate: admits only sm100, sm103",
        id="grouped-without-the-generation",
    ),
    pytest.param(
        "cap = torch.cuda.get_device_capability()\n"
        "use_two = cap == (10, 0) and x\n"
        "if cap >= (10, 0):\n"
        "    run_wide()\n",
        "sm110",
        [(4, "probably-deliberate"), (5, "admits")],
        "a single-generation gate: admits only sm100",
        id="grouped-with-other-majors-too",
    ),
    # A docstring's floor speaks for its function's only gate (vLLM's DeepGEMM
    # auto-disable, "on Blackwell GPUs (SM100+)", widened to sm120 in 0.24.0) ...
    pytest.param(
        "def should_skip(model):\n"
        '    """Skip the fast GEMM for these models on Blackwell GPUs (SM100+)."""\n'
        "    if not is_sm100_supported():\n"
        "        return False\n"
        "    return model in EXCLUDED\n",
        "sm120",
        [(5, "likely-gap")],
        "its words ask for SM100+, which sm120 is: the docstring at line 4",
        id="docstring-of-the-only-gate",
    ),
    # ... not for one of several (it may speak of another option).
    pytest.param(
        "def should_skip(model):\n"
        '    """Skip the fast GEMM for these models on Blackwell GPUs (SM100+)."""\n'
        "    if not is_sm100_supported():\n"
        "        return False\n"
        "    if is_sm90_supported():\n"
        "        return True\n"
        "    return model in EXCLUDED\n",
        "sm120",
        [(5, "probably-deliberate"), (7, "probably-deliberate")],
        "a single-generation gate",
        id="docstring-of-several-gates",
    ),
    # ... nor past its summary (a parameter's documentation: FlashInfer's MLA decode,
    # "enable_pdl: only supported for >= sm90" over an sm80-only kernel).
    pytest.param(
        "def decode(q, enable_pdl=None):\n"
        '    """Decode.\n\n'
        "    enable_pdl: only supported for >= sm90.\n"
        '    """\n'
        "    if not is_sm100_supported():\n"
        "        raise RuntimeError('no')\n"
        "    return q\n",
        "sm120",
        [(8, "probably-deliberate")],
        "a single-generation gate",
        id="docstring-past-its-summary",
    ),
    # A class's docstring speaks for the one gate its methods hold (vLLM's
    # DeepGemmFP4Experts, "Requires SM100+ (Blackwell)." over its
    # `_supports_current_device()`, widened to sm120 in 0.24.0) ...
    pytest.param(
        "class FP4Experts:\n"
        '    """Fused experts for FP4 weights.\n\n'
        "    Uses the grouped GEMM. Requires SM100+ (Blackwell).\n"
        '    """\n\n'
        "    @staticmethod\n"
        "    def supported():\n"
        "        return torch.cuda.get_device_capability()[0] == 10\n\n"
        "    def apply(self, x):\n"
        "        return x\n",
        "sm120",
        [(11, "likely-gap")],
        "its words ask for SM100+, which sm120 is: the docstring at line 4",
        id="class-docstring-of-its-only-gate",
    ),
    # ... not a class holding several ...
    pytest.param(
        "class FP4Experts:\n"
        '    """Fused experts for FP4 weights. Requires SM100+."""\n\n'
        "    def supported(self):\n"
        "        return torch.cuda.get_device_capability()[0] == 10\n\n"
        "    def tile(self):\n"
        "        if torch.cuda.get_device_capability()[0] == 9:\n"
        "            return 'sm90'\n"
        "        return 'generic'\n",
        "sm120",
        [(7, "probably-deliberate"), (10, "probably-deliberate")],
        "a single-generation gate",
        id="class-docstring-of-several-gates",
    ),
    # ... nor a sentence that describes rather than requires ("off SM90+") ...
    pytest.param(
        "class Plan:\n"
        '    """Prepared launch. It only relabels B where the signature asks (off SM90+)\n'
        '    and launches."""\n\n'
        "    def supported(self):\n"
        "        return torch.cuda.get_device_capability()[0] == 10\n",
        "sm120",
        [(8, "probably-deliberate")],
        "a single-generation gate",
        id="class-docstring-describing",
    ),
    pytest.param(
        "class Plan:\n"
        '    """Prepared launch: it relabels B off SM90+. Then it launches."""\n\n'
        "    def supported(self):\n"
        "        return torch.cuda.get_device_capability()[0] == 10\n",
        "sm120",
        [(7, "probably-deliberate")],
        "a single-generation gate",
        id="class-docstring-without-a-requirement",
    ),
    # ... nor its sections (an attribute's own documentation).
    pytest.param(
        "class FP4Experts:\n"
        '    """Fused experts.\n\n'
        "    Attributes:\n"
        "        pdl: only used on SM90+.\n"
        '    """\n\n'
        "    def supported(self):\n"
        "        return torch.cuda.get_device_capability()[0] == 10\n",
        "sm120",
        [(11, "probably-deliberate")],
        "a single-generation gate",
        id="class-docstring-section",
    ),
    # A name that spells hardware the generation lacks documents the exclusion too ...
    pytest.param(
        "use_2cta_instrs = torch.cuda.get_device_capability()[0] in (9, 10) and x\n",
        "sm120",
        [(3, "probably-deliberate")],
        "a hardware requirement: its name 'use_2cta_instrs'",
        id="name-spells-missing-hardware",
    ),
    # ... not one it has (sm110 has 2-CTA pairs).
    pytest.param(
        "use_2cta_instrs = torch.cuda.get_device_capability()[0] in (9, 10) and x\n",
        "sm110",
        [(3, "likely-gap")],
        "enumerates 2 majors",
        id="name-spells-hardware-the-generation-has",
    ),
    # A refusal said to be for now is a TODO (sglang's "currently requires SM90",
    # FlashInfer's "not yet supported on SM120": both widened a release later) ...
    pytest.param(
        "if torch.cuda.get_device_capability()[0] != 9:\n"
        "    raise ValueError('fp8 attention currently requires SM90')\n",
        "sm120",
        [(3, "likely-gap")],
        "a gap with a TODO: the message at line 4",
        id="message-says-currently",
    ),
    # ... and so is a refusal of the caller's options nested under the test: the branch's
    # words (flash-attn-4 4.0.0b4's deterministic backward, let through on sm90 in b5).
    pytest.param(
        "def backward(deterministic):\n"
        "    if torch.cuda.get_device_capability()[0] not in (10, 11):\n"
        "        if deterministic:\n"
        "            raise ValueError('deterministic only supported on sm100/sm110 for now')\n",
        "sm90",
        [(4, "likely-gap")],
        "a gap with a TODO: the message at line 6",
        id="a-nested-refusal-said-to-be-for-now",
    ),
    # ... not one that gives its reason.
    pytest.param(
        "if torch.cuda.get_device_capability()[0] != 10:\n"
        "    raise ValueError('currently requires tcgen05 (SM100)')\n",
        "sm120",
        [(3, "probably-deliberate")],
        "a hardware requirement: the message at line 4",
        id="message-says-currently-with-a-reason",
    ),
    # A conditional expression picking a name picks a path (sglang's `"fa4" if is_sm100
    # else "triton"`, widened to sm90 a release later) ...
    pytest.param(
        "backend = 'fa4' if is_sm90_supported() or is_sm100_supported() else 'triton'\n",
        "sm120",
        [(3, "likely-gap")],
        "enumerates 2 majors",
        id="conditional-expression-picks-a-name",
    ),
    # ... one picking sentences only words them.
    pytest.param(
        "note = 'fast path on' if is_sm90_supported() or is_sm100_supported() else 'slow path'\n",
        "sm120",
        [(3, "probably-deliberate")],
        "only picks a message",
        id="conditional-expression-picks-a-sentence",
    ),
    # Behind a likely gap, a gate that leaves the generation out again is the next one a
    # fix meets (vLLM 0.24.0 widened DeepGEMM's allowlist and the gates behind it) ...
    pytest.param(
        BEHIND,
        "sm120",
        [(4, "likely-gap"), (6, "likely-gap")],
        "enumerates 2 majors",
        id="behind-a-likely-gap",
    ),
    # ... not behind a documented exclusion.
    pytest.param(
        BEHIND.replace("(x):\n", "(x):\n    # SM120 lacks tcgen05\n"),
        "sm120",
        [(5, "probably-deliberate"), (7, "probably-deliberate")],
        "a hardware requirement",
        id="behind-a-documented-exclusion",
    ),
    # Majors of one family that is not the generation's test for that family: no
    # enumeration that forgot it (`arch // 10 in [10, 11]` audited for sm90) ...
    pytest.param(
        "major = torch.cuda.get_device_capability()[0]\n"
        "if major in (10, 11):\n"
        "    run_wide()\n"
        "hopper_check = is_sm90_supported\n",
        "sm90",
        [(4, "probably-deliberate")],
        "a Blackwell gate: admits only sm100, sm103, sm110",
        id="majors-of-one-other-family",
    ),
    # ... while for a generation of that family they are one.
    pytest.param(
        "major = torch.cuda.get_device_capability()[0]\n"
        "if major in (10, 11):\n"
        "    run_wide()\n"
        "elif is_sm90_supported():\n"
        "    run_hopper()\n",
        "sm120",
        [(4, "likely-gap"), (6, "likely-gap")],
        "enumerates 2 majors",
        id="majors-of-the-generations-family",
    ),
]


@pytest.mark.parametrize(("source", "generation", "expected", "reason"), CASES)
def test_classified_with_evidence(
    make_tree: MakeTree, source: str, generation: str, expected: list[tuple[int, str]], reason: str
) -> None:
    report = audit(make_tree, source, generation)
    assert verdicts(report) == expected
    assert_first_reason(report, "mod.py", reason)


NOOPS = [
    # A comment just above a test inside the branch speaks of that test (sglang 0.5.6's
    # `# workaround for flashinfer#2006` over a dp-attention check), not of the gate.
    pytest.param(
        "if is_sm90_supported() or is_sm100_supported():\n"
        "    # a workaround for a known issue with several nodes\n"
        "    if nnodes == 1:\n"
        "        fuse = True\n",
        [(3, "likely-gap")],
        id="a-nested-tests-comment-is-not-the-gates",
    ),
    # A parameter's docstring is not the gate's reason: "tokens for tuning" says what the
    # argument is for (flashinfer 0.6.3's fused MoE, whose gate says "not yet").
    pytest.param(
        "def fused_moe(x, tune_max_num_tokens=8192):\n"
        '    """tune_max_num_tokens: maximum number of tokens for tuning."""\n'
        "    if is_sm90_supported() or is_sm100_supported():\n"
        "        return fast(x)\n"
        "    return slow(x)\n",
        [(5, "likely-gap")],
        id="tokens-for-tuning-is-no-tuning-choice",
    ),
    # A ceiling at or above the generation, or another family excluded, says nothing of it.
    pytest.param(
        "if not (is_sm90_supported() or is_sm100_supported()):\n"
        "    raise RuntimeError('FA3 requires SM>=90 and SM<=120')\n",
        [(3, "likely-gap")],
        id="a-ceiling-above-the-generation",
    ),
    pytest.param(
        "if is_sm90_supported() or is_sm100_supported():\n    kernel = 'fused'\n"
        "else:\n    raise RuntimeError('fused runs on every arch except Hopper-less parts "
        "older than Ampere')\n",
        [(3, "likely-gap")],
        id="another-family-excluded",
    ),
    # Changed in place by something other than a number: not tuning.
    pytest.param(
        "def options(opts, extra):\n"
        "    if is_sm90_supported() or is_sm100_supported():\n"
        "        opts['flags'] += extra\n"
        "    return opts\n",
        [(4, "likely-gap")],
        id="adjusted-by-what-is-not-a-number",
    ),
    # Words that name a value, not a reason: 'tcgen05' picked as a kernel is not evidence.
    pytest.param(
        "if is_sm90_supported() or is_sm100_supported():\n    kernel = 'tcgen05'\n",
        [(3, "likely-gap")],
        id="a-value-is-not-a-sentence",
    ),
    # A message without the generation or a reason only restates the gate.
    pytest.param(
        "if not (is_sm90_supported() or is_sm100_supported()):\n"
        "    raise RuntimeError('only supported on SM90 and SM100')\n",
        [(3, "likely-gap")],
        id="restating-message",
    ),
    # Another generation's trouble says nothing about this one.
    pytest.param(
        "# NOTE: a performance regression on sm100 for this fusion\n"
        "if is_sm90_supported() or is_sm100_supported():\n"
        "    kernel = 'fused'\n",
        [(4, "likely-gap")],
        id="workaround-for-another-generation",
    ),
    # A message listing the parts of the family the gate admits restates it.
    pytest.param(
        "major = torch.cuda.get_device_capability()[0]\n"
        "if major != 10:\n"
        "    raise RuntimeError('requires the SM100 family (SM100, SM103, SM110)')\n",
        [(4, "probably-deliberate")],
        id="message-listing-the-family-restates",
    ),
    # A TODO about something else is not a gap's TODO.
    pytest.param(
        "# TODO: clean this up\nif is_sm100_supported():\n    kernel = 'trtllm'\n",
        [(4, "probably-deliberate")],
        id="unrelated-todo",
    ),
    # A default set before the ladder is its generic fallback.
    pytest.param(
        "major = torch.cuda.get_device_capability()[0]\n"
        "BLOCK = 64\n"
        "if major == 9:\n"
        "    BLOCK = 128\n"
        "elif major == 10:\n"
        "    BLOCK = 256\n",
        [(5, "probably-deliberate"), (7, "probably-deliberate")],
        id="ladder-with-a-default-before-it",
    ),
    # A chain of one-major tests for a generation alone is not an enumeration.
    pytest.param(
        "major = torch.cuda.get_device_capability()[0]\n"
        "if major == 9:\n"
        "    run_hopper()\n"
        "elif major == 9 and x:\n"
        "    run_other()\n",
        [(4, "probably-deliberate"), (6, "probably-deliberate")],
        id="chain-of-one-major",
    ),
    # Exact minor for the generation audited: sm120's own test admits it.
    pytest.param(
        "if torch.cuda.get_device_capability() == (12, 0):\n    kernel = 'mma_sm120'\n",
        [(3, "admits")],
        id="own-exact-minor",
    ),
    # A family named as unsupported, or only a part of it, is not asked for.
    pytest.param(
        "if not is_sm100_supported():\n"
        "    raise ValueError('requires Blackwell datacenter GPUs (SM100)')\n",
        [(3, "probably-deliberate")],
        id="part-of-the-family-is-not-the-family",
    ),
    pytest.param(
        "if is_sm100_supported():\n    raise ValueError('not supported on Blackwell')\n",
        [(3, "admits")],
        id="family-named-unsupported",
    ),
    # Said of the other branch, the family's name is a limitation, not the condition's.
    pytest.param(
        "def pick(version):\n"
        "    cap = torch.cuda.get_device_capability()\n"
        "    if cap[0] == 10 and version == 3:\n"
        "        version = 3\n"
        "    else:\n"
        "        logger.warning('Cannot use FA version 3 on Blackwell platform')\n"
        "    return version\n",
        [(5, "probably-deliberate")],
        id="family-said-unsupported-in-the-other-branch",
    ),
    # An else branch written for this generation's own major is not another's path.
    pytest.param(
        "if is_sm100_supported():\n"
        "    y = fast(x)\n"
        "else:\n"
        "    # SM120 and older: the slow path\n"
        "    y = slow(x)\n",
        [(3, "probably-deliberate")],
        id="else-branch-for-this-generation",
    ),
    # Checks registered under different backends are not siblings.
    pytest.param(
        "@supported_compute_capability([100, 103])\n"
        "def _deepgemm_check(a):\n"
        "    return True\n"
        "@supported_compute_capability([100, 103, 120])\n"
        "def _cudnn_check(a):\n"
        "    return True\n"
        "MM = {'deepgemm': _deepgemm_check, 'cudnn': _cudnn_check}\n",
        [(3, "probably-deliberate"), (6, "admits")],
        id="checks-of-other-backends",
    ),
    # Another branch of a dispatch speaks of another option, not of this gate.
    pytest.param(
        "def pick(backend):\n"
        "    if backend == 'a':\n"
        "        if not is_sm90_supported():\n"
        "            raise RuntimeError('backend a requires Hopper (SM90) GPUs')\n"
        "    elif backend == 'b':\n"
        "        raise RuntimeError('backend b requires SM90+ GPUs')\n",
        [(5, "probably-deliberate")],
        id="message-of-another-branch",
    ),
    # A failing condition that names this generation's major excludes it by name.
    pytest.param(
        "def build():\n"
        "    major, minor = torch.cuda.get_device_capability()\n"
        "    if major < 10 or major == 12:\n"
        "        raise RuntimeError(f'requires SM100+; SM{major}{minor} is unsupported')\n",
        [(5, "probably-deliberate")],
        id="failing-condition-names-the-major",
    ),
    # A flag true on this generation's line alone, an alternative of the failing
    # condition: the generation's own policy turns the feature off (sglang 0.5.23's
    # `no_splitkv = cap < (9, 0) or uses_arch_decode_policy`).
    pytest.param(
        "def plan(deterministic):\n"
        "    major, minor = torch.cuda.get_device_capability()\n"
        "    own_policy = major == 12\n"
        "    no_split = major < 9 or own_policy\n"
        "    return 1 if deterministic or no_split else 0\n",
        [(5, "admits"), (6, "probably-deliberate")],
        id="failing-flag-of-the-generations-own",
    ),
    # A flag true beyond this generation's line does not name it: the gap stands.
    pytest.param(
        "def plan(deterministic):\n"
        "    major, minor = torch.cuda.get_device_capability()\n"
        "    newer = major in (10, 12)\n"
        "    no_split = major < 9 or newer\n"
        "    return 1 if deterministic or no_split else 0\n",
        [(5, "admits"), (6, "likely-gap")],
        id="failing-flag-beyond-the-generations-line",
    ),
    # A name for an off state set by the condition: where it is true the feature is off.
    pytest.param(
        "def deprecated(bits):\n"
        "    sm = torch.cuda.get_device_capability()[0]\n"
        "    is_fp8_deprecated = bits < 16 and 10 <= sm < 12\n"
        "    return is_fp8_deprecated\n",
        [(5, "admits")],
        id="off-state-name-disables",
    ),
    # A kernel named for the generation it admits is that hardware's kernel.
    pytest.param(
        "def gemm_sm100(a):\n"
        "    if not is_sm100_supported():\n"
        "        raise RuntimeError('this Blackwell GEMM supports SM100')\n",
        [(4, "probably-deliberate")],
        id="kernel-named-for-what-it-admits",
    ),
    # A refusal inside a sibling check that passes the generation is not the sibling's
    # admission: its declared list leaves the generation out (FlashInfer 0.6.6's
    # `_cudnn_gemm_fp4_requirement`: [100, 103, 110, 120, 121], then a raise for sm12x
    # with an old cuDNN, which "admits" sm90).
    pytest.param(
        "@supported_compute_capability([100, 103])\n"
        "def _cudnn_mm_check(a):\n"
        "    return True\n"
        "@supported_compute_capability([100, 103])\n"
        "def _cudnn_fp4_check(a):\n"
        "    if is_sm90_supported() and old_cudnn():\n"
        "        raise ValueError('cuDNN too old')\n"
        "    return True\n"
        "MM = {'cudnn': _cudnn_mm_check}\n"
        "FP4 = {'cudnn': _cudnn_fp4_check}\n",
        [(3, "probably-deliberate"), (6, "probably-deliberate"), (8, "admits")],
        id="a-refusal-in-a-sibling-is-not-its-admission",
    ),
    # A module-level gate has no function whose messages speak for it.
    pytest.param(
        "assert x, 'requires SM90+'\nif is_sm100_supported():\n    kernel = 'trtllm'\n",
        [(4, "probably-deliberate")],
        id="module-level-messages-are-not-a-function",
    ),
]


@pytest.mark.parametrize(("source", "expected"), NOOPS)
def test_evidence_noops(make_tree: MakeTree, source: str, expected: list[tuple[int, str]]) -> None:
    assert verdicts(audit(make_tree, source)) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("SM120 does NOT support it", True),
        ("not supported on the SM12x family", True),
        ("sm_120 (consumer Blackwell) and earlier are not supported", True),
        ("FlashAttention is not supported on SM12.x in this build", True),
        ("every SM10x part has them", False),  # no sm120, and no negative
        ("supported on SM120", False),
        ("not supported on SM121", False),  # another minor of the major is another device
        ("requires SM100+ excluding SM12x", True),
        ("the kernel targets SM100+ except SM12x", True),
    ],
)
def test_says_unsupported_here(text: str, expected: bool) -> None:
    words = evidence.Words(1, "comment", text)
    assert (evidence.says_unsupported_here(words, SM120) is not None) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("requires SM90+", True),
        ("MXFP8 requires Blackwell (SM100+)", True),
        ("needs sm_80 or newer", True),
        ("compute capability >= 9.0", True),
        ("requires SM121+", False),
        ("SM90 only", False),
        # Where a refusal applies, not what is asked for (TransformerEngine's debug line) ...
        ("Disabling FusedAttention on arch >= sm100 with determinism for cuDNN < 9.18", False),
        ("FP8 is not supported on SM90+ with this cuDNN", False),
        # ... unless it says what is required.
        ("FP8 is not supported here: requires SM90+", True),
        ("falling back: the kernel needs sm_80 or newer", True),
    ],
)
def test_asks_for_more(text: str, expected: bool) -> None:
    words = evidence.Words(1, "message", text)
    assert (evidence.asks_for_more(words, SM120) is not None) is expected


def test_comments_are_read_with_their_lines() -> None:
    found = evidence.comments("x = 1  # one\n# two\ns = '# not a comment'\n")
    assert [(w.line, w.text) for w in found] == [(1, "one\ntwo")]  # one note, two lines


def test_the_allowlist_read_through_a_name_is_shown(make_tree: MakeTree) -> None:
    source = (
        "SUPPORTED = [9, 10]\n"
        "if torch.cuda.get_device_capability()[0] not in SUPPORTED:\n"
        "    raise RuntimeError('unsupported GPU')\n"
    )
    (gate,) = [g for g in audit(make_tree, source).gates if g.path.name == "mod.py"]
    assert gate.gate_class.value == "likely-gap"
    assert "the allowlist is 'SUPPORTED' at line 3: [9, 10]" in gate.reasons


@pytest.mark.parametrize(
    ("text", "generation", "documents"),
    [
        ("emits TCGEN05 instructions", "sm120", True),
        ("emits TCGEN05 instructions", "sm110", False),
        ("emits TCGEN05 instructions", "sm103", False),
        ("2-CTA: remap dQaccum into a TMEM view", "sm110", False),
        ("2-CTA: remap dQaccum into a TMEM view", "sm121", True),
        ("a wgmma mainloop", "sm90", False),
        ("a wgmma mainloop", "sm100", True),
        # one feature it has and one it lacks: the one it lacks documents
        ("wgmma or tcgen05", "sm110", True),
        # listed for no generation: missing everywhere
        ("needs cvt.rs", "sm100", True),
        ("sparse mma.sp path", "sm120", False),
        ("sparse mma.sp path", "sm75", True),
        # no hardware named
        ("a faster path", "sm120", False),
    ],
)
def test_hardware_words_document_only_what_the_generation_lacks(
    text: str, generation: str, documents: bool
) -> None:
    words = evidence.Words(text=text, kind="comment", line=1)
    found = evidence.names_missing_hardware(words, REGISTRY.get(generation))
    assert (found is not None) is documents


@pytest.mark.parametrize(
    ("identifiers", "generation", "documents"),
    [
        (["use_2cta_instrs"], "sm120", True),
        (["use_2cta_instrs"], "sm103", False),
        (["self", "use_tcgen05"], "sm121", True),
        (["is_wgmma_path"], "sm90", False),
        # a part of a word is no feature
        (["postmortem", "stmem_count"], "sm120", False),
        (["use_fast_path"], "sm120", False),
    ],
)
def test_names_spell_hardware(identifiers: list[str], generation: str, documents: bool) -> None:
    found = evidence.names_hardware(identifiers, REGISTRY.get(generation))
    assert (found is not None) is documents


def test_every_registry_hardware_feature_has_its_spelling() -> None:
    from gatecheck.config.schema import HARDWARE

    assert set(evidence.HARDWARE_WORDS) == set(HARDWARE)
    for generation in REGISTRY.generations:
        assert generation.hardware <= set(HARDWARE)


def test_a_gate_behind_a_likely_gap_says_so(make_tree: MakeTree) -> None:
    report = audit(make_tree, BEHIND)
    inner = next(g for g in report.gates if g.path.name == "mod.py" and g.found.line == 6)
    assert inner.reasons[0].endswith("behind the likely gap at line 4")


SUPPORTS = (
    "def supports(prefill):\n"
    "    if is_sm90_supported():\n"
    "        return not prefill\n"
    "    return is_sm100_supported()\n"
    "\n\n"
    "def use_xqa(prefill, fp8):\n"
    "    if not supports(prefill):\n"
    "        return False\n"
    "    if is_sm90_supported() and fp8:\n"
    "        return True\n"
    "    return False\n"
)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # A family sibling's test behind a likely gap reached through a call of its
        # gate function (a hop), as behind a gate written out.
        pytest.param(
            SUPPORTS.replace("if is_sm90_supported() and fp8", "if is_sm100_supported() and fp8"),
            ("likely-gap", "of sm120's family (Blackwell); behind the likely gap at line 10"),
            id="a-family-sibling-behind-a-call",
        ),
        # Noops: a test of another family behind it picks among the generations the gate
        # in front lets through (sglang 0.5.23's `if get_platform().is_sm90:` inside `if
        # is_sm100 or is_sm90`), written as that gate's or not; the gate in front is no
        # likely gap.
        pytest.param(SUPPORTS, ("probably-deliberate", "only reached on"), id="noop-restated"),
        pytest.param(
            SUPPORTS.replace(
                "if is_sm90_supported() and fp8",
                "if torch.cuda.get_device_capability()[0] == 9 and fp8",
            ),
            ("probably-deliberate", "only reached on"),
            id="noop-another-test",
        ),
        pytest.param(
            "# SM120 lacks tcgen05: no XQA or TRTLLM kernels there.\n"
            + SUPPORTS.replace("if is_sm90_supported() and fp8", "if is_sm100_supported() and fp8"),
            ("probably-deliberate", "only reached on"),
            id="noop-the-gate-in-front-documented",
        ),
    ],
)
def test_a_gate_behind_a_call_of_a_likely_gap(
    make_tree: MakeTree, source: str, expected: tuple[str, str]
) -> None:
    report = audit(make_tree, source)
    last = max(mod_gates(report), key=lambda g: g.found.line)
    assert last.gate_class.value == expected[0], last.reasons
    assert any(expected[1] in r for r in last.reasons), last.reasons


CHAIN = (
    "def pick():\n"
    "    if is_sm90_supported():\n"
    "        return 'xqa'\n"
    "    elif is_sm100_supported():\n"
    "        return 'trtllm'\n"
    "    return 'fa2'\n"
)
# (snippet after CHAIN, expected (line, class) of mod.py, the restating gate's reason piece)
RESTATED = [
    pytest.param(
        CHAIN + "\n\ndef query_dtype(fp8):\n    if is_sm90_supported() and fp8:\n"
        "        return 'bf16'\n    return 'fp8'\n",
        [(4, "likely-gap"), (6, "likely-gap"), (12, "likely-gap")],
        "the same test as a branch of the chain at line 4, a likely gap",
        id="a-branch-test-restated",  # vLLM 0.27.1 -> 0.28.0 (fix study J, J4)
    ),
    pytest.param(
        CHAIN + "\n\ndef query_dtype(fp8):\n    if is_sm100_supported() and fp8:\n"
        "        return 'bf16'\n    return 'fp8'\n",
        [(4, "likely-gap"), (6, "likely-gap"), (12, "likely-gap")],
        "the same test as a branch of the chain at line 4, a likely gap",
        id="an-elif-test-restated",
    ),
    # Noops: the chain is no likely gap (documented); the test is not the chain's; the
    # gate disables.
    pytest.param(
        CHAIN.replace("is_sm100_supported", "is_sm120_supported")
        + "\n\ndef query_dtype(fp8):\n    if is_sm90_supported() and fp8:\n"
        "        return 'bf16'\n    return 'fp8'\n",
        [(4, "probably-deliberate"), (6, "admits"), (12, "probably-deliberate")],
        "",
        id="noop-the-chain-no-gap",
    ),
    pytest.param(
        CHAIN + "\n\ndef query_dtype(fp8):\n    if torch.cuda.get_device_capability() == (9, 0):\n"
        "        return 'bf16'\n    return 'fp8'\n",
        [(4, "likely-gap"), (6, "likely-gap"), (12, "probably-deliberate")],
        "",
        id="noop-another-test",
    ),
    pytest.param(
        CHAIN + "\n\ndef query_dtype(fp8):\n    if is_sm90_supported() and fp8:\n"
        "        raise ValueError('fp8 queries')\n",
        [(4, "likely-gap"), (6, "likely-gap"), (12, "admits")],
        "",
        id="noop-a-refusal",
    ),
    pytest.param(
        CHAIN + "\n\ndef tiles(fp8):\n    if is_sm90_supported():\n"
        "        if fp8:\n            n_block = 192\n",
        [(4, "likely-gap"), (6, "likely-gap"), (12, "probably-deliberate")],
        "",
        id="noop-tiles-tuned",
    ),
    pytest.param(
        CHAIN + "\n\ndef other(fp8):\n    if is_sm90_supported():\n"
        "        return 'a'\n    else:\n        return 'b'\n",
        [(4, "likely-gap"), (6, "likely-gap"), (12, "probably-deliberate")],
        "",
        id="noop-a-dispatch-of-its-own",
    ),
]


@pytest.mark.parametrize(("source", "expected", "reason"), RESTATED)
def test_a_restated_branch_of_a_likely_gap_chain(
    make_tree: MakeTree, source: str, expected: list[tuple[int, str]], reason: str
) -> None:
    report = audit(make_tree, source, "sm120")
    assert verdicts(report) == expected
    last = max(mod_gates(report), key=lambda g: g.found.line)
    restated = [r for r in last.reasons if "the same test as a branch" in r]
    assert [r.split("; ", 1)[1] for r in restated] == ([reason] if reason else [])


FORCED = (
    "def backend(selected, block_size):\n"
    "    if selected == 'cutlass' or (\n"
    "        {auto} and selected is None and block_size == 128\n"
    "    ):\n"
    "        return 'cutlass'\n"
    "    return 'triton'\n"
)


@pytest.mark.parametrize(
    ("auto", "generation", "expected"),
    [
        # vLLM 0.10.1.1's CUTLASS MLA choice, widened to sm103 in 0.12.0: forced anywhere,
        # chosen by itself only on (10, 0).
        pytest.param(
            "torch.cuda.get_device_capability() == (10, 0)",
            "sm103",
            ("likely-gap", "admits sm103 only when 'selected == 'cutlass''"),
            id="chosen-by-itself-on-a-sibling-only",
        ),
        pytest.param(
            "(is_sm90_supported() or is_sm100_supported())",
            "sm120",
            ("likely-gap", "admits sm120 only when"),
            id="chosen-by-itself-on-two-majors",
        ),
        # Noops: the automatic choice admits the generation; it is a deliberate one.
        pytest.param(
            "torch.cuda.get_device_capability()[0] == 10",
            "sm103",
            ("admits", "admits sm103"),
            id="noop-the-automatic-choice-admits-it",
        ),
        pytest.param(
            "is_sm90_supported()",
            "sm120",
            ("admits", "admits sm120"),
            id="noop-a-single-generation-choice",
        ),
    ],
)
def test_a_forced_choice_is_read_without_the_force(
    make_tree: MakeTree, auto: str, generation: str, expected: tuple[str, str]
) -> None:
    report = audit(make_tree, FORCED.format(auto=auto), generation)
    (gate,) = mod_gates(report)
    assert gate.gate_class.value == expected[0], gate.reasons
    assert gate.reasons[0].startswith(expected[1]), gate.reasons
