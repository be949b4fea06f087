"""The command line imports astroid without its brains (loading/brainless.py): none of
astroid's brain modules, nor what numpy's brain pulls in (`importlib.metadata`), is
loaded, and the answers are those of an astroid with every brain registered. Each case in
a fresh interpreter: which astroid a process has is decided by its first import."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"

LOADED = """\
import json, sys
{first}
import gatecheck.cli, gatecheck.engine, gatecheck.audit.classify
from astroid.manager import AstroidManager
import astroid
print(json.dumps({{
    "skipped": {skipped},
    "brains": sorted(m for m in sys.modules if m.startswith("astroid.brain.brain_")),
    "metadata": "importlib.metadata" in sys.modules,
    "manager": type(astroid.MANAGER) is AstroidManager,
}}))
"""


def _probe(first: str, skipped: str) -> dict[str, object]:
    code = LOADED.format(first=first, skipped=skipped)
    done = subprocess.run(
        [sys.executable, "-c", code], env=_env(), capture_output=True, text=True, check=True
    )
    loaded: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return loaded


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO)}


def test_command_line_imports_no_brain() -> None:
    loaded = _probe("", "None")
    assert loaded["brains"] == []
    assert loaded["metadata"] is False
    assert loaded["manager"] is True  # astroid.MANAGER is still the (borg) manager


def test_noop_when_astroid_is_already_imported() -> None:
    """A process that imported astroid first keeps it as it is: skip_brains says so."""
    first = "import astroid\nfrom gatecheck.loading.brainless import skip_brains"
    loaded = _probe(first, "skip_brains()")
    assert loaded["skipped"] is False  # the reason: astroid was there already
    assert "astroid.brain.brain_numpy_utils" in loaded["brains"]  # registered as astroid does


# An astroid with every brain, then the command line: the answers a library user gets.
BRAINLESS = "import sys; from gatecheck.cli import main; sys.argv[0] = 'gatecheck'; main()"
WITH_BRAINS = f"import astroid; {BRAINLESS}"

# What astroid's brains model (dataclasses, enums, namedtuples, functools.partial, typing)
# around device tests: with transforms applied these would read differently.
MODELLED = {
    "pkg/__init__.py": "",
    "pkg/arch.py": """\
        import enum
        import functools
        from collections import namedtuple
        from dataclasses import dataclass, field
        from typing import NamedTuple

        import torch


        class Arch(enum.IntEnum):
            HOPPER = 9
            BLACKWELL = 10


        Cap = namedtuple("Cap", ["major", "minor"])


        class Pair(NamedTuple):
            major: int
            minor: int


        @dataclass
        class Target:
            major: int = field(default=9)
            archs: list = field(default_factory=lambda: [9, 10])


        def cap():
            return Cap(*torch.cuda.get_device_capability())


        def is_arch(arch, major):
            return major == arch.value


        is_hopper = functools.partial(is_arch, Arch.HOPPER)


        def use_fast():
            major, _ = torch.cuda.get_device_capability()
            if major == Arch.BLACKWELL:
                return 1
            if major == Target().major or major in Target().archs:
                return 2
            if is_hopper(major) or cap().major == 8:
                return 3
            return Pair(major, 0).major >= 9
        """,
}


CHECK = ["check", ".", "--format", "json", "--no-cache"]
AUDIT = ["audit", ".", "--generation", "sm120", "--format", "json", "--no-cache", "-q"]


def _run(code: str, args: Sequence[str], cwd: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code, *args], cwd=cwd, env=_env(), capture_output=True, text=True
    )
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


@pytest.mark.parametrize(
    ("project", "args"),
    [
        ("seed_alias", CHECK),
        ("kernel_app", CHECK),
        ("capability_tables", AUDIT),
        ("cyclic_callers", AUDIT),
        (MODELLED, AUDIT),
    ],
    ids=["seed_alias-check", "kernel_app-check", "tables-audit", "callers-audit", "modelled-audit"],
)
def test_same_answers_with_and_without_brains(
    project: str | Mapping[str, str],
    args: list[str],
    make_tree: Callable[[Mapping[str, str]], Path],
) -> None:
    root = FIXTURES / project if isinstance(project, str) else make_tree(project)
    brainless = _run(BRAINLESS, args, root)
    assert json.loads(brainless)["gates" if args[0] == "audit" else "files"]  # an answer
    assert brainless == _run(WITH_BRAINS, args, root)
