"""Markdown report (GitHub step summary, PR comments): a table, then each finding with its
activation path, notes and, when it has edits, the suggested change as a diff."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from gatecheck.config.model import Registry
from gatecheck.findings import Edit, Finding
from gatecheck.loading.project import FileDiagnostic
from gatecheck.reporting.grammar import gate_description
from gatecheck.reporting.plain import printable
from gatecheck.reporting.sarif import SourceLines, relative_uri

LEVEL_ICONS = {"error": "❌", "warning": "⚠️", "note": "ℹ️"}


def code(text: str) -> str:
    """An inline code span that survives backticks (and control characters) in `text`."""
    text = printable(text)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


# Backticks and underscores stay: messages quote names in code spans on purpose, and an
# underscore inside a word never starts emphasis on GitHub. Pipes matter only in tables,
# where `cell` escapes them.
_MARKDOWN_SPECIAL = re.compile(r"([\\*\[\]<>#~])")


def inline(text: str) -> str:
    """Our prose with names from the analysed code in it, as Markdown: one line, and no
    character that Markdown or the HTML it allows would read as links, tags or headings."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", printable(text))


def cell(text: str) -> str:
    """Text for a table cell: one line, pipes escaped."""
    return text.replace("|", "\\|").replace("\r\n", "<br>").replace("\n", "<br>")


def _relpath(path: Path, root: Path) -> str:
    uri, relative = relative_uri(path, root)
    return printable(path.resolve().relative_to(root.resolve()).as_posix()) if relative else uri


def edit_diff(edits: Sequence[Edit], root: Path) -> str:
    """A unified diff of what the edits change ("" when they cannot be previewed)."""
    chunks: list[str] = []
    by_path: dict[Path, list[Edit]] = {}
    for edit in edits:
        by_path.setdefault(edit.path, []).append(edit)
    for path, group in by_path.items():
        try:
            old = path.read_bytes()
        except OSError:
            return ""
        new = old
        previous_start = len(old) + 1
        # Back to front, so earlier offsets stay valid; overlapping edits are not previewed.
        for edit in sorted(group, key=lambda e: e.start, reverse=True):
            if edit.end > previous_start or not 0 <= edit.start <= edit.end <= len(old):
                return ""
            new = new[: edit.start] + edit.text.encode("utf-8") + new[edit.end :]
            previous_start = edit.start
        rel = _relpath(path, root)
        before = old.decode("utf-8", "replace").splitlines(keepends=True)
        after = new.decode("utf-8", "replace").splitlines(keepends=True)
        import difflib  # here: only a report with fixes to preview needs it

        diff = difflib.unified_diff(before, after, f"a/{rel}", f"b/{rel}", n=1)
        chunks.append("".join(line if line.endswith("\n") else line + "\n" for line in diff))
    return "".join(chunks)


class _Renderer:
    def __init__(self, root: Path, registry: Registry | None, link_base: str | None) -> None:
        self.root = root
        self.registry = registry
        self.link_base = link_base.rstrip("/") if link_base else None
        self.lines = SourceLines()

    def ordered(self, names: frozenset[str]) -> str:
        ordered = self.registry.ordered(names) if self.registry else sorted(names)
        return ", ".join(ordered)

    def where(self, finding: Finding) -> str:
        rel = _relpath(finding.path, self.root)
        column = self.lines.column(finding.path, finding.start.line, finding.start.column)
        label = code(f"{rel}:{finding.start.line}:{column}")
        uri, relative = relative_uri(finding.path, self.root)
        if self.link_base and relative:
            lines = f"L{finding.start.line}"
            if finding.end.line != finding.start.line:
                lines += f"-L{finding.end.line}"
            return f"[{label}]({self.link_base}/{uri}#{lines})"
        return label

    def row(self, finding: Finding) -> str:
        icon = LEVEL_ICONS.get(finding.level, "")
        feature = code(finding.feature) if finding.feature else ""
        missing = self.ordered(finding.missing)
        cells = [
            icon,
            finding.rule.id,
            feature,
            self.where(finding),
            missing,
            inline(finding.message),
        ]
        return "| " + " | ".join(cell(c) for c in cells) + " |\n"

    def details(self, finding: Finding) -> str:
        title = f"{finding.rule.id} {finding.rule.name}"
        if finding.feature:
            title += f" · {inline(finding.feature)}"
        out = [f"### {self.where(finding)} {title}\n\n", f"{inline(finding.message)}\n\n"]
        if finding.required:
            out.append(
                f"- required: {self.ordered(finding.required)}\n"
                f"- admitted: {self.ordered(finding.admitted) or 'no generation'}\n"
                f"- missing: **{self.ordered(finding.missing)}**\n"
            )
        if finding.qualname:
            out.append(f"- in {code(finding.qualname)} ({gate_description(finding)})\n")
        for assumption in finding.assumed:
            out.append(f"- assumed: {inline(assumption)}\n")
        if finding.hops:
            out.append("\n**Activation path**\n\n")
            for number, hop in enumerate(finding.hops, start=1):
                rel = _relpath(hop.path, self.root)
                admitted = self.ordered(hop.admitted) or "no generation"
                out.append(
                    f"{number}. {code(f'{rel}:{hop.line}')} {inline(hop.kind)} in "
                    f"{code(hop.qualname)}: {code(hop.condition)} admits {admitted}\n"
                )
        if finding.notes:
            out.append("\n**Notes**\n\n")
            out.extend(f"- {inline(note)}\n" for note in finding.notes)
        diff = edit_diff(finding.edits, self.root) if finding.edits else ""
        if diff:
            note = f": {inline(finding.fix_note)}" if finding.fix_note else ""
            out.append(f"\n**Suggested fix**{note}")
            out.append(f"\n\n```diff\n{diff}```\n")
        elif finding.fix_note:
            out.append(f"\n**Fix**: {inline(finding.fix_note)}\n")
        out.append("\n")
        return "".join(out)


TABLE_HEAD = "| | Rule | Feature | Location | Missing | Message |\n|---|---|---|---|---|---|\n"


def render_markdown(
    findings: Sequence[Finding],
    *,
    root: Path,
    registry: Registry | None = None,
    summary: str = "",
    link_base: str | None = None,
    max_bytes: int | None = None,
    diagnostics: Sequence[FileDiagnostic] = (),
) -> str:
    """The report; with `max_bytes`, findings that do not fit are left out with a note."""
    renderer = _Renderer(root, registry, link_base)
    head = "## gatecheck\n\n" + (f"{summary}\n\n" if summary else "")
    if diagnostics:
        head += "**Files not analysed**\n\n" + "".join(
            f"- {code(f'{_relpath(d.path, root)}:{d.line}')}: {inline(d.message)}\n"
            for d in diagnostics
        )
        head += "\n"
    if not findings:
        return head + "No findings.\n"
    rows = [renderer.row(f) for f in findings]
    sections = [renderer.details(f) for f in findings]
    shown = len(findings)
    if max_bytes is not None:
        shown = _fitting(head, rows, sections, max_bytes)
    text = head + TABLE_HEAD + "".join(rows[:shown]) + "\n" + "".join(sections[:shown])
    if shown < len(findings):
        text += _truncation_note(len(findings) - shown)
    return text


def _truncation_note(left_out: int) -> str:
    noun = "finding" if left_out == 1 else "findings"
    return (
        f"\n> **Report truncated**: {left_out} more {noun} not shown (size limit). "
        "Write the full report with `--markdown-output FILE` or `--sarif-output FILE`.\n"
    )


def _fitting(head: str, rows: list[str], sections: list[str], max_bytes: int) -> int:
    def size(text: str) -> int:
        return len(text.encode("utf-8"))

    used = size(head) + size(TABLE_HEAD) + 1 + size(_truncation_note(len(rows)))
    for count, (row, section) in enumerate(zip(rows, sections, strict=True)):
        used += size(row) + size(section)
        if used > max_bytes:
            return count
    return len(rows)
