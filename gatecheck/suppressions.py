"""In-source suppressions: `# gatecheck: ignore[<feature-or-rule-id>] <reason>`.

One model for `check` and `audit`: a suppression applies to what is on its line or the
line after it (the nearest one wins). `check` hides a finding there when the comment
names its feature, rule id or rule name; `audit` reports a gate there as decided, whatever
the comment names (the audit's feature names are guesses, the comment is the decision).
Comments are found with `tokenize`, so a string holding the marker is not a suppression.
Suppressions are checked too: one without a reason (GC101) or one that hides nothing
(GC102) is itself a finding.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from gatecheck.findings import Finding, Level, Position, RuleInfo
from gatecheck.loading.project import read_source

SUPPRESSION_WITHOUT_REASON = RuleInfo(
    "GC101",
    "suppression-without-reason",
    "A gatecheck suppression comment gives no reason.",
    "A `# gatecheck: ignore[...]` comment must say why the gate may exclude the generation "
    "(e.g. `# gatecheck: ignore[fused-moe] sm120 has no TMA multicast`), so that the next "
    "reader can tell a deliberate exclusion from a forgotten one.",
    Level.WARNING,
)
UNUSED_SUPPRESSION = RuleInfo(
    "GC102",
    "unused-suppression",
    "A gatecheck suppression comment suppresses nothing.",
    "A `# gatecheck: ignore[...]` comment names an id that has no finding on its line or the "
    "next one (the gate was fixed or moved, or the id is misspelt). Remove it, or move it "
    "next to the gate it is meant for.",
    Level.WARNING,
)
SUPPRESSION_RULES: tuple[RuleInfo, ...] = (SUPPRESSION_WITHOUT_REASON, UNUSED_SUPPRESSION)

MARKER = "gatecheck:"
_SUPPRESSION = re.compile(r"(?:^|#)\s*gatecheck:\s*ignore\b(?:\[(?P<ids>[^\]]*)\])?(?P<reason>.*)$")


@dataclass(frozen=True)
class Suppression:
    path: Path
    line: int  # 1-based
    column: int  # 0-based UTF-8 byte offset of the comment, like Position
    end_column: int
    ids: tuple[str, ...]
    reason: str
    comment: str

    def on(self, first: int, last: int) -> bool:
        """Whether it applies to something on lines first..last (1-based): it is on one of
        them, or on the line before."""
        return first - 1 <= self.line <= last

    def names_any(self, names: Iterable[str]) -> bool:
        return any(name in self.ids for name in names if name)

    def covers(self, finding: Finding) -> bool:
        names = (finding.feature, finding.rule.id, finding.rule.name)
        return (
            self.on(finding.start.line, finding.start.line)
            and finding.path.resolve() == self.path.resolve()
            and self.names_any(names)
        )


def nearest(suppressions: Iterable[Suppression], first: int, last: int) -> Suppression | None:
    """The suppression that applies to lines first..last: of those on them (or on the line
    before), the one on the latest line, so the comment on a finding's own line wins over
    one on the line before."""
    return max((s for s in suppressions if s.on(first, last)), key=lambda s: s.line, default=None)


def parse_comment(comment: str) -> tuple[tuple[str, ...], str] | None:
    """(ids, reason) of a suppression comment, or None when it is not one."""
    found = _SUPPRESSION.search(comment)
    if found is None:
        return None
    ids = tuple(i.strip() for i in (found.group("ids") or "").split(",") if i.strip())
    # `ignore[x] - reason` and `ignore[x]: reason` read the same as `ignore[x] reason`.
    reason = found.group("reason").strip().lstrip(":-–— ").strip()
    return ids, reason


def find_suppressions(text: str, path: Path) -> list[Suppression]:
    found: list[Suppression] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type != tokenize.COMMENT:
                continue
            parsed = parse_comment(token.string)
            if parsed is None:
                continue
            line, column = token.start
            prefix = token.line[:column].encode("utf-8")
            ids, reason = parsed
            found.append(
                Suppression(
                    path,
                    line,
                    len(prefix),
                    len(prefix) + len(token.string.encode("utf-8")),
                    ids,
                    reason,
                    token.string,
                )
            )
    except (tokenize.TokenError, SyntaxError):
        pass  # the loader reports the file; keep the comments read so far
    return found


def scan_files(
    paths: Iterable[Path], text_of: Callable[[Path], str | None] | None = None
) -> dict[Path, list[Suppression]]:
    """Suppressions by file; `text_of` may supply texts already read (None: unreadable)."""
    by_path: dict[Path, list[Suppression]] = {}
    for path in paths:
        text = _read(path) if text_of is None else text_of(path)
        if text is None:
            continue  # unreadable files are the loader's diagnostics
        if MARKER in text and (found := find_suppressions(text, path)):
            by_path[path] = found
    return by_path


def _read(path: Path) -> str | None:
    try:
        return read_source(path).text
    except (OSError, ValueError, SyntaxError, LookupError):
        return None


@dataclass(frozen=True)
class SuppressionOutcome:
    kept: tuple[Finding, ...]
    suppressed: tuple[tuple[Finding, Suppression], ...]
    # GC101 / GC102 findings about the suppressions themselves.
    problems: tuple[Finding, ...]


def apply_suppressions(
    findings: Sequence[Finding],
    suppressions: Mapping[Path, Sequence[Suppression]],
    *,
    known_ids: Iterable[str],
    checked_ids: Iterable[str] | None,
) -> SuppressionOutcome:
    """Split findings into kept and suppressed, and check each suppression.

    `known_ids`: every feature and rule id (others are misspellings). `checked_ids`: what
    this run could have found; an id outside it is not "unused", only unchecked. None
    skips the unused check (a run restricted to some generations cannot tell).
    """
    kept: list[Finding] = []
    suppressed: list[tuple[Finding, Suppression]] = []
    problems: list[Finding] = []
    by_path: dict[Path, list[Suppression]] = {}
    for path, group in suppressions.items():
        by_path.setdefault(path.resolve(), []).extend(group)
    used: dict[Suppression, set[str]] = {}
    for finding in findings:
        line = finding.start.line
        hit = nearest(
            (s for s in by_path.get(finding.path.resolve(), ()) if s.covers(finding)), line, line
        )
        if hit is None:
            kept.append(finding)
            continue
        suppressed.append((finding, hit))
        names = {finding.feature, finding.rule.id, finding.rule.name}
        used.setdefault(hit, set()).update(names & set(hit.ids))
    known, checked = set(known_ids), None if checked_ids is None else set(checked_ids)
    for group in suppressions.values():
        for suppression in group:
            problems.extend(_problems(suppression, used.get(suppression, set()), known, checked))
    return SuppressionOutcome(tuple(kept), tuple(suppressed), tuple(problems))


def _problems(
    suppression: Suppression, used: set[str], known: set[str], checked: set[str] | None
) -> list[Finding]:
    problems: list[Finding] = []
    if not suppression.reason:
        feature = suppression.ids[0] if len(suppression.ids) == 1 else ""
        problems.append(
            _finding(
                SUPPRESSION_WITHOUT_REASON,
                suppression,
                feature,
                "suppression gives no reason: write why after the brackets, "
                "`# gatecheck: ignore[<id>] <reason>`",
            )
        )
    if not suppression.ids:
        message = "suppression names nothing to ignore: `# gatecheck: ignore[<id>] <reason>`"
        problems.append(_finding(UNUSED_SUPPRESSION, suppression, "", message))
    for name in suppression.ids:
        if name in used:
            continue
        if name not in known:
            message = f"suppression of '{name}' suppresses nothing: no feature or rule has this id"
        elif checked is not None and name in checked:
            message = (
                f"suppression of '{name}' suppresses nothing: "
                "no such finding on this line or the next"
            )
        else:
            continue
        problems.append(_finding(UNUSED_SUPPRESSION, suppression, name, message))
    return problems


def _finding(rule: RuleInfo, suppression: Suppression, feature: str, message: str) -> Finding:
    return Finding(
        rule=rule,
        path=suppression.path,
        start=Position(suppression.line, suppression.column),
        end=Position(suppression.line, suppression.end_column),
        feature=feature,
        message=message,
        required=frozenset(),
        admitted=frozenset(),
        missing=frozenset(),
        gate_kind=None,
        polarity=None,
        qualname="",
        condition=suppression.comment,
        culprit=suppression.comment,
    )
