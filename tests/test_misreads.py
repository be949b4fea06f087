"""Smaller misreads of real code (issue 17, item 5), as (source, expr, admitted) tables
against the pure entry point."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from tests.admission import EVERY, assert_can_be_true

BLACKWELL_12 = frozenset({"sm120", "sm121"})

CASES = [
    pytest.param(
        "import _ext",
        'getattr(_ext, "fp8_gemm", None) is None',
        EVERY,
        id="getattr-default-is-unknown",
    ),
    pytest.param(
        "import torch",
        'getattr(torch.version, "hip", None) is not None',
        frozenset({"gfx90a", "gfx942", "gfx950"}),
        id="getattr-default-of-an-idiom-keeps-its-value",
    ),
    pytest.param(
        "import torch",
        'bool(getattr(getattr(torch, "version", None), "hip", None))',
        frozenset({"gfx90a", "gfx942", "gfx950"}),
        id="nested-getattr-defaults-read-each-option",
    ),
    pytest.param(
        "import torch",
        'getattr(getattr(torch, "version", None), "cuda", None) is not None',
        frozenset({"sm70", "sm75", "sm80", "sm86", "sm87", "sm89", "sm90", "sm100", "sm103"})
        | frozenset({"sm110", "sm120", "sm121"}),
        id="nested-getattr-defaults-cuda-release",
    ),
    pytest.param(
        "import _ext",
        'getattr(getattr(_ext, "ops", None), "fp8_gemm", None) is None',
        EVERY,
        id="nested-getattr-of-an-unclaimed-name-stays-unknown",
    ),
    pytest.param(
        "def vendor():\n"
        "    try:\n"
        "        import pynvml\n"
        '        return "nvidia"\n'
        "    except Exception:\n"
        '        return "amd"\n',
        'vendor() == "amd"',
        EVERY,
        id="vendor-string-on-every-path-is-unknown",
    ),
    pytest.param(
        "import os, torch\n"
        "use = torch.cuda.get_device_capability()[0] == 12\n"
        'if os.environ.get("X"):\n'
        "    use = False\n",
        "use",
        BLACKWELL_12,
        id="flag-rebound-under-if-keeps-device-dependence",
    ),
    pytest.param(
        "import _ext",
        "_ext.get_device_compute_capability() >= (12, 0)",
        BLACKWELL_12,
        id="compiled-extension-capability-by-name",
    ),
    pytest.param(
        'import os, torch\nkind = "fp8" if os.environ.get("FP8") else "bf16"\n',
        "isinstance(kind, str) and torch.cuda.get_device_capability()[0] == 12",
        BLACKWELL_12,
        id="isinstance-of-one-of-two-strings",
    ),
    pytest.param(
        'import os, torch\nkind = "fp8" if os.environ.get("FP8") else 8\n',
        "not isinstance(kind, str) or torch.cuda.get_device_capability()[0] == 12",
        EVERY,
        id="isinstance-of-options-that-disagree-is-unknown",
    ),
]


@pytest.mark.parametrize(("source", "expr", "admitted"), CASES)
def test_misread(ruleset: RuleSet, source: str, expr: str, admitted: object) -> None:
    assert_can_be_true(ruleset, source, expr, admitted)
