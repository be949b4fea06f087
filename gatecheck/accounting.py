"""Where every file of a run went: parsed, skipped (with the reason) or diagnosed.

A linter that silently drops a file it cannot read hides the gates in it, so every file
discovery saw ends up in exactly one of these, for the summary line, the JSON report and
the corpus check."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from gatecheck.gates.results import Analysis

PARSED, SKIPPED, DIAGNOSED = "parsed", "skipped", "diagnosed"
# The cheap text prefilter found none of the checked features' names: no gate of theirs
# can be in the file, so it is read but never built into a tree.
NOT_MENTIONED = "mentions no checked feature's flag or gate function (read, not parsed)"


@dataclass(frozen=True)
class FileOutcome:
    path: Path
    status: str
    reason: str = ""


@dataclass(frozen=True)
class Accounting:
    outcomes: tuple[FileOutcome, ...]

    def count(self, status: str) -> int:
        return sum(1 for o in self.outcomes if o.status == status)

    @property
    def seen(self) -> int:
        return len(self.outcomes)

    @property
    def parsed(self) -> int:
        return self.count(PARSED)

    @property
    def skipped(self) -> int:
        return self.count(SKIPPED)

    @property
    def diagnosed(self) -> int:
        return self.count(DIAGNOSED)

    def of(self, status: str) -> list[FileOutcome]:
        return [o for o in self.outcomes if o.status == status]

    def skip_reasons(self) -> Counter[str]:
        return Counter(o.reason for o in self.outcomes if o.status == SKIPPED)


def account(analysis: Analysis) -> Accounting:
    """One outcome per file: a diagnosed file counts as diagnosed even if it was parsed
    (the diagnostic may be about one gate in it), then parsed, then skipped."""
    project = analysis.project
    diagnosed: dict[Path, str] = {}
    for diag in project.diagnostics:
        diagnosed.setdefault(diag.path, diag.message)
    parsed = analysis.parsed_paths()
    outcomes: dict[Path, FileOutcome] = {}
    for skip in analysis.skipped:
        outcomes.setdefault(skip.path, FileOutcome(skip.path, SKIPPED, skip.reason))
    for path in (*project.files, *diagnosed):
        if path in diagnosed:
            outcomes[path] = FileOutcome(path, DIAGNOSED, diagnosed[path])
        elif path in parsed:
            outcomes[path] = FileOutcome(path, PARSED)
        else:
            outcomes.setdefault(path, FileOutcome(path, SKIPPED, NOT_MENTIONED))
    return Accounting(tuple(outcomes.values()))


def files_summary(accounting: Accounting) -> str:
    """'6 files: 3 parsed, 3 skipped, 0 diagnosed' for the summary line."""
    noun = "file" if accounting.seen == 1 else "files"
    return (
        f"{accounting.seen} {noun}: {accounting.parsed} parsed, "
        f"{accounting.skipped} skipped, {accounting.diagnosed} diagnosed"
    )
