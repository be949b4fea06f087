"""On a device of any registry generation torch sees a GPU (CUDA and ROCm builds alike:
`torch.cuda.is_available()` is true) and no other accelerator backend claims it
(`torch.xpu.is_available()` is false); every torch build has `torch.cuda`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gatecheck.config.model import Generation
from gatecheck.semantics.idioms._model import (
    NOT_MINE,
    Example,
    Idiom,
    Intrinsic,
    Noop,
    generations,
)
from gatecheck.semantics.values import ExternalRef, Value


def present(_generation: Generation, _args: Sequence[Value]) -> bool:
    return True


def absent(_generation: Generation, _args: Sequence[Value]) -> bool:
    return False


# Attributes every torch build has (the rest, like torch.xpu or torch.hpu, depend on it).
_ALWAYS_PRESENT = {("torch", "cuda"), ("torch", "version"), ("torch", "backends")}


def has_attribute(receiver: Any, name: str) -> Any:
    return True if (receiver.dotted, name) in _ALWAYS_PRESENT else NOT_MINE


_OTHER_BACKENDS = ("xpu", "hpu", "npu", "mps", "mlu", "musa", "backends.mps")
# The packages other accelerators' torch runtimes come in.
_OTHER_PACKAGES = frozenset(
    {"torch_npu", "torch_musa", "torch_mlu", "habana_frameworks", "intel_extension_for_pytorch"}
)


def another_backend(dotted: str) -> bool:
    """Whether a dotted name reaches another accelerator's runtime (`torch.musa.
    get_device_properties`, `torch_npu.npu.get_device_capability`): absent on a registry
    generation, so what it answers is no device of the registry's, whatever it is named."""
    parts = dotted.split(".")
    if parts[0] in _OTHER_PACKAGES:
        return True
    return parts[0] == "torch" and any(p in _OTHER_BACKENDS for p in parts[1:-1])


_NVIDIA_9 = generations("sm90")

IDIOM = Idiom(
    name="device presence",
    calls=(
        Intrinsic("torch.cuda.is_available", present),
        Intrinsic("cuda.is_available", present),
        *(
            Intrinsic(f"torch.{backend}.is_available", absent, match="tail")
            for backend in _OTHER_BACKENDS
        ),
    ),
    has_attribute=((ExternalRef, has_attribute),),
    examples=(
        Example(
            "cuda-available",
            "torch.cuda.is_available() and torch.cuda.get_device_capability() == (9, 0)",
            generations("sm90", "gfx90a"),
            "import torch",
        ),
        Example(
            "xpu-absent",
            "not torch.xpu.is_available() and torch.cuda.get_device_capability()[0] == 9",
            generations("sm90", "gfx90a", "gfx942", "gfx950"),
            "import torch",
        ),
        Example(
            "hasattr-cuda",
            'hasattr(torch, "cuda") and torch.cuda.get_device_capability()[0] == 12',
            generations("sm120", "sm121"),
            "import torch",
        ),
    ),
    noops=(
        Noop(
            "hasattr-xpu",
            'hasattr(torch, "xpu")',
            "whether torch.xpu exists depends on the torch build",
            "import torch",
        ),
    ),
)
