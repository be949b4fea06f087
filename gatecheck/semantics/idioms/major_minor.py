"""The capability's parts: `cap[0]`, `major, minor = cap`, and the `.major` / `.minor`
accessors platform wrappers add (vLLM's DeviceCapability)."""

from __future__ import annotations

from typing import Any

from gatecheck.semantics.idioms._model import NOT_MINE, Example, Idiom, Noop, generations
from gatecheck.semantics.values import Capability, Value


def parts(receiver: Any, name: str) -> Value:
    return getattr(receiver, name) if name in ("major", "minor") else NOT_MINE


_SOURCE = "import torch"
_NVIDIA_12 = generations("sm120", "sm121")

IDIOM = Idiom(
    name="major and minor",
    value_attributes=((Capability, parts),),
    examples=(
        Example("index-major", "torch.cuda.get_device_capability()[0] == 12", _NVIDIA_12, _SOURCE),
        Example(
            "unpacked",
            "MINOR == 1 and MAJOR == 12",
            generations("sm121"),
            _SOURCE + "\nMAJOR, MINOR = torch.cuda.get_device_capability()",
        ),
        Example(
            "accessor",
            "current_platform.get_device_capability().major >= 12",
            _NVIDIA_12,
            # No body to read: the method's name says it returns the capability.
            "from vllm.platforms import current_platform",
            assumed=True,
        ),
    ),
    noops=(
        Noop(
            "other-index",
            "torch.cuda.get_device_capability()[2] == 0",
            "a capability has two parts: index 2 is an error, not a gate",
            _SOURCE,
        ),
    ),
)
