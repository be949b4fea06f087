"""Adopting gatecheck on an existing code base: a baseline of known findings, and
`--new-since` (only findings on lines a change touched).

Baseline entries are keyed on Finding.fingerprint (rule, feature, repo-relative path and
normalized condition text), never on line numbers, so code that moves does not re-fire.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from gatecheck import safe_io
from gatecheck.findings import Finding

FORMAT_KEY = "gatecheck_baseline"
FORMAT_VERSION = 1


class BaselineError(Exception):
    """A baseline file that cannot be read; the message names the file."""


def project_relpath(path: Path, root: Path) -> str:
    """Posix path relative to the project root (absolute when outside it)."""
    resolved = path.resolve()
    try:
        return resolved.relative_to(root.resolve()).as_posix()
    except ValueError:
        return resolved.as_posix()


def _recorded_path(path: Path, root: Path) -> str:
    """project_relpath as UTF-8 text: a file name that is not UTF-8 (`caf\\xe9.py`, kept
    by Python as a lone surrogate) is spelled with backslash escapes, the same on every
    run, so that it can be hashed, written and matched again."""
    relpath = project_relpath(path, root)
    return relpath.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def baseline_document(findings: Sequence[Finding], root: Path) -> dict[str, object]:
    entries = [
        {
            "fingerprint": f.fingerprint(_recorded_path(f.path, root)),
            "rule": f.rule.id,
            "feature": f.feature,
            "path": _recorded_path(f.path, root),
            # Informative only (matching ignores it): where the finding was when recorded.
            "line": f.start.line,
            "condition": f.culprit,
        }
        for f in findings
    ]
    entries.sort(key=lambda e: (str(e["path"]), int(str(e["line"])), str(e["fingerprint"])))
    return {FORMAT_KEY: FORMAT_VERSION, "findings": entries}


def write_baseline(path: Path, findings: Sequence[Finding], root: Path) -> None:
    """Written whole or not at all: a temporary file beside it, then renamed."""
    text = json.dumps(baseline_document(findings, root), indent=2, ensure_ascii=False) + "\n"
    data = text.encode("utf-8", "backslashreplace")  # a lone surrogate left in a condition
    try:
        safe_io.write_whole(path, data)
    except OSError as exc:
        raise BaselineError(f"{path}: cannot write baseline: {exc.strerror or exc}") from exc


def read_baseline(path: Path) -> Counter[str]:
    """How many findings of each fingerprint the baseline accepts."""
    try:
        # A regular file only, capped, strict JSON (no NaN, no 1e999, bounded nesting).
        data = safe_io.load_json(safe_io.read_regular(path, safe_io.CONFIG_BYTES))
    except FileNotFoundError as exc:
        raise BaselineError(
            f"{path}: baseline file not found (create it with --write-baseline)"
        ) from exc
    except OSError as exc:
        raise BaselineError(f"{path}: cannot read baseline: {exc.strerror or exc}") from exc
    except ValueError as exc:  # not UTF-8, not JSON, too deep
        raise BaselineError(f"{path}: not a gatecheck baseline (invalid JSON: {exc})") from exc
    if not isinstance(data, dict) or data.get(FORMAT_KEY) != FORMAT_VERSION:
        raise BaselineError(
            f'{path}: not a gatecheck baseline (expected {{"{FORMAT_KEY}": {FORMAT_VERSION}}})'
        )
    entries = data.get("findings")
    if not isinstance(entries, list) or not all(
        isinstance(e, dict) and isinstance(e.get("fingerprint"), str) for e in entries
    ):
        raise BaselineError(f"{path}: 'findings' must be a list of entries with a 'fingerprint'")
    return Counter(str(e["fingerprint"]) for e in entries)


def without_baseline(
    findings: Sequence[Finding], accepted: Counter[str], root: Path
) -> tuple[list[Finding], int]:
    """Findings the baseline does not accept, and how many it hid. Each entry accepts one
    finding: a second copy of a known gate is new."""
    budget = Counter(accepted)
    kept: list[Finding] = []
    hidden = 0
    for finding in findings:
        key = finding.fingerprint(_recorded_path(finding.path, root))
        if budget[key] > 0:
            budget[key] -= 1
            hidden += 1
        else:
            kept.append(finding)
    return kept, hidden


def gate_lines(finding: Finding) -> range:
    """The lines of the gate a finding is about: from the first line of its condition (the
    gate's own hop) to the end of the flagged span."""
    here = finding.path.resolve()
    starts = [
        hop.line
        for hop in finding.hops
        if hop.qualname == finding.qualname
        and hop.line <= finding.start.line
        and hop.path.resolve() == here
    ]
    first = max(starts, default=finding.start.line)
    return range(first, max(finding.end.line, finding.start.line) + 1)


def touched_by(
    findings: Sequence[Finding],
    changes: Mapping[Path, frozenset[int] | None],
    span: Callable[[Finding], range] = gate_lines,
) -> tuple[list[Finding], int]:
    """Findings whose gate lines (`span`) a change touched (None: the whole file is new),
    and how many others were left out."""
    kept: list[Finding] = []
    for finding in findings:
        path = finding.path.resolve()
        if path not in changes:
            continue
        lines = changes[path]
        if lines is None or any(line in lines for line in span(finding)):
            kept.append(finding)
    return kept, len(findings) - len(kept)
