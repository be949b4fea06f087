"""Where the shipped registry and rules live, installed or in a source checkout."""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def shipped_rules_dir() -> Path:
    # A wheel carries the top-level rules/ folder as package data; a source checkout
    # (editable install, or tests run from the repo) has it beside the package.
    installed = _PACKAGE_DIR / "_data" / "rules"
    if installed.is_dir():
        return installed
    return _PACKAGE_DIR.parent / "rules"


def registry_path() -> Path:
    return shipped_rules_dir() / "generations.yaml"
