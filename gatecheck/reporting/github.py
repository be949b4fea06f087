"""GitHub Actions workflow commands (`::error file=...::message`) and the step summary.

GitHub shows at most 10 annotations per level in a step: the most important ones are
emitted, and one notice says how many more there are.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from gatecheck.findings import Finding
from gatecheck.loading.project import FileDiagnostic
from gatecheck.reporting.sarif import DIAGNOSTIC_ID, SourceLines, relative_uri

MAX_PER_LEVEL = 10
COMMANDS = {"error": "error", "warning": "warning", "note": "notice"}
LEVEL_ORDER = ("error", "warning", "note")
# GitHub refuses a step summary over 1 MiB (per step: what the step already wrote counts).
SUMMARY_LIMIT = 1024 * 1024
SUMMARY_ENV = "GITHUB_STEP_SUMMARY"


def escape_data(text: str) -> str:
    # `%` first, or the escapes themselves would be escaped again.
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _path(path: Path, root: Path) -> str:
    _, relative = relative_uri(path, root)
    resolved = path.resolve()
    return resolved.relative_to(root.resolve()).as_posix() if relative else resolved.as_posix()


def annotation(finding: Finding, root: Path, lines: SourceLines | None = None) -> str:
    lines = lines or SourceLines()
    title = f"{finding.rule.id} [{finding.feature}]" if finding.feature else finding.rule.id
    properties = [
        ("file", _path(finding.path, root)),
        ("line", str(finding.start.line)),
        ("endLine", str(finding.end.line)),
        ("col", str(lines.column(finding.path, finding.start.line, finding.start.column))),
        ("endColumn", str(lines.column(finding.path, finding.end.line, finding.end.column))),
        ("title", title),
    ]
    command = COMMANDS.get(finding.level, "warning")
    props = ",".join(f"{key}={escape_property(value)}" for key, value in properties)
    message = "\n".join([finding.message, *finding.notes])
    return f"::{command} {props}::{escape_data(message)}"


def importance(finding: Finding) -> tuple[int, int, str, int]:
    # Gate findings before findings about suppressions; more missing generations first.
    rule_rank = 0 if finding.gate_kind is not None else 1
    return (rule_rank, -len(finding.missing), str(finding.path), finding.start.line)


class _Item(NamedTuple):
    rank: tuple[int, int, str, int]
    order: tuple[str, int, int]
    text: str


def _diagnostic(diagnostic: FileDiagnostic, root: Path, lines: SourceLines) -> _Item:
    column = lines.column(diagnostic.path, diagnostic.line, diagnostic.column)
    props = ",".join(
        f"{key}={escape_property(value)}"
        for key, value in (
            ("file", _path(diagnostic.path, root)),
            ("line", str(diagnostic.line)),
            ("col", str(column)),
            ("title", f"{DIAGNOSTIC_ID} file not analysed"),
        )
    )
    where = (str(diagnostic.path), diagnostic.line, diagnostic.column)
    # After every finding of the level: a file that cannot be read matters less than a gate.
    rank = (2, 0, str(diagnostic.path), diagnostic.line)
    return _Item(rank, where, f"::warning {props}::{escape_data(diagnostic.message)}")


def render_github(
    findings: Sequence[Finding], root: Path, diagnostics: Sequence[FileDiagnostic] = ()
) -> str:
    lines = SourceLines()
    by_level: dict[str, list[_Item]] = {}
    for finding in findings:
        level = finding.level if finding.level in COMMANDS else "warning"
        order = (str(finding.path), finding.start.line, finding.start.column)
        item = _Item(importance(finding), order, annotation(finding, root, lines))
        by_level.setdefault(level, []).append(item)
    for diagnostic in diagnostics:
        by_level.setdefault("warning", []).append(_diagnostic(diagnostic, root, lines))
    limits = {level: MAX_PER_LEVEL for level in LEVEL_ORDER}
    hidden = _hidden(by_level, limits)
    if hidden:
        limits["note"] = MAX_PER_LEVEL - 1  # room for the notice that says so
        hidden = _hidden(by_level, limits)
    out: list[str] = []
    for level in LEVEL_ORDER:
        chosen = sorted(by_level.get(level, []))[: limits[level]]
        # Shown in file order: the log reads like the other formats.
        out.extend(item.text for item in sorted(chosen, key=lambda item: item.order))
    if hidden:
        parts = ", ".join(
            f"{count} {COMMANDS[level]}{'' if count == 1 else 's'}"
            for level, count in hidden.items()
        )
        total = sum(hidden.values())
        message = (
            f"{total} more gatecheck annotations are not shown ({parts}): GitHub shows at "
            f"most {MAX_PER_LEVEL} per level in a step. See the job summary or the SARIF "
            "report for all of them."
        )
        out.append(f"::notice title=gatecheck::{escape_data(message)}")
    return "".join(line + "\n" for line in out)


def _hidden(by_level: dict[str, list[_Item]], limits: dict[str, int]) -> dict[str, int]:
    return {
        level: len(by_level[level]) - limits[level]
        for level in LEVEL_ORDER
        if len(by_level.get(level, [])) > limits[level]
    }


def step_summary_path() -> Path | None:
    value = os.environ.get(SUMMARY_ENV)
    return Path(value) if value else None


def summary_budget(summary_file: Path) -> int:
    """Bytes the step summary can still take."""
    try:
        used = summary_file.stat().st_size
    except OSError:
        used = 0
    return max(SUMMARY_LIMIT - used - 1, 0)


def write_step_summary(summary_file: Path, markdown: str) -> None:
    with summary_file.open("a", encoding="utf-8") as handle:
        handle.write(markdown if markdown.endswith("\n") else markdown + "\n")
