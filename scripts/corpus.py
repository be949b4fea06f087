"""The real-code corpus: a PyPI wheel downloaded once and unpacked into .cache/corpus/
(git-ignored). One helper for the tests (tests/conftest.py), the benchmark
(benchmarks/run.py) and the crash sweep (scripts/corpus_check.py)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

CORPUS = Path(__file__).resolve().parent.parent / ".cache" / "corpus"


class CorpusUnavailable(Exception):
    """The wheel could not be downloaded (the registry unreachable, no such version)."""


def fetch(requirement: str, *, only_python: bool = False, timeout: float = 1800) -> Path:
    """The unpacked wheel of `name==version`, downloaded and unpacked once. With
    `only_python`, only its .py files are unpacked (a wheel can be half a gigabyte of
    compiled kernels; the analysis reads Python only)."""
    name, _, version = requirement.partition("==")
    target = CORPUS / f"{name}-{version}"
    if (target / ".complete").exists():
        return target
    CORPUS.mkdir(parents=True, exist_ok=True)
    pattern = f"{name.replace('-', '_')}-{version}-*.whl"
    wheels = sorted(CORPUS.glob(pattern))
    if not wheels:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
        command += ["-q", requirement, "-d", str(CORPUS)]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as err:
            raise CorpusUnavailable(f"cannot download {requirement}: timed out") from err
        wheels = sorted(CORPUS.glob(pattern))
        if done.returncode != 0 or not wheels:
            detail = done.stderr.strip()[-200:] or f"no wheel matching {pattern}"
            raise CorpusUnavailable(f"cannot download {requirement}: {detail}")
    if target.exists():
        shutil.rmtree(target)
    with zipfile.ZipFile(wheels[0]) as archive:
        members = [m for m in archive.namelist() if m.endswith(".py")] if only_python else None
        archive.extractall(target, members)
    (target / ".complete").touch()
    return target
