"""`torch.cuda.get_device_properties(i)`: an object whose `.major` / `.minor` are the
capability's (its `.name` and the rest are not the generation's to decide)."""

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
    return DeviceProps(generation.major, generation.minor, gcn)


def attribute(receiver: Any, name: str) -> Value:
    return getattr(receiver, name) if name in ("major", "minor") else NOT_MINE


def has_attribute(_receiver: Any, name: str) -> Any:
    if name == "gcnArchName":
        return NOT_MINE  # the gcnArchName idiom's to answer
    return name in ("major", "minor", "name")


_SOURCE = "import torch\nprops = torch.cuda.get_device_properties(0)"

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
    ),
    noops=(
        Noop("name", '"H100" in props.name', "the marketing name is not the generation", _SOURCE),
        Noop(
            "sm-count",
            "props.multi_processor_count >= 132",
            "the SM count varies within a generation",
            _SOURCE,
        ),
    ),
)
