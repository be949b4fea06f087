"""A module's `__getattr__` (PEP 562) answers for a name the module binds nowhere
(semantics/bindings.getattr_hook): DeepSpeed's `deepspeed.HAS_TRITON`, made on first
use by a module function, is read from the hook's body; so is a name declared only for
type checkers (`if TYPE_CHECKING: VLLM_FLASH_ATTN_VERSION: Optional[int] = None`, vLLM's
envs), which the module does not bind when it runs."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from tests.admission import EVERY, assert_can_be_true

FROM_SM80 = frozenset(
    {"sm80", "sm86", "sm87", "sm89", "sm90", "sm100", "sm103", "sm110", "sm120", "sm121"}
) | {"gfx90a", "gfx942", "gfx950"}  # ROCm reports the gfx9 parts as capability 9.x
HOOKED = """\
import torch

READY = True

def _has_triton():
    return torch.cuda.get_device_capability()[0] >= 8

def __getattr__(name):
    if name == "HAS_TRITON":
        return _has_triton()
    if name == "READY":
        return False
    raise AttributeError(name)
"""

DECLARED = """\
import torch
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    HAS_TRITON: bool = False

_TABLE = {"HAS_TRITON": lambda: torch.cuda.get_device_capability()[0] >= 8}

def __getattr__(name):
    if name in _TABLE:
        return _TABLE[name]()
    raise AttributeError(name)
"""

DECLARED_ONLY = """\
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    HAS_TRITON: bool = False
"""

CASES = [
    pytest.param("import mypkg\n", "mypkg.HAS_TRITON", FROM_SM80, id="module-attribute"),
    pytest.param("from mypkg import HAS_TRITON\n", "HAS_TRITON", FROM_SM80, id="imported-name"),
    # Noops: a bound name never reaches the hook; a name it raises for is no value.
    pytest.param(
        "import mypkg, torch\n",
        "mypkg.READY and torch.cuda.get_device_capability()[0] >= 8",
        FROM_SM80,
        id="a-bound-name-is-not-asked",
    ),
    pytest.param("import mypkg\n", "mypkg.OTHER", EVERY, id="a-name-the-hook-raises-for"),
    pytest.param("import mypkg\n", 'mypkg.__doc__ == "x"', EVERY, id="a-dunder-is-not-asked"),
]

DECLARED_CASES = [
    pytest.param(DECLARED, "mypkg.HAS_TRITON", FROM_SM80, id="declared-for-type-checkers"),
    pytest.param(DECLARED, "HAS_TRITON", FROM_SM80, id="declared-and-imported", marks=[]),
    # Noop: without a hook, what runs binds nothing the analysis can read.
    pytest.param(DECLARED_ONLY, "mypkg.HAS_TRITON", EVERY, id="declared-without-a-hook"),
]


@pytest.mark.parametrize(("source", "expr", "expected"), CASES)
def test_module_getattr(ruleset: RuleSet, source: str, expr: str, expected: object) -> None:
    assert_can_be_true(ruleset, source, expr, expected, modules={"mypkg": HOOKED})


@pytest.mark.parametrize(("module", "expr", "expected"), DECLARED_CASES)
def test_declared_names_ask_the_hook(
    ruleset: RuleSet, module: str, expr: str, expected: object
) -> None:
    source = "from mypkg import HAS_TRITON\n" if expr == "HAS_TRITON" else "import mypkg\n"
    assert_can_be_true(ruleset, source, expr, expected, modules={"mypkg": module})
