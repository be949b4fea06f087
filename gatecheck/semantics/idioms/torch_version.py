"""`torch.version.cuda` / `torch.version.hip`: None on the other vendor's build, a
version string (not the generation's to decide) on its own."""

from __future__ import annotations

from collections.abc import Sequence

from gatecheck.config.model import Generation
from gatecheck.semantics.idioms._model import Example, Idiom, Intrinsic, Noop, generations
from gatecheck.semantics.values import UNKNOWN, Value


def cuda_version(generation: Generation, _args: Sequence[Value]) -> Value:
    return None if generation.vendor == "amd" else UNKNOWN


def hip_version(generation: Generation, _args: Sequence[Value]) -> Value:
    return None if generation.vendor == "nvidia" else UNKNOWN


_AMD = generations("gfx90a", "gfx942", "gfx950")

IDIOM = Idiom(
    name="torch.version per vendor",
    attributes=(
        Intrinsic("torch.version.cuda", cuda_version, match="tail"),
        Intrinsic("torch.version.hip", hip_version, match="tail"),
    ),
    examples=(
        Example("hip-build", "torch.version.hip is not None", _AMD, "import torch"),
        Example(
            "cuda-build-and-major",
            "torch.version.cuda and torch.cuda.get_device_capability()[0] == 9",
            generations("sm90"),
            "import torch",
        ),
        Example(
            "lambda", "is_hip()", _AMD, "import torch\nis_hip = lambda: bool(torch.version.hip)"
        ),
    ),
    noops=(
        Noop(
            "cuda-version",
            'torch.version.cuda >= "12.8"',
            "the toolkit version is the build's, not the device's (None on ROCm, but the"
            " comparison then raises rather than being false)",
            "import torch",
        ),
    ),
)
