"""triton's `driver.active.get_current_target()`: the backend ("cuda"/"hip") and arch
(the SM as an integer on CUDA, the gfx name on ROCm)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gatecheck.config.model import Generation
from gatecheck.semantics.idioms._model import Example, Idiom, Intrinsic, Noop, generations
from gatecheck.semantics.values import UNKNOWN, TritonTarget, Value


def triton_target(generation: Generation, _args: Sequence[Value] = ()) -> TritonTarget:
    if generation.vendor == "amd":
        return TritonTarget("hip", generation.name)
    return TritonTarget("cuda", generation.sm_version)


def attribute(receiver: Any, name: str) -> Value:
    return getattr(receiver, name, UNKNOWN)


_SOURCE = "import triton\ntarget = triton.runtime.driver.active.get_current_target()"

IDIOM = Idiom(
    name="Triton target",
    calls=(Intrinsic("get_current_target", triton_target, match="tail"),),
    value_attributes=((TritonTarget, attribute),),
    examples=(
        Example(
            "backend", 'target.backend == "hip"', generations("gfx90a", "gfx942", "gfx950"), _SOURCE
        ),
        Example("arch-int", "target.arch == 90", generations("sm90"), _SOURCE),
        Example("arch-gfx", 'target.arch == "gfx950"', generations("gfx950"), _SOURCE),
    ),
    noops=(
        Noop(
            "warp-size",
            "target.warp_size == 64",
            "a target attribute gatecheck does not model",
            _SOURCE,
        ),
    ),
)
