"""Objects chosen on paths the generation does not decide, and getters that keep what
their first call made (semantics/logic.join_optional, statements._filled_on_first_call):
`get_backend()` returns one of the objects its paths make, and a method called on it is
each one's (known where they agree). Pure: in memory."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from gatecheck.semantics.admitted import Semantics, in_memory_project
from tests.admission import EVERY, assert_can_be_true
from tests.test_parameter_filled_from_device import returned

FROM_SM80 = frozenset(
    {"sm80", "sm86", "sm87", "sm89", "sm90", "sm100", "sm103", "sm110", "sm120", "sm121"}
) | {"gfx90a", "gfx942", "gfx950"}  # ROCm reports the gfx9 parts as capability 9.x

CLASSES = """\
import os, torch

class Cuda:
    def triton_ok(self):
        major, _ = torch.cuda.get_device_capability()
        return major >= 8

class Cpu:
    def triton_ok(self):
        return False
"""

CHOSEN = [
    pytest.param(
        "def get():\n    if os.environ.get('X'):\n        return Cuda()\n    return Cpu()\n",
        FROM_SM80,
        id="returned-on-two-paths",
    ),
    pytest.param(
        "def get():\n    if os.environ.get('X'):\n        inst = Cuda()\n    else:\n"
        "        inst = Cpu()\n    return inst\n",
        FROM_SM80,
        id="a-local-made-in-two-branches",
    ),
    pytest.param(
        "def get():\n    inst = None\n    if os.environ.get('X'):\n        inst = Cuda()\n"
        "    elif os.environ.get('Y'):\n        inst = Cpu()\n    return inst\n",
        FROM_SM80,  # None has no method: where the call runs, one of the objects
        id="a-local-that-may-stay-none",
    ),
    pytest.param(
        "def get():\n    if os.environ.get('X'):\n        return Cuda\n    return Cpu\n",
        FROM_SM80,
        id="classes-returned",
    ),
    # Noop: an object gatecheck cannot read among them.
    pytest.param(
        "import ext\ndef get():\n    if os.environ.get('X'):\n        return Cuda()\n"
        "    return ext.Backend()\n",
        EVERY,
        id="an-external-object-among-them",
    ),
]


@pytest.mark.parametrize(("source", "expected"), CHOSEN)
def test_a_method_of_one_of_the_objects_made(
    ruleset: RuleSet, source: str, expected: object
) -> None:
    call = "get()().triton_ok()" if "return Cpu\n" in source else "get().triton_ok()"
    assert_can_be_true(ruleset, CLASSES + source, call, expected)


GETTER = """\
_backend = None

def get_backend():
    global _backend
    if _backend is not None:
        return _backend
    if os.environ.get("USE_CPU"):
        _backend = Cpu()
    else:
        _backend = Cuda()
    return _backend
"""

FILLED = [
    pytest.param(GETTER, FROM_SM80, id="kept-after-an-early-return"),
    pytest.param(
        "_backend = None\n\ndef get_backend():\n    global _backend\n    if _backend is None:\n"
        "        _backend = Cuda()\n    return _backend\n",
        FROM_SM80,
        id="filled-under-a-none-test",
    ),
    pytest.param(
        GETTER + "\ndef set_backend(obj):\n    global _backend\n    _backend = obj\n",
        FROM_SM80,  # the project never calls the setter: not one of its runs
        id="a-setter-never-called",
    ),
    # Noops.
    pytest.param(
        GETTER + "\ndef set_backend(obj):\n    global _backend\n    _backend = obj\n"
        "\ndef init():\n    set_backend(object())\n",
        EVERY,
        id="a-setter-the-project-calls",
    ),
    pytest.param(
        GETTER.replace("def get_backend():", "def get_backend(kind=None):"),
        EVERY,  # a later call's argument may differ from the first's
        id="a-getter-with-arguments",
    ),
    pytest.param(
        GETTER.replace("_backend = None\n", "_backend = Cpu()\n", 1),
        FROM_SM80,  # not a first-call getter: one of the global's bindings, all objects
        id="an-object-before-the-first-call",
    ),
]


@pytest.mark.parametrize(("source", "expected"), FILLED)
def test_a_getter_returns_what_its_first_call_made(
    ruleset: RuleSet, source: str, expected: object
) -> None:
    project = in_memory_project(
        {"m": CLASSES + source + "\ndef gate():\n    return get_backend().triton_ok()\n"}
    )
    module = project.module("m")
    assert module is not None
    semantics = Semantics(project, ruleset.registry, follow_callers=True)
    admission = semantics.admission(returned(module, "gate"))
    assert admission.can_be_true == (
        ruleset.registry.all_names() if expected == EVERY else expected
    )
