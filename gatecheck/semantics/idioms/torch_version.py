"""`torch.version.cuda` / `torch.version.hip`: None on the other vendor's build, a
version string on its own. The string is the build's, not the device's, but the device
bounds it: a torch that runs on an sm120 device was built for CUDA 12.8 or later (the
registry's `min_cuda`), so `torch.version.cuda >= "12.8"` is true there; below that
minimum the comparison stays unknown."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
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
from gatecheck.semantics.values import UNKNOWN, Opaque, Value

_RELEASE = re.compile(r"\s*(\d+)\.(\d+)")


class Undecided(Exception):
    """The comparison depends on more than the device decides (unknown to `safe`)."""


@dataclass(frozen=True)
class ToolkitRelease(Opaque):
    """torch.version.cuda on a device whose first supporting CUDA release is `least`:
    some release string >= it. Comparisons are decided only where every such release
    answers alike; a string is compared as Python would, character by character, so
    only two-digit-major bounds against a two-digit-major `least` are decided
    (`"12.8" < "9.0"` is true to Python)."""

    least: tuple[int, int]

    def _bound(self, other: Any) -> tuple[int, int] | None:
        if isinstance(other, str):
            found = _RELEASE.match(other)
            # Every release from `least` on has a two-digit major only if `least`'s has.
            if found is None or len(found.group(1)) != 2 or self.least[0] < 10:
                return None
            return int(found.group(1)), int(found.group(2))
        if (
            isinstance(other, tuple)
            and len(other) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in other)
        ):
            return other[0], other[1]
        return None

    def _at_least(self, other: Any, strict: bool) -> bool:
        bound = self._bound(other)
        if bound is None or (bound >= self.least if strict else bound > self.least):
            raise Undecided
        return True

    def __ge__(self, other: Any) -> bool:
        return self._at_least(other, strict=False)

    def __gt__(self, other: Any) -> bool:
        return self._at_least(other, strict=True)

    def __lt__(self, other: Any) -> bool:
        return not self._at_least(other, strict=False)

    def __le__(self, other: Any) -> bool:
        return not self._at_least(other, strict=True)

    def __bool__(self) -> bool:
        return True  # a non-empty release string


def cuda_version(generation: Generation, _args: Sequence[Value]) -> Value:
    if generation.vendor == "amd":
        return None
    return UNKNOWN if generation.min_cuda is None else ToolkitRelease(generation.min_cuda)


def parse_version(_generation: Generation, args: Sequence[Value]) -> Value:
    """packaging's `version.parse(torch.version.cuda)` keeps the bound; of a release
    string, the (major, minor) it compares like."""
    if len(args) != 1:
        return NOT_MINE
    (arg,) = args
    if isinstance(arg, ToolkitRelease):
        return arg
    if isinstance(arg, str):
        found = re.fullmatch(r"(\d+)\.(\d+)", arg.strip())
        if found is not None:
            return int(found.group(1)), int(found.group(2))
    return NOT_MINE


@dataclass(frozen=True)
class HipRelease(Opaque):
    """torch.version.hip on a ROCm build: a release string, never None nor empty;
    which one the device does not decide (an order or equality with one is unknown)."""

    def __bool__(self) -> bool:
        return True


def hip_version(generation: Generation, _args: Sequence[Value]) -> Value:
    return None if generation.vendor == "nvidia" else HipRelease()


_AMD = generations("gfx90a", "gfx942", "gfx950")

IDIOM = Idiom(
    name="torch.version per vendor",
    attributes=(
        Intrinsic("torch.version.cuda", cuda_version, match="tail"),
        Intrinsic("torch.version.hip", hip_version, match="tail"),
    ),
    calls=(Intrinsic("version.parse", parse_version, reads_arguments=True),),
    examples=(
        Example("hip-build", "torch.version.hip is not None", _AMD, "import torch"),
        Example(
            "not-a-hip-build-and-major",
            "not torch.version.hip and torch.cuda.get_device_capability()[0] >= 9",
            generations("sm90", "sm100", "sm103", "sm110", "sm120", "sm121"),
            "import torch",
        ),
        Example(
            "cuda-build-and-major",
            "torch.version.cuda and torch.cuda.get_device_capability()[0] == 9",
            generations("sm90"),
            "import torch",
        ),
        Example(
            "lambda", "is_hip()", _AMD, "import torch\nis_hip = lambda: bool(torch.version.hip)"
        ),
        Example(
            "cuda-at-least-the-device-minimum",
            'torch.version.cuda is not None and torch.version.cuda >= "12.8"'
            " and torch.cuda.get_device_capability()[0] == 12",
            generations("sm120", "sm121"),
            "import torch",
        ),
        Example(
            "parsed-cuda-release",
            'version.parse(torch.version.cuda) < version.parse("12.8")',
            # True nowhere from sm100 on; unknown below (and raising on ROCm: None).
            generations(*["sm70", "sm75", "sm80", "sm86", "sm87", "sm89", "sm90"], *_AMD),
            "import torch\nfrom packaging import version",
        ),
    ),
    noops=(
        Noop(
            "cuda-version-everywhere",
            'torch.version.cuda >= "13.1"',
            "no registry generation needs CUDA 13.1: every build may be older or newer"
            " (None on ROCm, but the comparison then raises rather than being false)",
            "import torch",
        ),
        Noop(
            "cuda-version-string-digits",
            'torch.version.cuda < "9.0"',
            "compared as strings, '12.8' < '9.0' is true: a bound with fewer digits than"
            " the release is not decided",
            "import torch",
        ),
    ),
)
