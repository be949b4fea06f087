"""The audit's diagnostics in its text report (reporting/audit_text.py): each with its own
code (GC900 a file not analysed, GC901 a condition not evaluated to the end), the GC901s
past LISTED_BOUND_HITS counted in one line; JSON lists every one, with its code."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path

import pytest

from gatecheck.audit import AuditReport, run_audit
from gatecheck.config.model import RuleSet
from gatecheck.containment import BOUND_HIT
from gatecheck.loading.project import FileDiagnostic
from gatecheck.reporting.audit_json import render_audit_json
from gatecheck.reporting.audit_text import LISTED_BOUND_HITS, render_audit_text
from gatecheck.reporting.plain import plain_console
from tests.conftest import write_tree

GATE = """
import torch


def pick():
    return torch.cuda.get_device_capability()[0] in (9, 10)
"""


def _report(tmp_path: Path, ruleset: RuleSet, bound_hits: int) -> AuditReport:
    root = write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/gate.py": GATE})
    report = run_audit([root], ruleset, "sm120")
    broken = FileDiagnostic(root / "pkg" / "broken.py", 1, 0, "syntax error: invalid syntax")
    deep = [
        FileDiagnostic(
            root / "pkg" / f"deep{i % 3}.py",
            i + 1,
            0,
            f"condition `c{i}` not evaluated to the end (predicate calls nested deeper than 24)",
            BOUND_HIT,
        )
        for i in range(bound_hits)
    ]
    return dataclasses.replace(report, diagnostics=(broken, *deep))


def _text(report: AuditReport, base: Path) -> list[str]:
    out = io.StringIO()
    render_audit_text(plain_console(out, width=300, color="never"), report, base, table=False)
    return out.getvalue().splitlines()


@pytest.mark.parametrize(
    ("bound_hits", "listed", "summary"),
    [
        (0, 0, None),
        (LISTED_BOUND_HITS, LISTED_BOUND_HITS, None),
        (
            LISTED_BOUND_HITS + 1,
            LISTED_BOUND_HITS,
            "... and 1 more condition not evaluated to the end (GC901) in 1 file: "
            "--format json lists every one",
        ),
        (
            LISTED_BOUND_HITS + 25,
            LISTED_BOUND_HITS,
            "... and 25 more conditions not evaluated to the end (GC901) in 3 files: "
            "--format json lists every one",
        ),
    ],
)
def test_text_lists_bound_hits_up_to_a_cap(
    tmp_path: Path, ruleset: RuleSet, bound_hits: int, listed: int, summary: str | None
) -> None:
    lines = _text(_report(tmp_path, ruleset, bound_hits), tmp_path)
    assert sum(": GC901 " in line for line in lines) == listed
    assert sum(": GC900 syntax error" in line for line in lines) == 1  # every GC900 listed
    summaries = [line for line in lines if line.startswith("... and ")]
    assert summaries == ([summary] if summary else [])


def test_json_lists_every_diagnostic_with_its_code(tmp_path: Path, ruleset: RuleSet) -> None:
    report = _report(tmp_path, ruleset, LISTED_BOUND_HITS + 25)
    data = json.loads(render_audit_json(report, tmp_path))
    codes = [d["code"] for d in data["diagnostics"]]
    assert codes == ["GC900"] + [BOUND_HIT] * (LISTED_BOUND_HITS + 25)
