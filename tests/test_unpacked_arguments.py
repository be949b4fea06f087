"""A call that unpacks known values (semantics/calls._unpacked): `check(**TABLE[key])`
with a dict of keyword arguments written in the project (Hugging Face's compatibility
matrices), `f(*ARGS)` with a known tuple or the capability (`DeviceCapability(*cap)`,
SGLang's compressed-tensors scheme check), is the call with those arguments. Anything
else unpacked (an unknown dict, a string's characters, a set's items) leaves the call to
the callee's name, as before."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from tests.admission import EVERY, assert_can_be_true

BELOW_9 = frozenset({"sm70", "sm75", "sm80", "sm86", "sm87", "sm89"})
SOURCE = """\
import torch

def too_old(name, lim=None):
    major, _ = torch.cuda.get_device_capability()
    return major < lim

TABLE = {"fa2": {"name": "fa2", "lim": 9}, "fa1": {"name": "fa1", "lim": 8}}
ARGS = ("fa2", 9)

def sm(major, minor):
    return major * 10 + minor
"""

CASES = [
    pytest.param('too_old(**{"name": "z", "lim": 9})', BELOW_9, id="dict-literal"),
    pytest.param('too_old(**TABLE["fa2"])', BELOW_9, id="dict-from-a-table"),
    pytest.param("too_old(*ARGS)", BELOW_9, id="tuple-of-positionals"),
    pytest.param('too_old("z", **{"lim": 8})', frozenset({"sm70", "sm75"}), id="mixed"),
    pytest.param(
        "sm(*torch.cuda.get_device_capability()) >= 100",
        frozenset({"sm100", "sm103", "sm110", "sm120", "sm121"}),
        id="the-capability",
    ),
    pytest.param("too_old(**unknown)", EVERY, id="an-unknown-dict"),
    pytest.param(
        "sm(*{torch.cuda.get_device_capability()[0], 1}) == 91", EVERY, id="a-set-unpacked"
    ),
    pytest.param('too_old(*"ab")', EVERY, id="a-string-unpacked"),
    pytest.param('too_old(**{"lim": 9}, **{"lim": 8})', EVERY, id="a-keyword-twice-raises"),
]


@pytest.mark.parametrize(("expr", "expected"), CASES)
def test_unpacked_arguments(ruleset: RuleSet, expr: str, expected: object) -> None:
    assert_can_be_true(ruleset, SOURCE, expr, expected)
