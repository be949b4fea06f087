"""A call memo key names an instance argument by identity and holds it: an id alone
names another instance once the first is freed, and the answer then depended on where
the allocator put the next one (on PYTHONHASHSEED: FlashInfer 0.7.4's cake_fmha.py:5032
was a row in one run of four)."""

from __future__ import annotations

import gc
import weakref

import astroid

from gatecheck.semantics.calls import _freeze
from gatecheck.semantics.values import InstanceRef

CLASS = astroid.extract_node("class Route:\n    pass\n")


def test_an_instance_is_held_by_its_key() -> None:
    route = InstanceRef(CLASS, {"component": "decode"})
    key = _freeze((route,))
    alive = weakref.ref(route)
    del route
    gc.collect()
    held = alive()
    assert held is not None
    assert _freeze((held,)) == key


def test_two_instances_alike_are_two_keys() -> None:
    first = InstanceRef(CLASS, {"component": "decode"})
    second = InstanceRef(CLASS, {"component": "decode"})
    assert _freeze(first) != _freeze(second)
    assert _freeze(first) == _freeze(first)
    assert hash(_freeze(first)) == hash(_freeze(first))
