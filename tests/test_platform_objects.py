"""One of several platforms' objects (DeepSpeed's `get_accelerator()`: a CUDA_Accelerator,
CPU_Accelerator or MLU_Accelerator, made by whichever branch a runtime probe takes): a
method called on it is the device vendor's class's, told apart by the classes' names
(semantics/dispatch.served_options), the answer marked assumed. ROCm's PyTorch is the
"cuda" device: with no class named for AMD, an AMD GPU gets the CUDA class. Pure: in
memory."""

from __future__ import annotations

import pytest

from gatecheck.audit.widening import _defined_names
from gatecheck.config.model import RuleSet
from gatecheck.semantics.admitted import admission_of
from tests.admission import EVERY, assert_can_be_true

NVIDIA_FROM_SM80 = frozenset(
    {"sm80", "sm86", "sm87", "sm89", "sm90", "sm100", "sm103", "sm110", "sm120", "sm121"}
)
GFX9 = frozenset({"gfx90a", "gfx942", "gfx950"})  # ROCm reports capability 9.x

CUDA = """\
import os, torch

class CUDA_Accelerator:
    def triton_ok(self):
        major, _ = torch.cuda.get_device_capability()
        return major >= 8
"""


def _other(name: str, answer: bool) -> str:
    return f"\nclass {name}:\n    def triton_ok(self):\n        return {answer}\n"


def _chooser(*classes: str) -> str:
    """`get()`: an object of one of `classes`, by a name read from the environment."""
    lines = ["\ndef get():", "    name = os.environ.get('ACCEL')", "    acc = None"]
    for i, cls in enumerate(classes):
        keyword = "if" if i == 0 else "elif"
        lines += [f"    {keyword} name == {cls!r}:", f"        acc = {cls}()"]
    return "\n".join([*lines, "    return acc", ""])


CASES = [
    pytest.param(
        CUDA
        + _other("MLU_Accelerator", True)
        + _other("CPU_Accelerator", False)
        + _chooser("CUDA_Accelerator", "MLU_Accelerator", "CPU_Accelerator"),
        NVIDIA_FROM_SM80 | GFX9,
        id="the-vendors-class-among-other-platforms",
    ),
    pytest.param(
        CUDA
        + _other("Rocm_Accelerator", False)
        + _other("XPU_Accelerator", True)
        + _chooser("CUDA_Accelerator", "Rocm_Accelerator", "XPU_Accelerator"),
        NVIDIA_FROM_SM80,
        id="amd-has-a-class-of-its-own",
    ),
    pytest.param(
        CUDA
        + "".join(_other(f"{p}_Accelerator", True) for p in ("CPU", "XPU", "NPU", "MLU"))
        + "".join(_other(f"{p}_Accelerator", True) for p in ("HPU", "MPS", "SDAA", "SUPA"))
        + "".join(_other(f"{p}_Accelerator", True) for p in ("KLXPU",))
        + _chooser(
            "CUDA_Accelerator",
            "CPU_Accelerator",
            "XPU_Accelerator",
            "NPU_Accelerator",
            "MLU_Accelerator",
            "HPU_Accelerator",
            "MPS_Accelerator",
            "SDAA_Accelerator",
            "SUPA_Accelerator",
            "KLXPU_Accelerator",
        ),
        NVIDIA_FROM_SM80 | GFX9,
        id="ten-platforms",  # more than logic.MAX_OPTIONS: references are kept to 16
    ),
    # Noops: the choice is not a platform's.
    pytest.param(
        CUDA + _other("Eager", True) + _chooser("CUDA_Accelerator", "Eager"),
        EVERY,
        id="a-class-named-for-no-platform-among-them",
    ),
    pytest.param(
        CUDA.replace("CUDA_Accelerator", "CudaGraphRunner")
        + _other("CudaEagerRunner", True)
        + _chooser("CudaGraphRunner", "CudaEagerRunner"),
        EVERY,
        id="two-classes-named-for-the-vendor",
    ),
]


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_a_method_of_the_vendors_platform_object(
    ruleset: RuleSet, source: str, expected: object
) -> None:
    assert_can_be_true(ruleset, source, "get().triton_ok()", expected)


def test_the_choice_is_marked_assumed(ruleset: RuleSet) -> None:
    source = (
        CUDA + _other("CPU_Accelerator", False) + _chooser("CUDA_Accelerator", "CPU_Accelerator")
    )
    admission = admission_of(source, "get().triton_ok()", ruleset.registry)
    assert any("runtime platform dispatch, by class name" in a for a in admission.assumed)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("def f():\n    pass\n", ["f"]),
        ("class CUDA_Accelerator:\n    def ok(self):\n        pass\n", ["ok"]),
        # Another platform's method makes no name a protocol's (audit/widening.py).
        ("class MLU_Accelerator:\n    def ok(self):\n        pass\n", []),
        (
            "class CPU_Accelerator:\n    def ok(self):\n        pass\n\ndef helper():\n    pass\n",
            ["helper"],
        ),
        ("class XPUPlatform:\n    class Inner:\n        def ok(self):\n            pass\n", ["ok"]),
        ("class RocmPlatform:\n    async def ok(self):\n        pass\n", ["ok"]),
    ],
)
def test_names_defined_for_the_widening(text: str, expected: list[str]) -> None:
    assert list(_defined_names(text)) == expected
