"""amdsmi's ASIC info: `amdsmi_get_gpu_asic_info(handle)["target_graphics_version"]` (or
`.get("target_graphics_version", "")`), the AMD arch name ("gfx942"), read without
initialising HIP (vLLM's ROCm platform resolves its `_GCN_ARCH` this way, torch's
`gcnArchName` its fallback). `amdsmi_get_processor_handles()` is the machine's devices,
at least one on an AMD generation, each of that generation, and none on an NVIDIA one
(a machine's devices are one generation); the info of a handle on an NVIDIA generation
is unknown. Any other field of the info (`market_name`, `device_id`) is not the
generation's to decide."""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
from gatecheck.semantics.values import UNKNOWN, EachDevice, Value

_FIELD = "target_graphics_version"


@dataclass(frozen=True)
class AsicInfo:
    """What amdsmi_get_gpu_asic_info returns on a device of generation `arch`."""

    arch: str


@dataclass(frozen=True)
class Handle:
    """One of amdsmi's processor handles: which device it is, nothing more."""


def _asic_info(generation: Generation, _args: Sequence[Value]) -> Value:
    return AsicInfo(generation.name) if generation.vendor == "amd" else UNKNOWN


def _handles(generation: Generation, _args: Sequence[Value]) -> Value:
    # A machine's devices are all of one generation: on an NVIDIA one amdsmi finds no
    # AMD processor (when it runs at all; the code's fallback then reads torch's name).
    return EachDevice(Handle()) if generation.vendor == "amd" else []


def item(receiver: Any, key: Any) -> Value:
    if not isinstance(receiver, AsicInfo):
        return NOT_MINE
    return receiver.arch if key == _FIELD else UNKNOWN


def attribute(receiver: Any, name: str) -> Value:
    if name != "get":
        return NOT_MINE
    return _getter(receiver)


def _getter(info: AsicInfo) -> Callable[..., Value]:
    def get(key: Any, default: Any = None) -> Value:
        return info.arch if key == _FIELD else UNKNOWN

    return get


_NVIDIA = generations(
    "sm70", "sm75", "sm80", "sm86", "sm87", "sm89", "sm90", "sm100", "sm103", "sm110", "sm120"
) | generations("sm121")

_SOURCE = """
from amdsmi import amdsmi_get_gpu_asic_info, amdsmi_get_processor_handles

def gfx_by_item():
    handle = amdsmi_get_processor_handles()[0]
    return amdsmi_get_gpu_asic_info(handle)["target_graphics_version"]

def gfx_by_get():
    handles = amdsmi_get_processor_handles()
    info = amdsmi_get_gpu_asic_info(handles[0])
    return info.get("target_graphics_version", "")

def gfx_or_torch():
    import torch
    handles = amdsmi_get_processor_handles()
    if handles:
        return amdsmi_get_gpu_asic_info(handles[0])["target_graphics_version"]
    return torch.cuda.get_device_properties(0).gcnArchName

def market_name():
    return amdsmi_get_gpu_asic_info(amdsmi_get_processor_handles()[0])["market_name"]
"""

IDIOM = Idiom(
    name="amdsmi ASIC info",
    calls=(
        Intrinsic("amdsmi_get_gpu_asic_info", _asic_info),
        Intrinsic("amdsmi_get_processor_handles", _handles),
    ),
    value_attributes=((AsicInfo, attribute),),
    value_items=((AsicInfo, item),),
    examples=(
        # The first handle's info: on an NVIDIA generation there is none (an IndexError
        # the evaluation does not model: unknown there).
        Example("item", 'gfx_by_item() == "gfx942"', _NVIDIA | generations("gfx942"), _SOURCE),
        Example(
            "get",
            'any(a in gfx_by_get() for a in ["gfx942", "gfx950"])',
            _NVIDIA | generations("gfx942", "gfx950"),
            _SOURCE,
        ),
        # No AMD processor on an NVIDIA generation: the code's own fallback decides there.
        Example(
            "with-fallback",
            '"gfx95" in gfx_or_torch()',
            generations("gfx950"),
            _SOURCE,
        ),
    ),
    noops=(
        Noop(
            "another-field",
            'market_name() == "MI300X"',
            "the product's name is no generation's",
            _SOURCE,
        ),
    ),
)
