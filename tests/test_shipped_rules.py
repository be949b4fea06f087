"""The shipped rules restored from their recorded data (config/shipped.py) are the rules
the loader reads from rules/; any other files are read as always."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gatecheck import resources
from gatecheck.config import shipped, shipped_data
from gatecheck.config.loader import load_ruleset
from gatecheck.config.model import SourceLocation
from gatecheck.config.shipped import files_digest, shipped_ruleset
from gatecheck.config.sources import rule_sources

REMAKE = (
    "gatecheck/config/shipped_data.py is stale (a shipped rule file, the loader or the "
    "model changed): python -m gatecheck.config.shipped > gatecheck/config/shipped_data.py "
    "&& ruff format gatecheck/config/shipped_data.py"
)


def test_the_data_is_the_shipped_files() -> None:
    files = rule_sources(None)
    assert files is not None
    assert files_digest(resources.shipped_rules_dir(), files) == shipped_data.DIGEST, REMAKE


def test_the_data_restores_what_the_loader_reads() -> None:
    restored = shipped_ruleset()
    assert restored is not None, REMAKE
    loaded = load_ruleset(None)
    assert restored == loaded, REMAKE
    # Equality of the paths too (a feature's location is in the reports).
    assert restored.sources == loaded.sources
    assert [f.location for f in restored.features] == [f.location for f in loaded.features]
    assert [v.location for v in restored.vocabulary] == [v.location for v in loaded.vocabulary]


def test_the_shipped_rules_load_without_yaml() -> None:
    probe = (
        "import sys\n"
        "from gatecheck.cli.common import load_rules\n"
        "assert load_rules(()).features\n"
        "print('yaml' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr


def _copy_rules(target: Path) -> Path:
    target.mkdir()
    for path in resources.shipped_rules_dir().iterdir():
        (target / path.name).write_bytes(path.read_bytes())
    return target


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(
            lambda folder: (folder / "sglang.yaml").write_text(
                (folder / "sglang.yaml").read_text("utf-8") + "\n# edited\n", encoding="utf-8"
            ),
            id="edited-file",
        ),
        pytest.param(
            lambda folder: (folder / "extra.yaml").write_text("features: []\n", encoding="utf-8"),
            id="added-file",
        ),
        pytest.param(
            lambda folder: (folder / "sglang.yaml").rename(folder / "other.yaml"), id="renamed-file"
        ),
    ],
)
def test_other_files_are_read_by_the_loader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edit: object
) -> None:
    folder = _copy_rules(tmp_path / "rules")
    monkeypatch.setattr(resources, "shipped_rules_dir", lambda: folder)
    assert shipped_ruleset() is not None  # the same files elsewhere: the data, placed there
    assert shipped_ruleset() == load_ruleset(None)
    assert callable(edit)
    edit(folder)
    assert shipped_ruleset() is None


def test_the_data_is_placed_in_the_rules_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _copy_rules(tmp_path / "elsewhere")
    monkeypatch.setattr(resources, "shipped_rules_dir", lambda: folder)
    restored = shipped_ruleset()
    assert restored is not None
    assert restored.sources == (folder / "generations.yaml", folder / "sglang.yaml")
    assert all(f.location is None or f.location.path.parent == folder for f in restored.features)


def test_an_unreadable_or_outside_file_has_no_digest(tmp_path: Path) -> None:
    assert files_digest(tmp_path, [tmp_path / "missing.yaml"]) is None
    outside = tmp_path / "out.yaml"
    outside.write_text("x: 1\n", encoding="utf-8")
    assert files_digest(tmp_path / "rules", [outside]) is None


def test_the_module_text_is_the_module() -> None:
    namespace: dict[str, object] = {}
    exec(shipped.module_text(), namespace)
    assert namespace["DIGEST"] == shipped_data.DIGEST, REMAKE
    folder = resources.shipped_rules_dir()
    build = namespace["ruleset"]
    assert callable(build)
    assert build(folder) == shipped_data.ruleset(folder), REMAKE


@pytest.mark.parametrize(
    ("value", "source"),
    [
        pytest.param(("a",), "('a',)", id="one-tuple"),
        pytest.param((), "()", id="empty-tuple"),
        pytest.param(
            frozenset({"sm90", "sm100"}), "frozenset({'sm100', 'sm90'})", id="frozenset-sorted"
        ),
        pytest.param(frozenset(), "frozenset()", id="empty-frozenset"),
        pytest.param({"sm120": "why"}, "{'sm120': 'why'}", id="dict"),
        pytest.param(None, "None", id="none"),
        pytest.param(Path("/rules/x.yaml"), "folder / 'x.yaml'", id="path-in-the-folder"),
    ],
)
def test_python_source_of_plain_values(value: object, source: str) -> None:
    classes: set[str] = set()
    assert shipped.python_source(value, Path("/rules"), classes) == source
    assert classes == set()


def test_python_source_of_a_dataclass_names_its_class() -> None:
    classes: set[str] = set()
    where = SourceLocation(Path("/rules/r.yaml"), 3, 5)
    text = shipped.python_source(where, Path("/rules"), classes)
    assert text == "SourceLocation(path=folder / 'r.yaml', line=3, column=5)"
    assert classes == {"SourceLocation"}
    assert eval(text, {"SourceLocation": SourceLocation, "folder": Path("/rules")}) == where


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(object(), id="object"),
        pytest.param(Path("/elsewhere/r.yaml"), id="path-outside"),
    ],
)
def test_python_source_refuses_what_it_cannot_build(value: object) -> None:
    with pytest.raises((TypeError, ValueError)):
        shipped.python_source(value, Path("/rules"), set())
