"""Shipped rule files recorded as valid (shipped_data.VALIDATED, made with the rest of
config/shipped_data.py by config/shipped.py) load without jsonschema; every other text,
or the same text under an edited schema, is validated as always."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gatecheck import resources
from gatecheck.config import loader
from gatecheck.config.loader import load_ruleset, validation_digest
from gatecheck.config.model import ConfigErrors
from gatecheck.config.shipped import validated_digests
from gatecheck.config.shipped_data import VALIDATED


def _shipped() -> list[tuple[Path, str]]:
    registry = resources.registry_path()
    rules = sorted(p for p in resources.shipped_rules_dir().glob("*.y*ml") if p != registry)
    return [(registry, "registry"), *((p, "rules") for p in rules)]


def _digest(path: Path, schema_name: str) -> str:
    return validation_digest(schema_name, path.read_text("utf-8").removeprefix("\ufeff"))


REMAKE = (
    "gatecheck/config/shipped_data.py is stale (a shipped rule file or the schema changed): "
    "python -m gatecheck.config.shipped > gatecheck/config/shipped_data.py "
    "&& ruff format gatecheck/config/shipped_data.py"
)


def test_the_record_is_the_shipped_files() -> None:
    expected = {_digest(path, kind) for path, kind in _shipped()}
    assert expected == VALIDATED, REMAKE
    assert loader.VALIDATED == VALIDATED


def test_the_generator_records_every_shipped_file() -> None:
    """What `python -m gatecheck.config.shipped` writes: one digest per shipped file,
    named by its path in the rules folder."""
    folder = resources.shipped_rules_dir()
    recorded = validated_digests(folder)
    assert sorted(name for _, name in recorded) == sorted(
        path.relative_to(folder).as_posix() for path, _ in _shipped()
    )
    assert {digest for digest, _ in recorded} == {_digest(p, k) for p, k in _shipped()}


def test_the_shipped_files_pass_jsonschema() -> None:
    """Nothing trusted, jsonschema reads every shipped file: no error."""
    ruleset = load_ruleset(trusted=frozenset())
    assert ruleset.features


def test_nothing_trusted_imports_jsonschema() -> None:
    probe = (
        "import sys\n"
        "from gatecheck.config.loader import load_ruleset\n"
        "load_ruleset(trusted=frozenset())\n"
        "print('jsonschema' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout.strip() == "True", done.stderr


def test_an_empty_record_module_trusts_nothing(tmp_path: Path) -> None:
    """While shipped_data.py is being made again (the shell truncates it first), the
    loader still imports and validates every file."""
    package = tmp_path / "gatecheck" / "config"
    source = Path(loader.__file__).parent.parent
    shutil.copytree(source, tmp_path / "gatecheck", ignore=shutil.ignore_patterns("__pycache__"))
    (package / "shipped_data.py").write_text("", encoding="utf-8")
    probe = "from gatecheck.config import loader\nprint(loader.__file__, len(loader.VALIDATED))\n"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.stdout.split() == [str(package / "loader.py"), "0"], done.stderr


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
