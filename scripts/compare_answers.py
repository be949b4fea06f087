#!/usr/bin/env python3
"""Same answers before and after a change: the JSON reports of two gatecheck trees,
byte for byte, on real code bases.

    python scripts/compare_answers.py BASE                 # BASE: a git ref of this repo
    python scripts/compare_answers.py BASE --corpus sglang==0.5.9 --no-stress
    python scripts/compare_answers.py BASE --keep          # leave the reports in .cache/answers

BASE is checked out into a temporary git worktree; the working tree is the other side.
Each side runs in its own process (the analysed code is read, never imported), from the
corpus folder, without the cache, for every corpus:

- `check --format json` with the shipped rules,
- `check --format json` with the stress rules of scripts/corpus_check.py (flags real code
  reads everywhere, so nearly every file is parsed), unless --no-stress,
- `audit --generation sm120 --format json`.

Prints one line per report (`identical` or `DIFFERENT` with the first differing lines)
and exits 1 when any report differs or a side fails to run.
"""

from __future__ import annotations

import argparse
import difflib
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from scripts import corpus  # noqa: E402
from scripts.corpus_check import STRESS_RULES  # noqa: E402

DEFAULT_CORPORA = (
    "sglang==0.5.9",
    "sglang==0.5.23",
    "vllm==0.15.1",
    "flashinfer-python==0.6.3",
)
# Runs one side's gatecheck from its own tree, whatever is installed.
LAUNCH = "import sys; sys.path.insert(0, sys.argv.pop(1)); from gatecheck.cli import main; main()"


def _reports(stress: bool, rules_file: Path) -> list[tuple[str, list[str]]]:
    reports = [("check", ["check", ".", "--format", "json", "--no-cache", "--exit-zero"])]
    if stress:
        stress_args = ["--rules", str(rules_file)]
        reports.append(("check-stress", [*reports[0][1], *stress_args]))
    reports.append(
        ("audit-sm120", ["audit", ".", "--generation", "sm120", "--format", "json", "--no-cache"])
    )
    return reports


def _run(tree: Path, root: Path, args: list[str], out: Path) -> tuple[int, float, str]:
    start = time.perf_counter()
    with out.open("wb") as handle:
        done = subprocess.run(
            [sys.executable, "-c", LAUNCH, str(tree), *args],
            cwd=root,
            stdout=handle,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
        )
    seconds = time.perf_counter() - start
    return done.returncode, seconds, done.stderr.decode("utf-8", "replace").strip()[-300:]


def _first_differences(before: bytes, after: bytes, limit: int = 12) -> list[str]:
    lines = difflib.unified_diff(
        before.decode("utf-8", "replace").splitlines(),
        after.decode("utf-8", "replace").splitlines(),
        "before",
        "after",
        lineterm="",
        n=0,
    )
    return [line for _, line in zip(range(limit), lines, strict=False)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", help="git ref of this repository to compare against")
    parser.add_argument("--corpus", action="append", help="name==version (repeatable)")
    parser.add_argument("--no-stress", action="store_true", help="skip the stress-rules check")
    parser.add_argument("--keep", action="store_true", help="keep reports in .cache/answers")
    options = parser.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="gatecheck-answers-"))
    base_tree = work / "base"
    subprocess.run(
        ["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(base_tree), options.base],
        check=True,
    )
    rules_file = work / "stress-rules.yaml"
    rules_file.write_text(STRESS_RULES, encoding="utf-8")
    keep = REPO / ".cache" / "answers"
    failed = False
    try:
        for requirement in options.corpus or DEFAULT_CORPORA:
            root = corpus.fetch(requirement, only_python=True)
            for label, args in _reports(not options.no_stress, rules_file):
                outputs = {}
                timings = []
                for side, tree in (("before", base_tree), ("after", REPO)):
                    out = work / f"{requirement}-{label}-{side}.json"
                    code, seconds, err = _run(tree, root, args, out)
                    timings.append(f"{side} {seconds:.1f}s rc={code}")
                    if code not in (0, 1):
                        print(f"{requirement} {label}: {side} FAILED (exit {code}): {err}")
                        failed = True
                    outputs[side] = out.read_bytes()
                same = outputs["before"] == outputs["after"]
                size = len(outputs["after"])
                verdict = "identical" if same else "DIFFERENT"
                times = ", ".join(timings)
                print(f"{requirement:28} {label:13} {verdict:10} {size:>10} bytes  ({times})")
                if not same:
                    failed = True
                    for line in _first_differences(outputs["before"], outputs["after"]):
                        print(f"    {line}")
                if options.keep:
                    keep.mkdir(parents=True, exist_ok=True)
                    for side, data in outputs.items():
                        (keep / f"{requirement}-{label}-{side}.json").write_bytes(data)
                sys.stdout.flush()
    finally:
        subprocess.run(
            ["git", "-C", str(REPO), "worktree", "remove", "--force", str(base_tree)], check=False
        )
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
