"""`torch.cuda.is_bf16_supported()`: true on ROCm and, on CUDA, wherever the device's
major is 8 (Ampere) or more; below that it is true only where bfloat16 is emulated
(`including_emulation`, true by default since torch 2.3: a tensor is made to find out),
which the call's arguments and the torch release decide: unknown there."""

from __future__ import annotations

from collections.abc import Sequence

from gatecheck.config.model import Generation
from gatecheck.semantics.idioms._model import Example, Idiom, Intrinsic, Noop, generations
from gatecheck.semantics.values import UNKNOWN, Value


def bf16_supported(generation: Generation, _args: Sequence[Value] = ()) -> Value:
    if generation.vendor != "nvidia" or generation.capability[0] >= 8:
        return True
    return UNKNOWN


_PRE_AMPERE = ("sm70", "sm75")

IDIOM = Idiom(
    name="bfloat16 support",
    calls=(Intrinsic("torch.cuda.is_bf16_supported", bf16_supported),),
    examples=(
        Example(
            "not-supported",
            "not torch.cuda.is_bf16_supported()",
            generations(*_PRE_AMPERE),
            "import torch",
        ),
        Example(
            "imported-alone",
            "not is_bf16_supported(including_emulation=False)",
            generations(*_PRE_AMPERE),
            "from torch.cuda import is_bf16_supported",
        ),
        Example(
            "with-the-capability",
            "torch.cuda.is_bf16_supported() and torch.cuda.get_device_capability()[0] < 9",
            generations(*_PRE_AMPERE, "sm80", "sm86", "sm87", "sm89"),
            "import torch",
        ),
    ),
    noops=(
        Noop(
            "another-backend",
            "not torch.xpu.is_bf16_supported()",
            "another accelerator's runtime answers for no device of the registry",
            "import torch",
        ),
    ),
)
