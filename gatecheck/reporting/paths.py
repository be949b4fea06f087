"""Paths as humans and CI read them: relative to a base folder when inside it, printable
(control characters and undecodable bytes of a file name escaped, see plain.py)."""

from __future__ import annotations

import functools
import os
from pathlib import Path

from gatecheck.reporting.plain import printable


def display_path(path: Path, base: Path | None = None) -> str:
    return printable(_display(path, base or Path.cwd()))


@functools.lru_cache(maxsize=4096)
def _display(path: Path, base: Path) -> str:
    # Remembered: a report names the same few files many times (a resolve() each).
    base = base.resolve()
    try:
        return path.resolve().relative_to(base).as_posix()
    except ValueError:
        rel = os.path.relpath(path.resolve(), base)
        return Path(rel).as_posix() if not rel.startswith("..") else path.resolve().as_posix()
