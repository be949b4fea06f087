"""Paths as humans and CI read them: relative to a base folder when inside it."""

from __future__ import annotations

import os
from pathlib import Path


def display_path(path: Path, base: Path | None = None) -> str:
    base = (base or Path.cwd()).resolve()
    try:
        return path.resolve().relative_to(base).as_posix()
    except ValueError:
        rel = os.path.relpath(path.resolve(), base)
        return Path(rel).as_posix() if not rel.startswith("..") else path.resolve().as_posix()
