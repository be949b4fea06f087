"""`torch.cuda.get_device_capability()`: the device's (major, minor), as a tuple that
compares, indexes and unpacks like torch's (NVML's compute capability too)."""

from __future__ import annotations

from collections.abc import Sequence

from gatecheck.config.model import Generation
from gatecheck.semantics.idioms._model import Example, Idiom, Intrinsic, Noop, generations
from gatecheck.semantics.values import Capability, Value


def capability(generation: Generation, _args: Sequence[Value] = ()) -> Capability:
    return Capability(generation.capability)


IDIOM = Idiom(
    name="capability tuple",
    calls=(
        Intrinsic("torch.cuda.get_device_capability", capability),
        Intrinsic("cuda.get_device_capability", capability),
        Intrinsic("pynvml.nvmlDeviceGetCudaComputeCapability", capability),
    ),
    examples=(
        Example(
            "tuple-eq",
            "torch.cuda.get_device_capability() == (12, 0)",
            generations("sm120"),
            "import torch",
        ),
        Example(
            "tuple-ge",
            "torch.cuda.get_device_capability() >= (10, 3)",
            generations("sm103", "sm110", "sm120", "sm121"),
            "import torch",
        ),
        Example(
            "tuple-in-list",
            "get_device_capability() in [(9, 0), (10, 0)]",
            # gfx90a is (9, 0) to torch on ROCm: the tuple alone cannot tell it apart.
            generations("sm90", "sm100", "gfx90a"),
            "from torch.cuda import get_device_capability",
        ),
        Example(
            "nvml",
            "pynvml.nvmlDeviceGetCudaComputeCapability(handle) == (9, 0)",
            generations("sm90", "gfx90a"),
            "import pynvml\nhandle = pynvml.nvmlDeviceGetHandleByIndex(0)",
        ),
    ),
    noops=(
        Noop(
            "unknown-bound",
            "torch.cuda.get_device_capability() >= MIN_CAPABILITY",
            "the bound comes from the environment, not from the device",
            "import os, torch\nMIN_CAPABILITY = tuple(os.environ['MIN_CAPABILITY'])",
        ),
        Noop(
            "device-name",
            '"H20" in torch.cuda.get_device_name()',
            "a device's name is not its generation",
            "import torch",
        ),
    ),
)
