"""A module global a context manager sets for a while and puts back (`old = get_arch()`,
`_ARCH = override`, `finally: _ARCH = old`): the binding that puts the saved value back
adds no value of its own (semantics/restores.py), so readers of the global read what the
other bindings give (sglang 0.5.23's `get_jit_cuda_arch()`)."""

from __future__ import annotations

import pytest
from astroid import nodes

from gatecheck.config.model import RuleSet
from gatecheck.semantics.admitted import Semantics, in_memory_project
from gatecheck.semantics.restores import restores
from tests.test_parameter_filled_from_device import returned

_HEAD = """
import torch
from contextlib import contextmanager

class ArchInfo:
    def __init__(self, major, minor):
        self.major = major
        self.minor = minor

def _init_once():
    global _ARCH
    major, minor = torch.cuda.get_device_capability()
    _ARCH = ArchInfo(major, minor)

def get_arch():
    _init_once()
    return _ARCH

def gate():
    return get_arch().major >= 10
"""

_OVERRIDE = """
@contextmanager
def override_arch(major, minor):
    global _ARCH
    old = {saved}
    _ARCH = ArchInfo(major, minor)
    try:
        yield
    finally:
        _ARCH = old
"""

_DEVICE_CALLER = """
def build():
    major, minor = torch.cuda.get_device_capability()
    with override_arch(major, minor):
        return 1
"""

_CONSTANT_CALLER = """
def build_for_hopper():
    with override_arch(9, 0):
        return 1
"""

FROM_SM100 = {"sm100", "sm103", "sm110", "sm120", "sm121"}
EVERY = None  # every generation

# (source, where `gate()` can be true, and how: "rest" false everywhere else,
# "also-false" false everywhere too, "any" true everywhere)
CASES = [
    pytest.param(_HEAD, FROM_SM100, "rest", id="no-override"),
    pytest.param(
        _HEAD + _OVERRIDE.format(saved="get_arch()") + _DEVICE_CALLER,
        FROM_SM100,
        "rest",
        id="restore-through-getter",
    ),
    pytest.param(
        _HEAD + _OVERRIDE.format(saved="_ARCH") + _DEVICE_CALLER,
        FROM_SM100,
        "rest",
        id="restore-of-the-global",
    ),
    # Set to (9, 0) for a while: ArchInfo's `major` is the device's or 9, one of the
    # two its constructions pass (callers.py), so true from sm100 on only, and false
    # anywhere (during the override).
    pytest.param(
        _HEAD + _OVERRIDE.format(saved="get_arch()") + _CONSTANT_CALLER,
        FROM_SM100,
        "also-false",
        id="override-to-a-constant",
    ),
    # Not the global's own earlier value: a binding like any other.
    pytest.param(
        _HEAD + _OVERRIDE.format(saved="ArchInfo(9, 0)") + _DEVICE_CALLER,
        FROM_SM100,
        "also-false",
        id="saved-from-elsewhere",
    ),
    # The override's arguments are not known: neither is the global.
    pytest.param(_HEAD + _OVERRIDE.format(saved="get_arch()"), EVERY, "any", id="no-caller"),
]


@pytest.mark.parametrize(("source", "true", "how"), CASES)
def test_a_restored_global(ruleset: RuleSet, source: str, true: set[str] | None, how: str) -> None:
    project = in_memory_project({"arch": source})
    module = project.module("arch")
    assert module is not None
    semantics = Semantics(project, ruleset.registry, follow_callers=True)
    admission = semantics.admission(returned(module, "gate"))
    every = ruleset.registry.all_names()
    assert admission.can_be_true == (every if true is None else true)
    if how == "rest":
        assert admission.can_be_false == every - admission.can_be_true
    if how == "also-false":
        assert admission.can_be_false == every


# (function body, whether its `_G = ...` binding restores a value _G held)
SHAPES = [
    ("global _G\n    old = _G\n    _G = 1\n    _G = old", True),
    ("global _G\n    old = get()\n    _G = 1\n    _G = old", True),
    ("global _G\n    old = get(0)\n    _G = 1\n    _G = old", False),  # an argument
    ("global _G\n    old = other()\n    _G = 1\n    _G = old", False),  # not a getter
    ("global _G\n    old = _G\n    old = 2\n    _G = old", False),  # saved twice
    ("global _G\n    old = _G\n    _G = old + 1", False),  # not the value itself
]


@pytest.mark.parametrize(("body", "expected"), SHAPES)
def test_restore_shapes(body: str, expected: bool) -> None:
    source = f"_G = 0\n\ndef get():\n    return _G\n\ndef other():\n    return 3\n\ndef f():\n    {body}\n"
    project = in_memory_project({"m": source})
    module = project.module("m")
    assert module is not None
    function = next(f for f in module.nodes_of_class(nodes.FunctionDef) if f.name == "f")
    last = function.body[-1]
    assert isinstance(last, nodes.Assign)
    assert restores(last.targets[0]) is expected


_CONFIG = """
from contextlib import contextmanager

_CFG = None

@contextmanager
def set_cfg(cfg):
    global _CFG
    old = _CFG
    try:
        _CFG = cfg
        yield
    finally:
        _CFG = old

def get_cfg():
    return _CFG

def gate():
    return get_cfg() is None
"""


def test_the_override_a_restore_undoes_is_kept(ruleset: RuleSet) -> None:
    """astroid's lookup keeps only the last binding of `set_cfg` (the restore in
    `finally`): the override it undoes (`_CFG = cfg`, any config) takes its place, so
    the global is not read as the module's None alone."""
    project = in_memory_project({"cfg": _CONFIG})
    module = project.module("cfg")
    assert module is not None
    admission = Semantics(project, ruleset.registry, follow_callers=True).admission(
        returned(module, "gate")
    )
    every = ruleset.registry.all_names()
    assert admission.can_be_true == admission.can_be_false == every
