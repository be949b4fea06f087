"""Running code as an unprivileged user (uid 65534): root reads and writes through any
file mode, so permission cases are only real for another user. Skips unless root."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

NOBODY = 65534
REPO = Path(__file__).resolve().parent.parent

# Everything is imported before the uid drops: the interpreter's own library may be
# somewhere that user cannot read (here: below /root).
_PRELOAD = """\
import os, sys, pkgutil, importlib, gatecheck, astroid.brain, jsonschema, rich
for package in (gatecheck, astroid.brain, jsonschema, rich):
    for found in pkgutil.walk_packages(package.__path__, package.__name__ + '.'):
        try:
            if not found.name.endswith('__main__'):
                importlib.import_module(found.name)
        except Exception:
            pass
os.setgid(65534); os.setgroups([]); os.setuid(65534)
"""


def python_as_nobody(code: str, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    if os.geteuid() != 0:
        pytest.skip("needs root to drop to an unprivileged uid (and test as that user)")
    return subprocess.run(
        [sys.executable, "-c", _PRELOAD + code, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


def gatecheck_as_nobody(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    code = "from gatecheck.cli import cli; sys.argv[0] = 'gatecheck'; cli()\n"
    return python_as_nobody(code, cwd, *args)


def world_folder() -> Path:
    """A folder the unprivileged user owns, right in the system's temporary folder: not
    below pytest's own (/tmp/pytest-of-root), which every pytest session starting on the
    machine resets to mode 0700, shutting the other user out in the middle of a test."""
    base = Path(tempfile.mkdtemp(prefix="gatecheck-nobody-"))
    atexit.register(shutil.rmtree, base, ignore_errors=True)
    os.chmod(base, 0o755)
    os.chown(base, NOBODY, NOBODY)
    return base


def give_to_nobody(base: Path) -> None:
    for path in [base, *base.rglob("*")]:
        os.chown(path, NOBODY, NOBODY, follow_symlinks=False)
