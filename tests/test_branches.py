"""What a branch does to its feature (gatecheck/gates/branches.py): each idiom as
`(source, expected)` pairs, and the noops that must not be read as disabling."""

from __future__ import annotations

import textwrap

import astroid
import pytest
from astroid import nodes

from gatecheck.gates.branches import (
    branch_disables,
    branch_exits,
    names_fallback,
    only_reports,
    tunes_numbers,
)


def first_if(source: str) -> nodes.If:
    module = astroid.parse(textwrap.dedent(source))
    return next(module.nodes_of_class(nodes.If))


DISABLING = [
    pytest.param("if c:\n    raise RuntimeError('no')\n", id="raise"),
    pytest.param("def f():\n    if c:\n        return\n", id="bare-return"),
    pytest.param("def f():\n    if c:\n        return False\n", id="return-false"),
    pytest.param(
        "def f():\n    if c:\n        return False, 'needs SM90'\n", id="return-false-reason"
    ),
    pytest.param("def f():\n    if c:\n        return None, 'no'\n", id="return-none-reason"),
    pytest.param("if c:\n    use_fa = False\n", id="flag-false"),
    pytest.param("if c:\n    self.enable_fusion = None\n", id="attribute-none"),
    pytest.param("if c:\n    disable_cuda_graph = True\n", id="disable-flag-true"),
    pytest.param("if c:\n    backend = 'torch_sdpa'\n", id="fallback-string"),
    pytest.param("if c:\n    pytest.skip('needs Hopper')\n", id="pytest-skip"),
    pytest.param("if c:\n    self.skipTest('needs Hopper')\n", id="unittest-skip"),
    pytest.param("if c:\n    sys.exit(1)\n", id="sys-exit"),
    pytest.param("if c:\n    self.log_and_exit('unsupported')\n", id="log-and-exit"),
    pytest.param(
        "def check_fa3_support():\n    if c:\n        return 'FA3 needs Hopper'\n",
        id="reason-from-check-helper",
    ),
    pytest.param(
        "def unsupported_reason():\n    if c:\n        return f'not on {name}'\n",
        id="f-string-from-reason-helper",
    ),
    pytest.param(
        "def pick():\n    if c:\n        return AttentionBackend.TORCH_SDPA\n",
        id="return-fallback-backend",
    ),
    pytest.param(
        "def pick():\n"
        "    if c:\n"
        "        logger.warning('FA is not supported here, falling back')\n"
        "        return Triton()\n",
        id="warning-then-fallback",
    ),
    pytest.param(
        "if c:\n    logger.info('no FA')\n    raise ValueError('no')\n", id="log-then-raise"
    ),
    pytest.param(
        "def validate(self):\n"
        "    if c:\n"
        "        logger.warning_once('FP8 is only supported on 8.9+: we will default to bf16')\n"
        "        self.config.dequantize = True\n"
        "        return\n",
        id="warning-that-it-defaults-then-return",  # transformers' FP8 quantizer
    ),
    pytest.param("if c:\n    unsupported.append('needs SM80')\n", id="records-a-problem"),
    pytest.param("if c:\n    envs.SGLANG_OPT_FP8_GEMM.set(False)\n", id="setter-off"),
    pytest.param("if c:\n    setattr(args, 'enable_x', False)\n", id="setattr-off"),
    pytest.param(
        "def capability_error(dev):\n"
        "    if c:\n"
        "        return f'needs sm_89 or newer, got {dev}'\n"
        "    elif dev is None:\n"
        "        return\n"
        "    return None\n",
        id="sentence-or-none",
    ),
    pytest.param(
        "def combination(a, b):\n    if c:\n        return 'sinks need SM90'\n",
        id="sentence-or-falls-through",
    ),
    pytest.param(
        "def combination(a, b):\n"
        "    if c:\n"
        "        return 'sinks need SM90'\n"
        "    if a:\n"
        "        return f'{a} is not supported'\n"
        "    return None\n",
        id="one-of-several-reasons-or-none",
    ),
]


@pytest.mark.parametrize("source", DISABLING)
def test_disabling_bodies(source: str) -> None:
    assert branch_disables(first_if(source).body)


ENABLING = [
    pytest.param("if c:\n    use_fa = True\n", id="flag-true"),
    pytest.param("def f():\n    if c:\n        return True\n", id="return-true"),
    pytest.param("def f():\n    if c:\n        return True, ''\n", id="return-true-tuple"),
    pytest.param(
        "def pick():\n    if c:\n        return 'fa3'\n", id="string-outside-a-reason-helper"
    ),
    pytest.param("def pick():\n    if c:\n        return FlashAttention()\n", id="fast-backend"),
    pytest.param(
        "def pick():\n    if c:\n        return 'fa3'\n    return None\n",
        id="word-or-none-is-a-choice",
    ),
    pytest.param(
        "def describe():\n    if c:\n        return 'uses the fast path'\n    return 'slow one'\n",
        id="sentence-among-other-answers",
    ),
    pytest.param(
        "def f():\n"
        "    def g():\n"
        "        return 'x y'\n"
        "    if c:\n"
        "        return 'a sentence'\n"
        "    return g\n",
        id="sentence-beside-a-value",
    ),
    pytest.param("if c:\n    kernel = 'cutlass'\n", id="kernel-pick"),
    pytest.param("if c:\n    fast_path(x)\n", id="call"),
    pytest.param("if c:\n    envs.SGLANG_OPT_FP8_GEMM.set(True)\n", id="setter-on"),
    pytest.param("if c:\n    token = var.set(False)\n", id="setter-result-kept"),
    pytest.param("if c:\n    _emitted.set(None)\n", id="context-variable-reset"),
    pytest.param("if c:\n    kernels.append(fast)\n", id="collects-a-kernel"),
    pytest.param("if c:\n    m_block = 64\n    swap_ab = False\n", id="tuning-knobs"),
    pytest.param("if c:\n    logger.info('using FA3')\n", id="only-logs"),
    pytest.param(
        "if c:\n    logger.info('the default tile')\n    run_fast(x)\n",
        id="a-log-naming-a-default-then-work",
    ),
    pytest.param("if c:\n    use_fa = True\n    use_x = False\n", id="first-switch-decides"),
    pytest.param(
        "if c:\n    logger.warning('falling back to SDPA')\n", id="warning-alone-is-a-report"
    ),
]


@pytest.mark.parametrize("source", ENABLING)
def test_enabling_bodies_noop(source: str) -> None:
    assert not branch_disables(first_if(source).body)


@pytest.mark.parametrize(
    ("source", "flags", "expected"),
    [
        pytest.param("if c:\n    enable_x = False\n", {"enable_x"}, True, id="rule-flag-off"),
        pytest.param("if c:\n    use_fa = False\n", {"enable_x"}, False, id="other-flag-noop"),
        pytest.param("if c:\n    enable_x = None\n", {"enable_x"}, False, id="none-is-not-off"),
        pytest.param(
            "def f():\n    if c:\n        return False, 'r'\n", {"x"}, False, id="tuple-noop"
        ),
    ],
)
def test_check_reads_only_its_flags(source: str, flags: set[str], expected: bool) -> None:
    # check's rule flags: its answers stay what they were (see compare_answers).
    assert branch_disables(first_if(source).body, flags) is expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param("def f():\n    if c:\n        return\n", True, id="return"),
        pytest.param("if c:\n    pytest.skip('x')\n", True, id="skip"),
        pytest.param("def f():\n    if c:\n        return False, 'r'\n", True, id="reason"),
        pytest.param("if c:\n    use_fa = False\n", False, id="switch-is-not-an-exit"),
        pytest.param("if c:\n    logger.warning('fall back')\n", False, id="log-is-not-an-exit"),
    ],
)
def test_early_exits(source: str, expected: bool) -> None:
    assert branch_exits(first_if(source).body) is expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("'torch_sdpa'", True),
        ("Backend.NAIVE", True),
        ("FallbackImpl()", True),
        ("TorchNativeAttention", True),
        ("'flashinfer'", False),
        ("Backend.FLASH_ATTN", False),
        ("signature", False),  # no word of it is a fallback word
    ],
)
def test_fallback_names(value: str, expected: bool) -> None:
    assignment = astroid.extract_node(f"x = {value}")
    assert names_fallback(assignment.value) is expected


def branches_of(statement: nodes.If) -> list[list[nodes.NodeNG]]:
    out: list[list[nodes.NodeNG]] = []
    node: nodes.NodeNG = statement
    while isinstance(node, nodes.If):
        out.append(list(node.body))
        if len(node.orelse) == 1 and isinstance(node.orelse[0], nodes.If):
            node = node.orelse[0]
        else:
            out.append(list(node.orelse))
            break
    return [b for b in out if b]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param("if c:\n    logger.info('Hopper')\n", True, id="log"),
        pytest.param(
            "if c:\n    msg = 'on Hopper'\nelse:\n    msg = f'on {x}'\n", True, id="message"
        ),
        pytest.param("if c:\n    warnings.warn('slow')\n    pass\n", True, id="warn"),
        pytest.param("if c:\n    logger.info('x')\n    use_fa = True\n", False, id="and-a-switch"),
        pytest.param("if c:\n    pass\n", False, id="nothing-at-all"),
        pytest.param("if c:\n    kernel = 'cutlass'\n", False, id="a-kernel-is-not-a-message"),
    ],
)
def test_only_reports(source: str, expected: bool) -> None:
    assert only_reports(branches_of(first_if(source))) is expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param(
            "if c:\n    BLOCK = 128\nelif d:\n    BLOCK = 256\nelse:\n    BLOCK = 64\n",
            True,
            id="ladder-with-fallback",
        ),
        pytest.param(
            "if c:\n    cfg = {'m': 64, 'n': 4 * 32}\nelse:\n    cfg = {'m': 32, 'n': 64}\n",
            True,
            id="table",
        ),
        pytest.param("if c:\n    BLOCK = 128\n", False, id="no-fallback-noop"),
        pytest.param("if c:\n    x = 1\nelse:\n    x = 0\n", False, id="one-or-zero-is-an-answer"),
        pytest.param(
            "if c:\n    BLOCK = 128\nelse:\n    BLOCK = None\n", False, id="none-is-not-a-number"
        ),
        pytest.param("if c:\n    use_fa = True\nelse:\n    use_fa = False\n", False, id="flags"),
    ],
)
def test_tuning(source: str, expected: bool) -> None:
    statement = first_if(source)
    branches = branches_of(statement)
    has_fallback = bool(branches) and len(branches) > 1
    assert tunes_numbers(branches, has_fallback) is expected
