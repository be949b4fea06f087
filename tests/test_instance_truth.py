"""An instance's truth (semantics/values.plainly_true): true only where its class, read
alone, may not define `__bool__` or `__len__`; else unknown. Read as always true, torch's
`SM100OrLater = LazyVal(lambda: ...)` (a class decorator installs `__bool__`) made
`not SM100OrLater` admit no generation: narrower than the truth."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from tests.admission import EVERY, assert_can_be_true

AMD = frozenset({"gfx90a", "gfx942", "gfx950"})
SM90_UP = AMD | {"sm90", "sm100", "sm103", "sm110", "sm120", "sm121"}
HEADER = """\
import abc
import dataclasses
import torch

cap = torch.cuda.get_device_capability()


def make_lazy(cls):
    def truth(self):
        return bool(self.f())

    setattr(cls, "__bool__", truth)
    return cls


@make_lazy
class LazyVal:
    def __init__(self, f):
        self.f = f


class Flag:
    def __bool__(self):
        return cap >= (8, 0)


class Sized:
    def __len__(self):
        return 0


class Child(Flag):
    pass


class External(torch.Tensor):
    pass


class Plain:
    pass


class Base(abc.ABC):
    pass


class Derived(Base):
    pass


@dataclasses.dataclass
class Record:
    x: int = 0


SM100 = LazyVal(lambda: cap >= (10, 0))
"""

CASES = [
    # unknown: a class that defines its truth, or may (a decorator, an unread base)
    pytest.param("not SM100 and cap >= (9, 0)", SM90_UP, id="decorator-installs-bool"),
    pytest.param("not Flag() and cap >= (9, 0)", SM90_UP, id="defines-bool"),
    pytest.param("not Sized() and cap >= (9, 0)", SM90_UP, id="defines-len"),
    pytest.param("not Child() and cap >= (9, 0)", SM90_UP, id="inherits-bool"),
    pytest.param("not External() and cap >= (9, 0)", SM90_UP, id="base-outside-the-project"),
    # a project base is not resolved for it (its module perhaps never built)
    pytest.param("not Derived() and cap >= (9, 0)", SM90_UP, id="project-base-not-read"),
    # noops: always true
    pytest.param("not Plain() and cap >= (9, 0)", frozenset(), id="noop-plain-class"),
    pytest.param("Plain() and cap >= (9, 0)", SM90_UP, id="noop-plain-class-true"),
    pytest.param("not Record() and cap >= (9, 0)", frozenset(), id="noop-dataclass"),
    pytest.param("not Base() and cap >= (9, 0)", frozenset(), id="noop-abc-base"),
]


@pytest.mark.parametrize(("expr", "admitted"), CASES)
def test_instance_truth(ruleset: RuleSet, expr: str, admitted: frozenset[str]) -> None:
    assert_can_be_true(ruleset, HEADER, expr, admitted)


def test_every_generation_is_the_sound_answer(ruleset: RuleSet) -> None:
    assert_can_be_true(ruleset, HEADER, "not SM100", EVERY)
