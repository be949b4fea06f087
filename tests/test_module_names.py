"""Whether a project module binds a name (semantics/module_names.py): Python makes a
module's attribute only where a statement binding it runs, so `hasattr(kern,
"block_scale")` is the device test of the module-level `if` that imports it (nvidia-
modelopt's `hasattr(triton_kernel, "fp4_fake_quant_block")`, its kernels imported only
from compute capability 8.9). The file testing it spells no arch idiom: the audit finds
it through the names the `if` binds (audit/widening.py). Anything else on the way to the
binding (a `try`, a function, a module `__getattr__`, a star import from outside the
project) leaves it unknown: no row."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from gatecheck.audit import run_audit
from gatecheck.config.loader import load_ruleset

MakeTree = Callable[[Mapping[str, str]], Path]

FROM_SM89 = ["sm89", "sm90", "sm100", "sm103", "sm110", "sm120", "sm121"]

RUNNER = """\
from pkg import kern


def scale(x):
    if {test}:
        return kern.block_scale(x)
    return x * 4
"""

BLOCK_OPS = '__all__ = ["block_scale"]\n\n\ndef block_scale(x):\n    return x * 4\n'
PLAIN_OPS = '__all__ = ["plain_scale"]\n\n\ndef plain_scale(x):\n    return x * 2\n'


def _kern(binding: str) -> str:
    return (
        "import torch\n\n"
        "if torch.cuda.is_available():\n"
        "    from .plain_ops import *\n"
        "    if torch.cuda.get_device_capability() >= (8, 9):\n"
        f"{binding}"
    )


@pytest.mark.parametrize(
    ("kern", "test", "expected"),
    [
        pytest.param(
            _kern("        from .block_ops import *\n"),
            'hasattr(kern, "block_scale")',
            FROM_SM89,
            id="a-star-import-under-the-test",
        ),
        pytest.param(
            _kern("        from .block_ops import block_scale\n"),
            'hasattr(kern, "block_scale")',
            FROM_SM89,
            id="a-named-import-under-the-test",
        ),
        pytest.param(
            _kern("        def block_scale(x):\n            return x\n"),
            'hasattr(kern, "block_scale")',
            FROM_SM89,
            id="a-def-under-the-test",
        ),
        pytest.param(
            _kern("        block_scale = None\n"),
            'not hasattr(kern, "block_scale")',
            ["sm70", "sm75", "sm80", "sm86", "sm87"],
            id="an-assignment-negated",
        ),
        pytest.param(
            _kern("        from .block_ops import *\n"),
            'getattr(kern, "block_scale", None) is not None',
            FROM_SM89,
            id="getattr-with-a-default",
        ),
        # A block that may not get there (a try, a `with` whose manager may swallow
        # the import's failure: nvidia-modelopt's `with import_plugin("triton"):`):
        # unknown where the test holds, false where it does not.
        pytest.param(
            _kern(
                "        try:\n            from .block_ops import *\n"
                "        except ImportError:\n            pass\n"
            ),
            'hasattr(kern, "block_scale")',
            FROM_SM89,
            id="in-a-try",
        ),
        pytest.param(
            _kern("        with import_plugin('triton'):\n            from .block_ops import *\n"),
            'hasattr(kern, "block_scale")',
            FROM_SM89,
            id="in-a-with",
        ),
        # Noops: the module answers any name; a star import from outside the project
        # may bind it; bound wherever there is a device.
        pytest.param(
            _kern("        from .block_ops import *\n")
            + "\n\ndef __getattr__(name):\n    return None\n",
            'hasattr(kern, "block_scale")',
            None,
            id="noop-a-module-getattr",
        ),
        pytest.param(
            _kern("        from .block_ops import *\n") + "from extlib import *\n",
            'hasattr(kern, "block_scale")',
            None,
            id="noop-a-star-import-from-outside",
        ),
        pytest.param(
            _kern("        from .block_ops import *\n"),
            'hasattr(kern, "plain_scale")',
            None,
            id="noop-bound-wherever-there-is-a-device",
        ),
        pytest.param(
            _kern("        from .block_ops import *\n"),
            'hasattr(kern, "set_elsewhere") and kern.torch.cuda.get_device_capability()[0] >= 9',
            ["sm90", "sm100", "sm103", "sm110", "sm120", "sm121"],
            id="bound-by-no-statement-of-the-module",  # unknown: set on it from outside, perhaps
        ),
    ],
)
def test_a_name_bound_under_a_device_test(
    make_tree: MakeTree, kern: str, test: str, expected: list[str] | None
) -> None:
    root = make_tree(
        {
            "pkg/__init__.py": "",
            "pkg/kern/__init__.py": kern,
            "pkg/kern/block_ops.py": BLOCK_OPS,
            "pkg/kern/plain_ops.py": PLAIN_OPS,
            "pkg/runner.py": RUNNER.format(test=test),
        }
    )
    report = run_audit([root], load_ruleset([]), "sm120")
    rows = [g for g in report.gates if g.path.name == "runner.py"]
    if expected is None:
        assert rows == []
        return
    assert [g.found.line for g in rows] == [5]
    admitted = [g for g in rows[0].found.admits if g.startswith("sm")]
    assert sorted(admitted) == sorted(expected)


def test_only_files_asking_for_the_name_are_searched(make_tree: MakeTree) -> None:
    """A name bound under a device test is looked for where `hasattr`/`getattr` ask for
    it by its spelling, not wherever the string appears (a backend named like a module)."""
    root = make_tree(
        {
            "pkg/__init__.py": "",
            "pkg/kern/__init__.py": _kern("        from .block_ops import *\n"),
            "pkg/kern/block_ops.py": BLOCK_OPS,
            "pkg/kern/plain_ops.py": PLAIN_OPS,
            "pkg/runner.py": RUNNER.format(test='getattr(kern, "block_scale", None)'),
            "pkg/named.py": 'def pick(mode):\n    return mode == "block_scale"\n',
        }
    )
    report = run_audit([root], load_ruleset([]), "sm120")
    # kern/__init__.py spells the idiom; runner.py asks for the name; named.py does not.
    assert report.scanned == 2
    assert "block_scale" in report.device_names
