"""Attributes a torch module gets from `self.register_buffer(name, t)` /
`self.register_parameter(name, p)` (as from `setattr(self, name, v)`): the value read
there joins the `self.x = ...` assignments, so a `self.w = None` in a release method is
not taken for the attribute's only value (that read `if self.w is None: return False`
as always false, and a gfx950-only path behind it admitted nothing)."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from tests.admission import assert_can_be_true

GFX950 = frozenset({"gfx950"})

LAYER = """import torch


class Layer(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        __REGISTER__

    def release(self):
        self.w = None

    def ready(self):
        if self.w is None:
            return False
        return torch.cuda.get_device_properties(0).gcnArchName == "gfx950"
"""

CASES = [
    pytest.param(
        LAYER.replace("__REGISTER__", 'self.register_buffer("w", torch.zeros(n))'),
        "Layer(4).ready()",
        GFX950,
        id="register-buffer",
    ),
    pytest.param(
        LAYER.replace("__REGISTER__", 'self.register_parameter("w", torch.nn.Parameter(n))'),
        "Layer(4).ready()",
        GFX950,
        id="register-parameter",
    ),
    pytest.param(
        "import torch\n\n\n"
        "class Base(torch.nn.Module):\n"
        "    def __init__(self, n):\n"
        "        super().__init__()\n"
        '        self.register_buffer("w", torch.zeros(n))\n\n\n'
        + LAYER.split("\n\n\n", 1)[1]
        .replace("class Layer(torch.nn.Module):", "class Layer(Base):")
        .replace("__REGISTER__", "pass"),
        "Layer(4).ready()",
        GFX950,
        id="registered-by-a-base-class",
    ),
    pytest.param(
        LAYER.replace("__REGISTER__", 'self.register_buffer("w", self.w.clone())'),
        "Layer(4).ready()",
        GFX950,
        id="registered-from-itself-reads-as-unknown",
    ),
    # Noops: a name the call does not give, and the plain assignment alone.
    pytest.param(
        LAYER.replace("__REGISTER__", 'self.register_buffer("scale", torch.zeros(n))'),
        "Layer(4).ready()",
        frozenset(),
        id="noop-another-name",
    ),
    pytest.param(
        LAYER.replace("__REGISTER__", "pass"),
        "Layer(4).ready()",
        frozenset(),
        id="noop-only-none-assigned",
    ),
]


@pytest.mark.parametrize(("source", "expr", "admitted"), CASES)
def test_registered_attributes(ruleset: RuleSet, source: str, expr: str, admitted: object) -> None:
    assert_can_be_true(ruleset, source, expr, admitted)
