"""cuda-python's object API, `cuda.core.Device(i)` (`cuda.core.experimental` before 0.4): a
device whose `.compute_capability` is its (major, minor), a named tuple, and whose `.arch`
is the same spelled as text, major then minor ("90", "120"). TransformerEngine reads the
SM so where torch is not imported. Its name, SM count and the rest are not the
generation's to decide."""

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
from gatecheck.semantics.values import UNKNOWN, Capability, CudaCoreDevice, Value


def device(generation: Generation, _args: Sequence[Value] = ()) -> Value:
    if generation.vendor != "nvidia":
        return UNKNOWN  # no CUDA driver there: the call fails, somehow
    return CudaCoreDevice(generation.major, generation.minor)


def attribute(receiver: Any, name: str) -> Value:
    if name == "compute_capability":
        return Capability((receiver.major, receiver.minor))
    if name == "arch":
        return f"{receiver.major}{receiver.minor}"
    return NOT_MINE


_SOURCE = "from cuda.core import Device\ndev = Device(0)"
_EXPERIMENTAL = "from cuda.core.experimental import Device"
_AMD = generations("gfx90a", "gfx942", "gfx950")

IDIOM = Idiom(
    name="cuda.core device",
    calls=(
        Intrinsic("cuda.core.Device", device),
        Intrinsic("cuda.core.experimental.Device", device),
    ),
    value_attributes=((CudaCoreDevice, attribute),),
    examples=(
        Example(
            "compute-capability",
            "dev.compute_capability >= (10, 0)",
            generations("sm100", "sm103", "sm110", "sm120", "sm121") | _AMD,
            _SOURCE,
        ),
        Example(
            "compute-capability-major",
            "dev.compute_capability.major == 9",
            generations("sm90") | _AMD,
            _SOURCE,
        ),
        Example(
            "arch-text-parsed",
            "int(Device().arch[:-1]) < 10",
            generations("sm70", "sm75", "sm80", "sm86", "sm87", "sm89", "sm90") | _AMD,
            _EXPERIMENTAL,
        ),
        Example(
            "arch-text",
            'Device(1).arch in ("120", "121")',
            generations("sm120", "sm121") | _AMD,
            _EXPERIMENTAL,
        ),
    ),
    noops=(
        Noop("name", '"H100" in dev.name', "the marketing name is not the generation", _SOURCE),
        Noop(
            "device-id",
            "dev.device_id == 0",
            "which device it is says nothing of its generation",
            _SOURCE,
        ),
    ),
)
