"""`torch.cuda.get_device_properties(i)`: an object whose `.major` / `.minor` are the
capability's, and whose `.shared_memory_per_block_optin` / `.shared_memory_per_multiprocessor`
are the generation's shared memory (rules/generations.yaml: consumer Blackwell offers a
block Ada's 99 KB, not Hopper's 227 KB, so `smem >= 200 * 1024` picks the big Triton
configs on sm90 and sm100 only). Its `.name`, SM count and the rest are not the
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
from gatecheck.semantics.values import DeviceProps, Value


def device_props(generation: Generation, _args: Sequence[Value] = ()) -> DeviceProps:
    gcn = generation.name if generation.vendor == "amd" else None
    return DeviceProps(
        generation.major,
        generation.minor,
        gcn,
        generation.smem_per_block_optin,
        generation.smem_per_sm,
    )


# torch's attribute -> the DeviceProps field holding it.
_SHARED_MEMORY = {
    "shared_memory_per_block_optin": "smem_per_block_optin",
    "shared_memory_per_multiprocessor": "smem_per_sm",
}


def attribute(receiver: Any, name: str) -> Value:
    if name in ("major", "minor"):
        return getattr(receiver, name)
    field = _SHARED_MEMORY.get(name)
    if field is not None and getattr(receiver, field) is not None:
        return getattr(receiver, field)
    return NOT_MINE


def has_attribute(receiver: Any, name: str) -> Any:
    if name == "gcnArchName":
        return NOT_MINE  # the gcnArchName idiom's to answer
    field = _SHARED_MEMORY.get(name)
    if field is not None:
        # A torch recent enough for the device has it; where the amount is not known
        # (ROCm's torch may lack it), whether it is there is not either.
        return True if getattr(receiver, field) is not None else NOT_MINE
    return name in ("major", "minor", "name")


_SOURCE = "import torch\nprops = torch.cuda.get_device_properties(0)"
# Their shared memory is not in the registry: unknown there, so possibly true.
_AMD = generations("gfx90a", "gfx942", "gfx950")

IDIOM = Idiom(
    name="device properties",
    calls=(
        Intrinsic("torch.cuda.get_device_properties", device_props),
        Intrinsic("cuda.get_device_properties", device_props),
    ),
    value_attributes=((DeviceProps, attribute),),
    has_attribute=((DeviceProps, has_attribute),),
    examples=(
        Example(
            "major",
            "props.major >= 10",
            generations("sm100", "sm103", "sm110", "sm120", "sm121"),
            _SOURCE,
        ),
        Example(
            "major-minor",
            "(props.major, props.minor) == (8, 6)",
            generations("sm86"),
            _SOURCE,
        ),
        Example(
            "hasattr", 'hasattr(props, "major") and props.minor == 7', generations("sm87"), _SOURCE
        ),
        Example(
            "shared-memory-hopper-sized",
            "props.shared_memory_per_block_optin >= 200 * 1024",
            generations("sm90", "sm100", "sm103", "sm110") | _AMD,
            _SOURCE,
        ),
        Example(
            "shared-memory-below",
            "props.shared_memory_per_block_optin < 144 * 1024",
            generations("sm70", "sm75", "sm86", "sm89", "sm120", "sm121") | _AMD,
            _SOURCE,
        ),
        Example(
            "shared-memory-getattr",
            'getattr(props, "shared_memory_per_block_optin", 0) >= 160 * 1024',
            generations("sm80", "sm87", "sm90", "sm100", "sm103", "sm110") | _AMD,
            _SOURCE,
        ),
        Example(
            "shared-memory-per-sm",
            "props.shared_memory_per_multiprocessor == 100 * 1024",
            generations("sm86", "sm89", "sm120", "sm121") | _AMD,
            _SOURCE,
        ),
        Example(
            "shared-memory-hasattr",
            "props.shared_memory_per_block_optin < 144 * 1024 "
            'if hasattr(props, "shared_memory_per_block_optin") else False',
            generations("sm70", "sm75", "sm86", "sm89", "sm120", "sm121") | _AMD,
            _SOURCE,
        ),
    ),
    noops=(
        Noop("name", '"H100" in props.name', "the marketing name is not the generation", _SOURCE),
        Noop(
            "shared-memory-default",
            "props.shared_memory_per_block == 48 * 1024",
            "the default per-block amount is not the registry's",
            _SOURCE,
        ),
        Noop(
            "sm-count",
            "props.multi_processor_count >= 132",
            "the SM count varies within a generation",
            _SOURCE,
        ),
    ),
)
