"""A package vendored inside the scanned tree that imports itself by its own top-level
name (loading/vendored.py): `from kernlib.caps import has_fp4` inside
`app/third_party/kernlib/` is that copy's module. Pure tables over in-memory module
indexes, then one audit of a mini project, with the noops: a package named like a
library it wraps, two packages of one name, a top-level module of that name."""

from __future__ import annotations

from pathlib import Path

import pytest

from gatecheck.audit import run_audit
from gatecheck.config.loader import load_ruleset
from gatecheck.loading.project import Project
from gatecheck.loading.vendored import vendored_package
from tests.test_audit import MakeTree

CAPS = (
    "from triton.language.target_info import cuda_capability_geq\n\ndef has_fp4():\n    return 1\n"
)


def _index(files: dict[str, str]) -> tuple[list[str], dict[str, Path], dict[Path, str]]:
    """(packages, module name -> path, path -> text) of in-memory files by dotted name
    (a name ending in `.__init__` is its package)."""
    modules: dict[str, Path] = {}
    texts: dict[Path, str] = {}
    packages = []
    for dotted, text in files.items():
        if dotted.endswith(".__init__"):
            name = dotted.removesuffix(".__init__")
            path = Path("/mem", *name.split("."), "__init__.py")
            packages.append(name)
        else:
            name = dotted
            path = Path("/mem", *name.split(".")).with_suffix(".py")
        modules[name] = path
        texts[path] = text
    return packages, modules, texts


VENDORED = {
    "app.__init__": "",
    "app.third_party.__init__": "",
    "app.third_party.kernlib.__init__": "",
    "app.third_party.kernlib.caps": CAPS,
    "app.third_party.kernlib.details.__init__": "",
}

CASES = [
    pytest.param(
        {
            **VENDORED,
            "app.third_party.kernlib.details.swap": (
                "from kernlib import caps\nfrom kernlib.caps import has_fp4, cuda_capability_geq\n"
            ),
        },
        "kernlib",
        "app.third_party.kernlib",
        id="imports-what-it-defines",
    ),
    pytest.param(
        {
            **VENDORED,
            "app.third_party.kernlib.details.swap": "from kernlib.caps import (\n    has_fp4,\n)\n",
        },
        "kernlib",
        "app.third_party.kernlib",
        id="parenthesized",
    ),
    # vLLM's `compressed_tensors` quantization package, importing from the library.
    pytest.param(
        {
            "app.__init__": "",
            "app.quant.__init__": "",
            "app.quant.compressed_tensors.__init__": "",
            "app.quant.compressed_tensors.transform": "from x import y\n",
            "app.quant.compressed_tensors.scheme": (
                "from compressed_tensors.transform import TransformScheme\n"
            ),
        },
        "compressed_tensors",
        None,
        id="named-like-the-library-it-wraps",
    ),
    # TransformerEngine's `jax/sharding.py` imports `PartitionSpec` from jax.sharding.
    pytest.param(
        {
            "te.__init__": "",
            "te.jax.__init__": "",
            "te.jax.sharding": "from jax.sharding import PartitionSpec\nMESH = None\n",
        },
        "jax",
        None,
        id="a-library-module-of-the-same-name",
    ),
    pytest.param(
        {
            **VENDORED,
            "app.other.__init__": "",
            "app.other.kernlib.__init__": "",
            "app.third_party.kernlib.details.swap": "from kernlib.caps import has_fp4\n",
        },
        "kernlib",
        None,
        id="two-packages-of-that-name",
    ),
    pytest.param(
        {**VENDORED, "app.third_party.kernlib.details.swap": "from kernlib.caps import *\n"},
        "kernlib",
        None,
        id="a-star-import-shows-nothing",
    ),
]


@pytest.mark.parametrize(("files", "top", "expected"), CASES)
def test_vendored_package(files: dict[str, str], top: str, expected: str | None) -> None:
    packages, modules, texts = _index(files)
    assert vendored_package(top, packages, modules, texts.get) == expected


def test_the_vendored_copy_is_read_where_it_imports_itself(make_tree: MakeTree) -> None:
    root = make_tree(
        {
            "app/__init__.py": "",
            "app/third_party/__init__.py": "",
            "app/third_party/kernlib/__init__.py": "",
            "app/third_party/kernlib/caps.py": (
                "import torch\n\ndef has_fp4():\n"
                "    return torch.cuda.get_device_capability() >= (10, 0)\n"
            ),
            "app/third_party/kernlib/details/__init__.py": "",
            "app/third_party/kernlib/details/swap.py": (
                "from kernlib import caps\n\ndef pick(x):\n    if caps.has_fp4():\n"
                "        return x\n    return None\n"
            ),
        }
    )
    report = run_audit([root], load_ruleset([]), "sm120")
    hops = {(h.path.name, h.line) for h in report.hops}
    assert ("swap.py", 4) in hops


def test_a_top_level_module_of_that_name_is_itself(make_tree: MakeTree) -> None:
    root = make_tree(
        {
            "kernlib/__init__.py": "",
            "kernlib/caps.py": "X = 1\n",
            "app/__init__.py": "",
            "app/kernlib/__init__.py": "",
            "app/kernlib/caps.py": "from kernlib.caps import X\nX = 2\n",
        }
    )
    files = sorted(root.rglob("*.py"))
    project = Project(files, roots=[root])
    assert project.canonical("kernlib.caps") == "kernlib.caps"
