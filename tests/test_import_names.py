"""The module an import names (loading/resolve.absolute_import_name), relative imports
included. One climbing past the top of the scanned root (`from .hw import f` in
`support.py` of a root folder with no `__init__.py`, a namespace package to Python)
stops at the top: it named the sibling module, and raised astroid's TooManyLevelsError
before, a GC900 that dropped the gate (fix study L, sglang's `mini/` reproducer)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import astroid
import pytest
from astroid import nodes

from gatecheck.audit import GateClass, run_audit
from gatecheck.config.loader import load_ruleset
from gatecheck.loading.resolve import absolute_import_name

MakeTree = Callable[[Mapping[str, str]], Path]


@pytest.mark.parametrize(
    ("modname", "source", "expected"),
    [
        ("pkg.sub.mod", "from ..x import y", "pkg.x"),
        ("pkg.sub.mod", "from . import y", "pkg.sub"),
        ("pkg.sub", "from .x import y", "pkg.sub.x"),  # the package's __init__.py
        ("pkg.mod", "from x import y", "x"),
        # past the top: stops there
        ("support", "from .hw import f", "hw"),
        ("support", "from . import hw", ""),
        ("pkg.mod", "from ...x import y", "x"),
    ],
)
def test_absolute_import_names(modname: str, source: str, expected: str) -> None:
    path = "pkg/sub/__init__.py" if modname == "pkg.sub" else f"{modname.replace('.', '/')}.py"
    module = astroid.parse(source, module_name=modname, path=path)
    statement = module.body[0]
    assert isinstance(statement, nodes.ImportFrom)
    assert absolute_import_name(statement) == expected


def test_a_root_folder_without_init_reads_its_relative_imports(make_tree: MakeTree) -> None:
    root = make_tree(
        {
            "hw.py": "import torch\n\ndef is_sm90():\n"
            "    return torch.cuda.get_device_capability()[0] == 9\n",
            "support.py": "from .hw import is_sm90\n\ndef ok(block):\n"
            "    if block == 32 and is_sm90():\n        return True\n    return False\n",
        }
    )
    report = run_audit([root], load_ruleset([]), "sm120")
    rows = [g for g in report.gates if g.path.name == "support.py"]
    assert [(g.found.line, g.gate_class) for g in rows] == [(4, GateClass.DELIBERATE)]
    assert not [d for d in report.diagnostics if "GC900" in str(d)]


@pytest.mark.parametrize(
    ("init", "expected"),
    [
        # The package's __init__ imports its submodules (FlashInfer's cake backends):
        # `from . import jit` there is the submodule, not the package's attribute `jit`,
        # which is that very binding (read through itself, a cycle: unknown).
        pytest.param("from . import backend, jit\n", True, id="submodules"),
        pytest.param("", True, id="an-empty-init"),
        # Noop: a name the __init__ binds itself is its own attribute.
        pytest.param(
            "from . import backend\n\nclass jit:\n    @staticmethod\n"
            "    def arch_for(capability):\n        return None\n",
            False,
            id="noop-a-name-of-the-package-itself",
        ),
    ],
)
def test_a_package_importing_its_own_submodules(
    make_tree: MakeTree, init: str, expected: bool
) -> None:
    root = make_tree(
        {
            "pkg/__init__.py": init,
            "pkg/jit.py": (
                "TABLE = {(10, 0): 'sm_100a', (10, 3): 'sm_103a'}\n\n"
                "def arch_for(capability):\n    return TABLE.get(tuple(capability))\n"
            ),
            "pkg/backend.py": (
                "import torch\n\nfrom . import jit\n\n"
                "def route(index):\n"
                "    arch = jit.arch_for(torch.cuda.get_device_capability(index))\n"
                "    if arch is None:\n        return None\n    return arch\n"
            ),
        }
    )
    report = run_audit([root], load_ruleset([]), "sm120")
    rows = [g for g in report.gates if g.path.name == "backend.py" and g.found.line == 7]
    if not expected:
        assert rows == []
    else:
        assert [r.found.admits for r in rows] == [frozenset({"sm100", "sm103"})]
