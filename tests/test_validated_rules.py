"""Shipped rule files recorded as valid (config/validated.py) load without jsonschema;
every other text, or the same text under an edited schema, is validated as always."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gatecheck import resources
from gatecheck.config import loader
from gatecheck.config.loader import load_ruleset, validation_digest
from gatecheck.config.model import ConfigErrors
from gatecheck.config.validated import VALIDATED


def _shipped() -> list[tuple[Path, str]]:
    registry = resources.registry_path()
    rules = sorted(p for p in resources.shipped_rules_dir().glob("*.y*ml") if p != registry)
    return [(registry, "registry"), *((p, "rules") for p in rules)]


def _digest(path: Path, schema_name: str) -> str:
    return validation_digest(schema_name, path.read_text("utf-8").removeprefix("\ufeff"))


def test_the_record_is_the_shipped_files() -> None:
    expected = {_digest(path, kind) for path, kind in _shipped()}
    assert expected == VALIDATED, (
        "config/validated.py is stale (a shipped rule file or the schema changed); "
        f"after checking the files validate, set VALIDATED = frozenset({sorted(expected)!r})"
    )


def test_the_shipped_files_pass_jsonschema(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the record emptied, jsonschema reads every shipped file: no error."""
    monkeypatch.setattr(loader, "VALIDATED", frozenset())
    ruleset = load_ruleset()
    assert ruleset.features


def test_recorded_rules_load_without_jsonschema() -> None:
    probe = (
        "import sys\n"
        "from gatecheck.config.loader import load_ruleset\n"
        "load_ruleset()\n"
        "print('jsonschema' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr


def test_a_copy_of_a_shipped_file_is_recorded_an_edit_is_not(tmp_path: Path) -> None:
    shipped = next(path for path, kind in _shipped() if kind == "rules")
    copy = tmp_path / "copy.yaml"
    copy.write_text(shipped.read_text("utf-8"), encoding="utf-8")
    assert _digest(copy, "rules") in VALIDATED
    edited = tmp_path / "edited.yaml"
    edited.write_text(shipped.read_text("utf-8") + "unknown_key: 1\n", encoding="utf-8")
    assert _digest(edited, "rules") not in VALIDATED
    with pytest.raises(ConfigErrors) as raised:
        load_ruleset([edited])
    assert "unknown_key" in str(raised.value)


def test_an_edited_schema_validates_again(monkeypatch: pytest.MonkeyPatch) -> None:
    path, kind = _shipped()[-1]
    schema = dict(loader._SCHEMAS[kind])
    schema["required"] = [*schema.get("required", []), "no_such_section"]
    monkeypatch.setitem(loader._SCHEMAS, kind, schema)
    loader._validator.cache_clear()
    try:
        assert _digest(path, kind) not in VALIDATED
        with pytest.raises(ConfigErrors) as raised:
            load_ruleset([path])
        assert "no_such_section" in str(raised.value)
    finally:
        loader._validator.cache_clear()
