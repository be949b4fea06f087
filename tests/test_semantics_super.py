"""`super()` in a method: the attribute is looked up in the receiver's class order after
the method's class, and a method found there is bound to the same receiver (the class in
a classmethod, the instance in a method). TransformerEngine's fused-op `is_supported`
classmethods narrow their base's answer this way."""

from __future__ import annotations

import pytest

from gatecheck.semantics.admitted import admitted

SOURCE = """
import functools
import torch

class Base:
    MAJOR = 9

    @classmethod
    def is_supported(cls):
        return torch.cuda.get_device_capability()[0] >= cls.MAJOR

    def fast(self):
        return torch.cuda.get_device_capability()[0] == 10


class Blackwell(Base):
    MAJOR = 10

    @classmethod
    @functools.lru_cache
    def is_supported(cls):
        return super().is_supported() and torch.cuda.get_device_capability()[0] < 12

    def fast(self):
        return super().fast() or torch.cuda.get_device_capability()[0] == 12


class Plain(Base):
    def fast(self):
        return super().missing()


def outside():
    return super().fast()
"""
NV_FROM_100 = {"sm100", "sm103", "sm110", "sm120", "sm121"}
EVERY = {
    *("sm70", "sm75", "sm80", "sm86", "sm87", "sm89", "sm90"),
    *NV_FROM_100,
    *("gfx90a", "gfx942", "gfx950"),
}


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        # the base's body, run with cls = Blackwell: MAJOR is 10
        pytest.param("Blackwell.is_supported()", {"sm100", "sm103", "sm110"}, id="classmethod"),
        pytest.param("Blackwell().fast()", {"sm100", "sm103", "sm120", "sm121"}, id="method"),
        pytest.param("Plain().fast()", EVERY, id="no-such-attribute-is-unknown"),
        pytest.param("outside()", EVERY, id="outside-a-class-is-unknown"),
    ],
)
def test_super_looks_up_after_the_methods_class(expr: str, expected: set[str]) -> None:
    assert admitted(SOURCE, expr) == expected
