"""scripts/release_fixes.py: which old rows a newer release fixed, on hand-made reports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scripts.release_fixes import fixes, main


def _row(
    cls: str, condition: str, qualname: str = "pkg.f", admitted: tuple[str, ...] = ("sm100",)
) -> dict[str, Any]:
    return {
        "path": "pkg/a.py",
        "qualname": qualname,
        "line": 1,
        "admitted": list(admitted),
        "class": cls,
        "condition": condition,
        "reasons": [f"why {cls}"],
    }


@pytest.mark.parametrize(
    ("old", "new", "fixed"),
    [
        # widened to the generation: a fix
        (
            [_row("likely-gap", "is_sm100()")],
            [_row("admits", "is_sm100() or is_sm120()", admitted=("sm100", "sm120"))],
            1,
        ),
        # replaced by the generation's own branch, the old one gone: no fix
        (
            [_row("probably-deliberate", "is_sm100()")],
            [_row("admits", "is_sm120()", admitted=("sm120",))],
            0,
        ),
        # the same condition still there: not changed
        ([_row("likely-gap", "is_sm100()")], [_row("admits", "is_sm100()")], 0),
        # changed, but the new one still leaves it out
        ([_row("likely-gap", "is_sm100()")], [_row("likely-gap", "is_sm100() or is_sm90()")], 0),
        # an old row that already admitted it
        ([_row("admits", "major >= 9")], [_row("admits", "major >= 8")], 0),
        # another function
        ([_row("likely-gap", "is_sm100()")], [_row("admits", "is_sm100() or x", "pkg.g")], 0),
        # too different to be the same gate
        ([_row("likely-gap", "is_sm100()")], [_row("admits", "flag and other_thing_entirely")], 0),
    ],
)
def test_fixes(old: list[dict[str, Any]], new: list[dict[str, Any]], fixed: int) -> None:
    assert len(fixes(old, new)) == fixed


def test_main_counts_by_class(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = [_row("likely-gap", "is_sm100()"), _row("probably-deliberate", "is_sm90()", "pkg.g")]
    new = [_row("admits", "is_sm100() or is_sm120()"), _row("admits", "is_sm90() or y", "pkg.g")]
    (tmp_path / "old.json").write_text(json.dumps({"gates": old}), encoding="utf-8")
    (tmp_path / "new.json").write_text(json.dumps({"gates": new}), encoding="utf-8")
    assert main([str(tmp_path / "old.json"), str(tmp_path / "new.json")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "2 fixes: likely-gap 1, probably-deliberate 1"


def test_main_refuses_a_report_it_cannot_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "old.json").write_text("not json", encoding="utf-8")
    assert main([str(tmp_path / "old.json"), str(tmp_path / "old.json")]) == 2
    assert capsys.readouterr().err.startswith("release_fixes: cannot read the reports:")
