"""triton's `triton.language.target_info` helpers (Triton 3.4 and later), which kernels
call at compile time (`@constexpr_function`): `current_target()` is the active driver's
target (triton_target.py), `cuda_capability_geq(major, minor=0)` is true on CUDA where
the SM is at least `major * 10 + minor` (false on ROCm), `is_cuda()` / `is_hip()` tell
the backend, `is_hip_cdna3()` / `is_hip_cdna4()` the gfx942 / gfx950 arch. vLLM's and
sgl-kernel's vendored `triton_kernels` gate their matmul paths on them."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from gatecheck.config.model import Generation
from gatecheck.semantics.idioms._model import (
    NOT_MINE,
    Example,
    Idiom,
    Intrinsic,
    Noop,
    generations,
)
from gatecheck.semantics.idioms.triton_target import triton_target
from gatecheck.semantics.values import Value

_MODULE = "language.target_info."


def cuda_capability_geq(generation: Generation, args: Sequence[Value]) -> Value:
    if not 1 <= len(args) <= 2 or not all(_is_int(a) for a in args):
        return NOT_MINE  # a bound not known here (the convention is asked: unknown)
    major, minor = args[0], args[1] if len(args) == 2 else 0
    if generation.vendor != "nvidia":
        return False
    return generation.sm_version >= major * 10 + minor


def _is_int(value: Value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _backend(vendor: str) -> Callable[[Generation, Sequence[Value]], Value]:
    def read(generation: Generation, _args: Sequence[Value] = ()) -> Value:
        return generation.vendor == vendor

    return read


def _arch(name: str) -> Callable[[Generation, Sequence[Value]], Value]:
    def read(generation: Generation, _args: Sequence[Value] = ()) -> Value:
        return generation.name == name

    return read


_SOURCE = (
    "import triton.language as tl\n"
    "from triton.language.target_info import cuda_capability_geq, is_cuda, is_hip_cdna4"
)
_AMD = generations("gfx90a", "gfx942", "gfx950")
_FROM_SM100 = generations("sm100", "sm103", "sm110", "sm120", "sm121")

IDIOM = Idiom(
    name="Triton target_info",
    calls=(
        Intrinsic(_MODULE + "current_target", triton_target),
        Intrinsic(_MODULE + "cuda_capability_geq", cuda_capability_geq, reads_arguments=True),
        Intrinsic(_MODULE + "is_cuda", _backend("nvidia")),
        Intrinsic(_MODULE + "is_hip", _backend("amd")),
        Intrinsic(_MODULE + "is_hip_cdna3", _arch("gfx942")),
        Intrinsic(_MODULE + "is_hip_cdna4", _arch("gfx950")),
    ),
    examples=(
        Example("capability-geq", "cuda_capability_geq(10, 0)", _FROM_SM100, _SOURCE),
        Example(
            "capability-geq-minor",
            "cuda_capability_geq(10, 3)",
            generations("sm103", "sm110", "sm120", "sm121"),
            _SOURCE,
        ),
        Example(
            "capability-geq-major-only",
            "tl.target_info.cuda_capability_geq(12)",
            generations("sm120", "sm121"),
            _SOURCE,
        ),
        Example(
            "below-on-cuda",
            "is_cuda() and not cuda_capability_geq(10, 0)",
            generations("sm70", "sm75", "sm80", "sm86", "sm87", "sm89", "sm90"),
            _SOURCE,
        ),
        Example("cdna4", "is_hip_cdna4()", generations("gfx950"), _SOURCE),
        Example("hip", "tl.target_info.is_hip()", _AMD, _SOURCE),
        Example(
            "current-target-arch",
            "tl.target_info.current_target().arch == 120",
            generations("sm120"),
            _SOURCE,
        ),
    ),
    noops=(
        Noop(
            "bound-from-environment",
            'cuda_capability_geq(int(os.environ["MIN_SM"]))',
            "the bound comes from the environment, not from the device",
            "import os\n" + _SOURCE,
        ),
        Noop(
            "other-module",
            "other.target_info.cuda_capability_geq(10)",
            "only triton.language's target_info is Triton's",
            "import other",
        ),
    ),
)
