"""The capability as one integer (`major * 10 + minor`, `to_int()`: 90, 100, 120) or a
version string (`as_version_str()`: "9.0")."""

from __future__ import annotations

from typing import Any

from gatecheck.semantics.idioms._model import NOT_MINE, Example, Idiom, Noop, generations
from gatecheck.semantics.values import Capability, Value


def methods(receiver: Any, name: str) -> Value:
    return getattr(receiver, name) if name in ("to_int", "as_version_str") else NOT_MINE


_SOURCE = "import torch\ncap = torch.cuda.get_device_capability()"

IDIOM = Idiom(
    name="integer SM",
    value_attributes=((Capability, methods),),
    examples=(
        Example("arithmetic", "cap[0] * 10 + cap[1] == 103", generations("sm103"), _SOURCE),
        Example("to-int", "cap.to_int() >= 110", generations("sm110", "sm120", "sm121"), _SOURCE),
        Example("chained", "100 <= cap.to_int() < 110", generations("sm100", "sm103"), _SOURCE),
        Example("version-string", 'cap.as_version_str() == "8.9"', generations("sm89"), _SOURCE),
    ),
    noops=(
        Noop(
            "unknown-bound",
            'cap.to_int() >= int(os.environ["MIN_SM"])',
            "the bound comes from the environment, not from the device",
            "import os\n" + _SOURCE,
        ),
    ),
)
