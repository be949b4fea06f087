"""An object made by a call passing nothing (`KernHopper()`) holds what its classes bind
(`arch = 90`), unless some method of its classes assigns that attribute on the instance
(semantics/classes.instantiate, values.InstanceRef.defaults_hold): quack chooses its GEMM
classes by a table of the device's major and tests `gemm.arch == 90` on the object. An
object made with arguments may hold anything a constructor (a config class, a model)
puts on it: its class-level values stay defaults, unknown. Pure: expressions read against
an in-memory module."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from gatecheck.semantics.admitted import admission_of

SOURCE = """
import torch

class Base:
    arch = 0

class Hopper(Base):
    arch = 90

class Blackwell(Base):
    arch = 100

class Tuned(Base):
    arch = 90

    def __init__(self, arch=None):
        if arch is not None:
            self.arch = arch

def pick():
    return Hopper if torch.cuda.get_device_capability()[0] == 9 else Blackwell
"""

MAJOR_9 = frozenset({"sm90", "gfx90a", "gfx942", "gfx950"})


@pytest.mark.parametrize(
    ("expression", "true_on"),
    [
        pytest.param("pick()().arch == 90", MAJOR_9, id="a-class-chosen-by-the-device"),
        pytest.param("Hopper().arch == 90", None, id="one-class-the-same-everywhere"),
    ],
)
def test_an_object_made_with_nothing_holds_its_class_values(
    ruleset: RuleSet, expression: str, true_on: frozenset[str] | None
) -> None:
    admission = admission_of(SOURCE, expression, ruleset.registry)
    everywhere = ruleset.registry.all_names()
    assert admission.can_be_true == (everywhere if true_on is None else true_on)
    assert admission.can_be_false == (frozenset() if true_on is None else everywhere - true_on)


@pytest.mark.parametrize(
    ("expression", "why"),
    [
        pytest.param("pick()(1).arch == 90", "made with an argument", id="an-argument"),
        pytest.param("Hopper(tile=1).arch == 90", "made with a keyword", id="a-keyword"),
        pytest.param("Tuned().arch == 90", "its __init__ assigns it", id="a-method-assigns-it"),
    ],
)
def test_noop_class_values_stay_defaults(ruleset: RuleSet, expression: str, why: str) -> None:
    admission = admission_of(SOURCE, expression, ruleset.registry)
    everywhere = ruleset.registry.all_names()
    assert admission.can_be_true == admission.can_be_false == everywhere, why
