#!/usr/bin/env python3
"""Run gatecheck over real GPU code bases from PyPI and account for every file (issue #8).

    python scripts/corpus_check.py                      # the default corpora
    python scripts/corpus_check.py vllm==0.15.1         # just one
    python scripts/corpus_check.py --markdown           # the table README.md shows
    python scripts/corpus_check.py --shipped-only       # skip the (slow) stress rules

Each wheel is downloaded once (`pip download --no-deps` into .cache/corpus, git-ignored,
as tests/conftest.py's corpus_package does) and only its .py files are unpacked. Then,
in-process and with --debug so that an exception escapes instead of becoming a one-line
error, over the whole tree:

- with the shipped rules: `check --format json`, `audit --generation sm120 --format json`
  (when the command exists) and `check --diff` (prints, writes nothing);
- with stress rules (flags such as `device`, `dtype`, `major` that real code reads
  everywhere, so that nearly every file is parsed and thousands of real conditions are
  evaluated): `check --format json`, then `check --fix` writing into a copy of the tree,
  after which every file the fix changed must still compile.

Per corpus and rule set: .py files on disk; files seen / parsed / skipped / diagnosed
(every file seen is exactly one of these, and every file on disk is seen or excluded by
a default glob); findings; files fixed; crashes (exceptions escaping a command); wall
time per command; peak RSS of the corpus's run. Each corpus runs in its own process (the
trees and memos of one would otherwise stay in the next one's peak). Exits 1 on any
crash, any file not accounted for, or any fix that does not compile.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
from click.testing import CliRunner

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from gatecheck.accounting import account  # noqa: E402
from gatecheck.cli import cli  # noqa: E402
from gatecheck.config.loader import load_ruleset  # noqa: E402
from gatecheck.discovery import DEFAULT_EXCLUDES  # noqa: E402
from gatecheck.engine import analyse  # noqa: E402
from scripts import corpus  # noqa: E402

CORPUS = corpus.CORPUS
# Two releases each of sglang and vllm (the one the rules were written on and the newest),
# FlashInfer (the kernel library) and lmdeploy (a code base the rules never saw).
DEFAULT_CORPORA = (
    "sglang==0.5.9",
    "sglang==0.5.23",
    "flashinfer-python==0.6.3",
    "vllm==0.15.1",
    "vllm==0.33.0",
    "lmdeploy==0.10.2",
)
GENERATION = "sm120"
STRESS_RULES = """\
# Written by scripts/corpus_check.py: flags that GPU code reads everywhere, so that
# nearly every file is parsed and its conditions evaluated (and some fixed).
features:
  - id: stress-device
    description: conditions on devices, dtypes and backends
    flags: [device, dtype, backend, enabled, is_cuda, _is_cuda, _is_hip, is_hip, use_triton]
    require: [sm90, sm100, sm120]
  - id: stress-capability
    description: conditions on capabilities
    flags: [major, minor, capability, sm_version, is_hopper, is_blackwell, is_sm90, is_sm100]
    require: [sm80, sm90, sm100, sm120]
"""


@dataclass
class CommandRun:
    name: str
    exit_code: int
    seconds: float
    crash: str | None = None


@dataclass
class Row:
    """One corpus under one rule set."""

    requirement: str
    rules: str
    on_disk: int = 0
    excluded: int = 0
    seen: int = 0
    parsed: int = 0
    skipped: int = 0
    diagnosed: int = 0
    findings: int = 0
    fixed_files: int | None = None
    audit: str = ""  # what audit parsed and classified
    broken: list[str] = field(default_factory=list)
    unaccounted: list[str] = field(default_factory=list)
    runs: list[CommandRun] = field(default_factory=list)
    # Peak resident memory of the process that ran this corpus (every command of it).
    peak_rss_mb: float = 0.0

    @property
    def crashes(self) -> list[CommandRun]:
        return [run for run in self.runs if run.crash is not None]

    @property
    def ok(self) -> bool:
        return not self.crashes and not self.unaccounted and not self.broken


# --- fetching ----------------------------------------------------------------------------------


def fetch(requirement: str) -> Path:
    """The unpacked .py files of the requirement's wheel (downloaded once, cached)."""
    try:
        return corpus.fetch(requirement, only_python=True)
    except corpus.CorpusUnavailable as err:
        raise SystemExit(f"corpus_check: {err}") from err


def python_files(root: Path) -> list[Path]:
    """Every .py file on disk, links not followed: the files a run must account for."""
    found: list[Path] = []
    for folder, dirnames, filenames in os.walk(root):
        dirnames.sort()
        found.extend(Path(folder) / name for name in sorted(filenames) if name.endswith(".py"))
    return found


def _default_excluded(path: Path, root: Path) -> bool:
    return any(part in DEFAULT_EXCLUDES for part in path.relative_to(root).parts[:-1])


# --- running -----------------------------------------------------------------------------------


def _fresh(command: str) -> list[str]:
    """--no-cache where the command has it: a cache hit would analyse (and test) nothing."""
    found = cli.get_command(click.Context(cli), command)
    names = {param.name for param in found.params} if found is not None else set()
    return ["--no-cache"] if "no_cache" in names else []


def run_command(name: str, args: Sequence[str]) -> tuple[CommandRun, str]:
    started = time.monotonic()
    args = [*args, *_fresh(args[0])]
    result = CliRunner().invoke(cli, ["--debug", *args], catch_exceptions=True)
    seconds = time.monotonic() - started
    crash = None
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        assert result.exc_info is not None
        crash = "".join(traceback.format_exception(*result.exc_info))
    elif "internal error" in result.stderr:
        crash = result.stderr
    elif result.exit_code == 2 and "Usage:" in result.stderr:
        # A usage error is this script's own bug, and it tests nothing: never "ok".
        crash = f"usage error: {result.stderr.strip().splitlines()[-1]}"
    return CommandRun(name, result.exit_code, seconds, crash), result.stdout


def account_files(row: Row, root: Path, rules: Path | None) -> None:
    """Path by path, through the library: every .py file on disk is seen (and then parsed,
    skipped or diagnosed) or excluded by a default glob."""
    on_disk = python_files(root)
    ruleset = load_ruleset(None if rules is None else [rules])
    accounting = account(analyse([root], ruleset))
    seen = {outcome.path for outcome in accounting.outcomes}
    excluded = [p for p in on_disk if p not in seen and _default_excluded(p, root)]
    row.on_disk, row.excluded = len(on_disk), len(excluded)
    row.unaccounted = [str(p) for p in on_disk if p not in seen and p not in excluded]
    if accounting.parsed + accounting.skipped + accounting.diagnosed != accounting.seen:
        row.unaccounted.append("(parsed + skipped + diagnosed != seen)")


def check_json(row: Row, root: Path, rule_args: list[str]) -> None:
    run, stdout = run_command("check", ["check", str(root), *rule_args, "--format", "json"])
    row.runs.append(run)
    if run.crash is not None:
        return
    data = json.loads(stdout)
    files = data["files"]
    row.seen, row.parsed = files["seen"], files["parsed"]
    row.skipped, row.diagnosed = files["skipped"], files["diagnosed"]
    row.findings = len(data["findings"])
    if row.parsed + row.skipped + row.diagnosed != row.seen:
        row.unaccounted.append("(check's JSON: parsed + skipped + diagnosed != seen)")
    if row.seen != row.on_disk - row.excluded:
        row.unaccounted.append(f"(check saw {row.seen} of {row.on_disk - row.excluded} files)")


def fix_a_copy(row: Row, root: Path, rule_args: list[str]) -> None:
    """`check --fix` writing into a copy; every file it changed must still compile."""
    with tempfile.TemporaryDirectory(prefix="gatecheck-corpus-") as tmp:
        copy = Path(tmp) / root.name
        shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".complete"))
        before = {p: p.read_bytes() for p in python_files(copy)}
        run, _ = run_command("fix (copy)", ["check", str(copy), *rule_args, "--fix"])
        row.runs.append(run)
        changed = [p for p, data in before.items() if p.read_bytes() != data]
        row.fixed_files = len(changed)
        for path in changed:
            try:
                compile(path.read_bytes(), str(path), "exec")
            except (SyntaxError, ValueError) as err:
                row.broken.append(f"{path.relative_to(copy)}: {err}")


def check_corpus(requirement: str, *, with_audit: bool, stress_rules: bool = True) -> list[Row]:
    # Resolved: discovery reports real paths, and .cache may be a link to a shared one.
    root = fetch(requirement).resolve()
    stress = CORPUS / "stress-rules.yaml"
    stress.write_text(STRESS_RULES, encoding="utf-8")
    previous = Path.cwd()
    os.chdir(root)  # no pyproject settings of ours apply; paths print relative
    try:
        shipped = Row(requirement, "shipped")
        account_files(shipped, root, None)
        check_json(shipped, root, [])
        if with_audit:
            args = ["audit", str(root), "--generation", GENERATION, "--format", "json"]
            run, stdout = run_command("audit", args)
            shipped.runs.append(run)
            if run.crash is None:
                audit = json.loads(stdout)
                shipped.audit = (
                    f"{audit.get('scanned_files', '?')} files, {audit.get('total', '?')} gates"
                )
        run, diff = run_command("fix --diff", ["check", str(root), "--diff"])
        shipped.runs.append(run)
        shipped.fixed_files = sum(1 for line in diff.splitlines() if line.startswith("+++ "))

        if not stress_rules:
            return [shipped]
        stressed = Row(requirement, "stress")
        stressed.on_disk, stressed.excluded = shipped.on_disk, shipped.excluded
        check_json(stressed, root, ["--rules", str(stress)])
        fix_a_copy(stressed, root, ["--rules", str(stress)])
    finally:
        os.chdir(previous)
    return [shipped, stressed]


# --- reporting ---------------------------------------------------------------------------------


def _seconds(row: Row, name: str) -> str:
    run = next((r for r in row.runs if r.name == name), None)
    return "" if run is None else f"{run.seconds:.1f}"


def markdown_table(rows: Sequence[Row]) -> str:
    header = (
        "| corpus | rules | .py files | seen | parsed | skipped | diagnosed | findings "
        "| files fixed | crashes | check s | audit (parsed, gates) | audit s | fix s |"
    )
    lines = [header, "|" + "---|" * (header.count("|") - 1)]
    for r in rows:
        fixed = "" if r.fixed_files is None else str(r.fixed_files)
        if r.broken:
            fixed += f" ({len(r.broken)} broken)"
        fix_seconds = _seconds(r, "fix --diff") or _seconds(r, "fix (copy)")
        lines.append(
            f"| {r.requirement} | {r.rules} | {r.on_disk} | {r.seen} | {r.parsed} | {r.skipped} "
            f"| {r.diagnosed} | {r.findings} | {fixed} | {len(r.crashes)} "
            f"| {_seconds(r, 'check')} | {r.audit} | {_seconds(r, 'audit')} | {fix_seconds} |"
        )
    return "\n".join(lines)


def print_row(row: Row) -> None:
    print(f"== {row.requirement}, {row.rules} rules")
    print(
        f"  .py files on disk {row.on_disk} (excluded by default globs {row.excluded}); "
        f"seen {row.seen}: parsed {row.parsed}, skipped {row.skipped}, "
        f"diagnosed {row.diagnosed}; findings {row.findings}"
        + ("" if row.fixed_files is None else f"; files fixed {row.fixed_files}")
        + (f"; audit: {row.audit}" if row.audit else "")
        + (f"; peak RSS {row.peak_rss_mb:.0f} MB" if row.peak_rss_mb else "")
    )
    for run in row.runs:
        state = "CRASH" if run.crash else f"exit {run.exit_code}"
        print(f"  {run.name:<11} {run.seconds:7.1f} s  {state}")
        if run.crash:
            print("    " + run.crash.strip().replace("\n", "\n    "))
    for path in row.unaccounted[:20]:
        print(f"  NOT ACCOUNTED FOR: {path}")
    for problem in row.broken[:20]:
        print(f"  FIX BROKE A FILE: {problem}")


def accounted(row: Row) -> int:
    """Files on disk that the run accounted for: seen (then parsed, skipped or diagnosed)
    or excluded by a default glob."""
    return row.on_disk - sum(1 for p in row.unaccounted if not p.startswith("("))


def corpus_summary(rows: Sequence[Row]) -> str:
    """One line per corpus and rule set: files, every file accounted for, crashes."""
    lines = []
    for r in rows:
        verdict = "ok" if r.ok else "FAILED"
        lines.append(
            f"{r.requirement:<26} {r.rules:<8} {r.on_disk:>6} .py files, "
            f"{accounted(r):>6} accounted for ({r.seen} seen: {r.parsed} parsed, "
            f"{r.skipped} skipped, {r.diagnosed} diagnosed; {r.excluded} excluded), "
            f"{len(r.crashes)} crashes, {len(r.broken)} broken fixes, "
            f"peak RSS {r.peak_rss_mb:.0f} MB: {verdict}"
        )
    return "\n".join(lines)


def rows_in_child(requirement: str, *, stress_rules: bool) -> list[Row]:
    """check_corpus in a fresh process: its peak memory is this corpus's alone, and all
    of it is returned to the system before the next corpus starts."""
    with tempfile.TemporaryDirectory(prefix="gatecheck-corpus-rows-") as tmp:
        out = Path(tmp) / "rows.json"
        command = [sys.executable, str(Path(__file__).resolve()), "--child", str(out)]
        command += [requirement] + ([] if stress_rules else ["--shipped-only"])
        done = subprocess.run(command, check=False)
        if done.returncode != 0 or not out.exists():
            raise SystemExit(f"corpus_check: the run of {requirement} failed ({done.returncode})")
        return [_row_from(data) for data in json.loads(out.read_text(encoding="utf-8"))]


def _row_from(data: dict[str, Any]) -> Row:
    runs = [CommandRun(**run) for run in data.pop("runs")]
    return Row(**data, runs=runs)


def _child(out: Path, requirement: str, *, with_audit: bool, stress_rules: bool) -> int:
    rows = check_corpus(requirement, with_audit=with_audit, stress_rules=stress_rules)
    for row in rows:
        row.peak_rss_mb = _peak_rss_mb()
    out.write_text(json.dumps([dataclasses.asdict(row) for row in rows]), encoding="utf-8")
    return 0


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("requirements", nargs="*", default=list(DEFAULT_CORPORA))
    parser.add_argument("--markdown", action="store_true", help="Also print a Markdown table.")
    parser.add_argument(
        "--shipped-only",
        action="store_true",
        help="Only the shipped rules (the stress rules take most of the time on big trees).",
    )
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="Run every corpus in this process (the peak RSS then builds up across corpora).",
    )
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    with_audit = "audit" in cli.list_commands(click.Context(cli))
    stress_rules = not options.shipped_only
    if options.child is not None:
        (requirement,) = options.requirements
        return _child(options.child, requirement, with_audit=with_audit, stress_rules=stress_rules)
    rows: list[Row] = []
    for requirement in options.requirements:
        if options.in_process:
            rows_of = check_corpus(requirement, with_audit=with_audit, stress_rules=stress_rules)
            for row in rows_of:  # this process's peak so far: every corpus before counts
                row.peak_rss_mb = _peak_rss_mb()
        else:
            rows_of = rows_in_child(requirement, stress_rules=stress_rules)
        for row in rows_of:
            print_row(row)
            rows.append(row)
    if options.markdown:
        print()
        print(markdown_table(rows))
    print()
    print(corpus_summary(rows))
    crashes = sum(len(r.crashes) for r in rows)
    unaccounted = sum(len(r.unaccounted) for r in rows)
    broken = sum(len(r.broken) for r in rows)
    files = sum(r.on_disk for r in rows if r.rules == "shipped")
    print(
        f"\n{len(options.requirements)} corpora, {files} .py files: {crashes} crashes, "
        f"{unaccounted} files not accounted for, {broken} fixed files that do not compile"
    )
    return 0 if all(r.ok for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
