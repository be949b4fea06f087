from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from gatecheck.config.loader import load_ruleset
from gatecheck.config.model import RuleSet

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"
CORPUS = REPO / ".cache" / "corpus"


@pytest.fixture(scope="session")
def ruleset() -> RuleSet:
    return load_ruleset(None)


def write_tree(root: Path, files: Mapping[str, str]) -> Path:
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


@pytest.fixture
def make_tree(tmp_path: Path) -> Callable[[Mapping[str, str]], Path]:
    def make(files: Mapping[str, str]) -> Path:
        return write_tree(tmp_path / "proj", files)

    return make


def corpus_package(requirement: str) -> Path:
    """Download (once, cached in .cache/corpus) and unpack a wheel from PyPI; skip the
    test with the reason when the registry cannot be reached."""
    name, _, version = requirement.partition("==")
    target = CORPUS / f"{name}-{version}"
    if (target / ".complete").exists():
        return target
    CORPUS.mkdir(parents=True, exist_ok=True)
    wheels = list(CORPUS.glob(f"{name.replace('-', '_')}-{version}-*.whl"))
    if not wheels:
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "-q",
                requirement,
                "-d",
                str(CORPUS),
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
        wheels = list(CORPUS.glob(f"{name.replace('-', '_')}-{version}-*.whl"))
        if result.returncode != 0 or not wheels:
            pytest.skip(f"cannot download {requirement}: {result.stderr.strip()[-200:]}")
    if target.exists():
        shutil.rmtree(target)
    with zipfile.ZipFile(wheels[0]) as archive:
        archive.extractall(target)
    (target / ".complete").touch()
    return target
