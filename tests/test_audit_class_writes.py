"""A class attribute the class body sets and code elsewhere assigns again
(`Utils.is_installed = True` once the package is found, or through an alias of the
class) is one of those values (semantics/class_writes.py): a condition reading it with
the capability is a gate, not false everywhere."""

from __future__ import annotations

import pytest

from gatecheck.audit.run import run_audit
from gatecheck.config.loader import load_ruleset
from tests.test_audit import MakeTree

UTILS = """\
import torch


class Utils:
    v3_installed = False


class Other:
    v3_installed = False


def use_v3(requested):
    return requested and Utils.v3_installed and torch.cuda.get_device_capability() == (9, 0)
"""
ROW_LINE = 13


@pytest.mark.parametrize(
    ("files", "listed"),
    [
        pytest.param(
            {
                "pkg/probe.py": "from pkg.utils import Utils\n\n\n"
                "def probe():\n    Utils.v3_installed = True\n"
            },
            True,
            id="set-by-a-function-elsewhere",
        ),
        pytest.param(
            {
                "pkg/probe.py": "from pkg.utils import Utils as fa_utils\n\n\n"
                "def probe():\n    fa_utils.v3_installed = True\n"
            },
            True,
            id="set-through-an-alias",
        ),
        pytest.param(
            {
                "pkg/probe.py": "from pkg.utils import Other, Utils\n\n\n"
                "def probe(found: Utils):\n    Other.v3_installed = True\n"
            },
            False,
            id="another-class-set-stays-false",
        ),
        pytest.param({}, False, id="never-set-stays-false"),
    ],
)
def test_a_class_attribute_set_elsewhere_is_one_of_its_values(
    make_tree: MakeTree, files: dict[str, str], listed: bool
) -> None:
    root = make_tree({"pkg/__init__.py": "", "pkg/utils.py": UTILS, **files})
    report = run_audit([root], load_ruleset([]), "sm120")
    lines = [g.found.line for g in report.gates if g.path.name == "utils.py"]
    assert (ROW_LINE in lines) == listed
