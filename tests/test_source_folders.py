"""A module has the name its code imports it by, not only the one its folders spell: a
checkout keeps a distribution's packages in a source folder (`python/` beside a
pyproject.toml in SGLang's repository, `src/`, a wheel's folder beside its `.dist-info`),
and `from sglang.srt.utils import is_sm120_supported` must reach `python/sglang/srt/utils.py`
(ModuleNamer.alias). Without it every predicate of such a checkout was unreadable and the
gates' admitted sets were guessed from names."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner

from gatecheck.audit import run_audit
from gatecheck.cli import cli
from gatecheck.config.loader import load_ruleset
from gatecheck.impact.scope import changed_names, reached_files
from gatecheck.loading.project import ModuleNamer, Project
from tests.conftest import FIXTURES

MakeTree = Callable[[Mapping[str, str]], Path]

PYPROJECT = '[project]\nname = "x"\n'

# (files of the tree, the file asked about, its name, its second name or None)
NAMES = [
    pytest.param(
        {"python/pyproject.toml": PYPROJECT, "python/pkg/__init__.py": "", "python/pkg/m.py": ""},
        "python/pkg/m.py",
        "python.pkg.m",
        "pkg.m",
        id="a package beside pyproject.toml",
    ),
    pytest.param(
        {"python/setup.py": "", "python/pkg/__init__.py": "", "python/pkg/sub/m.py": ""},
        "python/pkg/sub/m.py",
        "python.pkg.sub.m",
        "pkg.sub.m",
        id="a namespace subpackage below it (sglang/srt has no __init__.py)",
    ),
    pytest.param(
        {"python/setup.cfg": "", "python/pkg/__init__.py": ""},
        "python/pkg/__init__.py",
        "python.pkg",
        "pkg",
        id="the package itself",
    ),
    pytest.param(
        {"w/x-1.0.dist-info/METADATA": "", "w/fla/__init__.py": "", "w/fla/utils.py": ""},
        "w/fla/utils.py",
        "w.fla.utils",
        "fla.utils",
        id="an unpacked wheel in a folder",
    ),
    pytest.param(
        {"w/x.egg-info/PKG-INFO": "", "w/pkg/__init__.py": ""},
        "w/pkg/__init__.py",
        "w.pkg",
        "pkg",
        id="an egg-info",
    ),
    pytest.param(
        {"pyproject.toml": PYPROJECT, "src/pkg/__init__.py": "", "src/pkg/m.py": ""},
        "src/pkg/m.py",
        "src.pkg.m",
        "pkg.m",
        id="src layout",
    ),
    pytest.param(
        {"a/pyproject.toml": PYPROJECT, "a/src/pkg/__init__.py": ""},
        "a/src/pkg/__init__.py",
        "a.src.pkg",
        "pkg",
        id="src layout one folder down",
    ),
    pytest.param(
        {"pyproject.toml": PYPROJECT, "python/pkg/__init__.py": "", "python/pkg/m.py": ""},
        "python/pkg/m.py",
        "python.pkg.m",
        "pkg.m",
        id="python/ beside the packaging file (sgl-kernel, Triton)",
    ),
    pytest.param(
        {"setup.py": "", "lib/pkg/__init__.py": ""},
        "lib/pkg/__init__.py",
        "lib.pkg",
        None,
        id="noop: another folder beside the packaging file",
    ),
    pytest.param(
        {"python/pyproject.toml": PYPROJECT, "python/tool.py": ""},
        "python/tool.py",
        "python.tool",
        "tool",
        id="a top-level module of the source folder",
    ),
    # Noops: the second name would be wrong or is the same.
    pytest.param(
        {"pyproject.toml": PYPROJECT, "pkg/__init__.py": "", "pkg/m.py": ""},
        "pkg/m.py",
        "pkg.m",
        None,
        id="noop: the root is the source folder, named from it already",
    ),
    pytest.param(
        {"megatron/core/__init__.py": "", "megatron/core/m.py": ""},
        "megatron/core/m.py",
        "megatron.core.m",
        None,
        id="noop: a bare namespace folder is not a source folder",
    ),
    pytest.param(
        {"src/pkg/__init__.py": "", "src/pkg/m.py": ""},
        "src/pkg/m.py",
        "src.pkg.m",
        None,
        id="noop: src without a packaging file beside it",
    ),
    pytest.param(
        {
            "pkg/__init__.py": "",
            "pkg/ops/setup.py": "",
            "pkg/ops/triton/__init__.py": "",
        },
        "pkg/ops/triton/__init__.py",
        "pkg.ops.triton",
        None,
        id="noop: a folder inside a package is not a source folder (vendored triton)",
    ),
    pytest.param(
        {"python/pyproject.toml": PYPROJECT, "python/__init__.py": "", "python/pkg/m.py": ""},
        "python/pkg/m.py",
        "python.pkg.m",
        None,
        id="noop: a folder holding __init__.py is a package, not a source folder",
    ),
]


@pytest.mark.parametrize(("files", "asked", "name", "alias"), NAMES)
def test_module_names(
    make_tree: MakeTree, files: Mapping[str, str], asked: str, name: str, alias: str | None
) -> None:
    root = make_tree(files)
    namer = ModuleNamer([root])
    assert namer.name(root / asked) == name
    assert namer.alias(root / asked) == alias


def test_a_files_own_name_wins_over_a_second_name(make_tree: MakeTree) -> None:
    """`pkg.m` is another file's own name: the source folder's modules keep the names
    from the folders, all of them (a relative import in `python/pkg/only.py` resolves
    against its own name: named `pkg.only`, `from . import m` would reach the other
    `pkg/m.py`); its free second names still reach them."""
    root = make_tree(
        {
            "pkg/__init__.py": "",
            "pkg/m.py": "",
            "python/pyproject.toml": PYPROJECT,
            "python/pkg/__init__.py": "",
            "python/pkg/m.py": "",
            "python/pkg/only.py": "from . import m\n",
        }
    )
    project = Project(sorted(root.rglob("*.py")), [root])
    assert project.path_of("pkg.m") == root / "pkg" / "m.py"
    assert project.canonical("pkg.m") == "pkg.m"
    assert project.path_of("pkg.only") == root / "python" / "pkg" / "only.py"
    assert project.canonical("pkg.only") == "python.pkg.only"
    assert project.canonical("elsewhere.m") == "elsewhere.m"
    assert project.name_of(root / "python" / "pkg" / "only.py") == "python.pkg.only"
    assert project.name_of(root / "python" / "pkg" / "m.py") == "python.pkg.m"


def test_a_source_folders_modules_are_named_as_imported(make_tree: MakeTree) -> None:
    """No second name of the source folder is taken: each module's own name is the one
    the code imports it by, and the name from the folders still reaches it."""
    root = make_tree(
        {
            "python/pyproject.toml": PYPROJECT,
            "python/pkg/__init__.py": "",
            "python/pkg/sub/m.py": "",
            "tools/x.py": "",
        }
    )
    project = Project(sorted(root.rglob("*.py")), [root])
    m = root / "python" / "pkg" / "sub" / "m.py"
    assert project.name_of(m) == "pkg.sub.m"
    assert project.name_of(root / "python" / "pkg" / "__init__.py") == "pkg"
    assert project.name_of(root / "tools" / "x.py") == "tools.x"
    assert project.path_of("python.pkg.sub.m") == m
    assert project.canonical("python.pkg.sub.m") == "pkg.sub.m"
    assert project.canonical("pkg.sub.m") == "pkg.sub.m"
    module = project.module_at(m)
    assert module is not None and module.name == "pkg.sub.m"


PREDICATES = """\
import torch


def is_sm100_supported():
    return torch.cuda.get_device_capability()[0] == 10


def is_sm120_supported():
    return torch.cuda.get_device_capability() == (12, 0)
"""


@pytest.mark.parametrize(
    ("importing", "expected"),
    [
        (
            "from pkg.utils import is_sm100_supported\nif is_sm100_supported():\n    KERNEL = 1\n",
            ["sm100", "sm103"],
        ),
        (
            "import pkg.utils\nif pkg.utils.is_sm100_supported():\n    KERNEL = 1\n",
            ["sm100", "sm103"],
        ),
        ("import pkg.utils as u\nif u.is_sm120_supported():\n    KERNEL = 1\n", ["sm120"]),
        ("from pkg import utils\nif utils.is_sm120_supported():\n    KERNEL = 1\n", ["sm120"]),
        (
            "from .utils import is_sm100_supported\nif is_sm100_supported():\n    KERNEL = 1\n",
            ["sm100", "sm103"],
        ),
        ("from pkg.utils import *\nif is_sm120_supported():\n    KERNEL = 1\n", ["sm120"]),
    ],
)
def test_gates_read_through_the_imported_name(
    make_tree: MakeTree, importing: str, expected: list[str]
) -> None:
    root = make_tree(
        {
            "python/pyproject.toml": PYPROJECT,
            "python/pkg/__init__.py": "",
            "python/pkg/utils.py": PREDICATES,
            "python/pkg/mod.py": importing,
        }
    )
    report = run_audit([root], load_ruleset([]), "sm120")
    rows = [g for g in report.gates if g.path.name == "mod.py"]
    assert [sorted(g.found.admission.can_be_true) for g in rows] == [expected]
    assert all(not g.found.admission.assumed for g in rows)


def _checkout(tmp_path: Path) -> Path:
    """fixtures/seed_alias laid out as an engine's repository keeps it (SGLang's checkout):
    the package under `python/` beside the distribution's pyproject.toml, `sglang/srt/`
    a namespace package (no __init__.py), every module importing `sglang.srt...`."""
    root = tmp_path / "checkout"
    shutil.copytree(FIXTURES / "seed_alias" / "sglang", root / "python" / "sglang")
    (root / "python" / "sglang" / "srt" / "__init__.py").unlink()
    (root / "python" / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    return root


def test_the_seed_in_a_checkout_reads_the_predicates(tmp_path: Path) -> None:
    """The seed under `python/`: the same findings as the wheel's layout, none of them
    assumed from names, and the rule's gate function found by its imported name (no
    "names nothing in the scanned tree" warning)."""
    runner = CliRunner()

    def findings(fixture: Path) -> list[tuple[str, int, list[str], list[str]]]:
        result = runner.invoke(cli, ["check", str(fixture), "--format", "json", "--no-cache"])
        assert result.exit_code == 1, result.output
        assert "names nothing" not in result.stderr
        return sorted(
            (Path(f["path"]).name, f["start"]["line"], f["admitted"], f["assumed"])
            for f in json.loads(result.stdout)["findings"]
        )

    checkout = findings(_checkout(tmp_path))
    assert checkout == findings(FIXTURES / "seed_alias")
    audited = runner.invoke(
        cli, ["audit", str(tmp_path / "checkout"), "--generation", "sm120", "--format", "json"]
    )
    qualnames = {row["qualname"] for row in json.loads(audited.stdout)["gates"]}
    assert qualnames and all(q.startswith("sglang.srt.") for q in qualnames), qualnames
    assert [row[3] for row in checkout] == [[], []]
    assert [row[2] for row in checkout] == [["sm90", "sm100", "sm103"]] * 2


def test_a_change_reaches_the_importers_of_either_name(make_tree: MakeTree) -> None:
    root = make_tree(
        {
            "python/pyproject.toml": PYPROJECT,
            "python/pkg/__init__.py": "",
            "python/pkg/utils.py": PREDICATES,
            "python/pkg/by_import.py": "from pkg.utils import is_sm100_supported\n",
            "python/pkg/by_relative.py": "from .utils import is_sm100_supported\n",
            "python/pkg/other.py": "from pkg.elsewhere import is_sm100_supported\n",
        }
    )
    files = sorted(root.rglob("*.py"))
    utils = root / "python" / "pkg" / "utils.py"
    old = PREDICATES.replace("== 10", "== 9")
    changed = {utils: changed_names(old, PREDICATES)}
    reached = reached_files(files, [root], changed, lambda p: p.read_text("utf-8"))
    assert {p.name for p in reached} == {"utils.py", "by_import.py", "by_relative.py"}


def test_a_cached_run_sees_a_new_source_folder(make_tree: MakeTree) -> None:
    """The cache holds no packaging file, yet one added beside a package renames its
    modules: the key names the source folders (cli/caching.py)."""
    root = make_tree(
        {
            "python/pkg/__init__.py": "",
            "python/pkg/utils.py": PREDICATES,
            "python/pkg/mod.py": "from pkg.utils import is_sm100_supported\n\n"
            "if is_sm100_supported():\n    KERNEL = 1\n",
            # A second package of that name: `pkg` is no vendored copy's either
            # (loading/vendored.py), only the source folder's.
            "tools/pkg/__init__.py": "",
        }
    )
    runner = CliRunner()

    def assumed() -> list[list[str]]:
        args = ["audit", str(root), "--generation", "sm120", "--format", "json", "-j", "1"]
        result = runner.invoke(cli, args)
        assert result.exit_code in (0, 1), result.output
        gates = json.loads(result.stdout)["gates"]  # the predicates' own tests aside
        return [g["assumed"] for g in gates if not g["definition"]]

    assert assumed() == [["name 'is_sm100_supported' (naming convention)"]]
    assert assumed() == [["name 'is_sm100_supported' (naming convention)"]]  # cached
    (root / "python" / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    assert assumed() == [[]]
