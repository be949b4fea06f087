"""`get_device_properties(i).gcnArchName` ("gfx942:sramecc+:xnack-"): the AMD arch, an
empty string on CUDA devices (so `"gfx9" in name` is false there, not unknown)."""

from __future__ import annotations

from typing import Any

from gatecheck.semantics.idioms._model import NOT_MINE, Example, Idiom, Noop, generations
from gatecheck.semantics.values import DeviceProps, Value


def attribute(receiver: Any, name: str) -> Value:
    if name != "gcnArchName":
        return NOT_MINE
    return receiver.gcn_arch if receiver.gcn_arch is not None else ""


def has_attribute(receiver: Any, name: str) -> Any:
    return bool(receiver.gcn_arch) if name == "gcnArchName" else NOT_MINE


_SOURCE = "import torch\nprops = torch.cuda.get_device_properties(0)"

IDIOM = Idiom(
    name="gcnArchName",
    value_attributes=((DeviceProps, attribute),),
    has_attribute=((DeviceProps, has_attribute),),
    examples=(
        Example("substring", '"gfx94" in props.gcnArchName', generations("gfx942"), _SOURCE),
        Example(
            "any-of-list",
            'any(a in props.gcnArchName for a in ["gfx942", "gfx950"])',
            generations("gfx942", "gfx950"),
            _SOURCE,
        ),
        Example(
            "hasattr",
            'hasattr(props, "gcnArchName")',
            generations("gfx90a", "gfx942", "gfx950"),
            _SOURCE,
        ),
    ),
    noops=(
        Noop(
            "unread-helper",
            '"gfx94" in arch_name()',
            "a helper without a readable body: its string is not the device's property",
            "from amd_helpers import arch_name",
        ),
    ),
)
