"""What the cold audit cannot go below with astroid trees: the files it builds, built and
nothing else, against the yardstick (plain `ast.parse` of every file).

    python benchmarks/audit_bound.py [--corpus sglang==0.5.9] [--repeat 2]

Each round runs these steps, each in a fresh process (a process still holding an
audit's trees makes every later parse pay the collector's passes over them), the
fastest round of each kept:
- the yardstick: `ast.parse` of every file;
- the one-process audit (`run_audit(jobs=1)`), which says which files it built
  (`AuditReport.parsed`);
- `ast.parse` of exactly those files;
- astroid trees of exactly those files and nothing else, as the audit builds them (the
  files that spell an arch idiom whole, the others lazily; the function bodies the
  evaluation reads are not built: a lower bound), under the audit's collector settings;
- whole trees of only the files that spell an arch idiom: every condition of those is
  evaluated, so no reading of fewer other modules takes these off.

Whatever the evaluation costs, an audit that reads the same modules spends at least the
fourth figure; with N cores and no work done twice, at least that over N. Each step's
peak RSS is printed too (#20's target is < 250 MB): a process holding those trees holds
at least that much.
"""

from __future__ import annotations

import argparse
import ast
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from gatecheck.audit.prefilter import mentions_arch  # noqa: E402
from gatecheck.audit.run import run_audit  # noqa: E402
from gatecheck.config.loader import load_ruleset  # noqa: E402
from gatecheck.engine import open_project  # noqa: E402
from gatecheck.loading.project import bulk_allocation  # noqa: E402
from scripts.corpus import fetch  # noqa: E402


def _parse_all(files: list[Path]) -> float:
    started = time.perf_counter()
    for path in files:
        ast.parse(path.read_bytes())
    return time.perf_counter() - started


def _build_only(root: Path, built: list[Path], whole_only: bool = False) -> float:
    project, _ = open_project([root], ())
    started = time.perf_counter()
    for path in built:
        text = project.text_of(path)
        whole = text is not None and mentions_arch(text)
        if whole or not whole_only:
            project.module_at(path, whole=whole)
    return time.perf_counter() - started


def _step(name: str, root: Path, listing: Path) -> float:
    """One step, timed inside this process."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    if name == "yardstick":
        return _parse_all(sorted(root.rglob("*.py")))
    if name == "audit":
        started = time.perf_counter()
        report = run_audit([root], load_ruleset(None), "sm120", jobs=1)
        seconds = time.perf_counter() - started
        listing.write_text("\n".join(str(p) for p in report.parsed), encoding="utf-8")
        return seconds
    built = [Path(line) for line in listing.read_text(encoding="utf-8").splitlines()]
    if name == "parse":
        return _parse_all(built)
    with bulk_allocation():
        return _build_only(root, built, whole_only=name == "whole")


STEPS = [
    ("yardstick", "ast.parse of every file (yardstick)"),
    ("audit", "audit, one process"),
    ("parse", "ast.parse of the files it builds"),
    ("build", "astroid trees of those files only"),
    ("whole", "trees of those spelling an arch idiom"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default="sglang==0.5.9")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--step", help=argparse.SUPPRESS)
    parser.add_argument("--listing", help=argparse.SUPPRESS)
    options = parser.parse_args()
    root = fetch(options.corpus, only_python=True)
    if options.step:
        seconds = _step(options.step, root, Path(options.listing))
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
        print(json.dumps([seconds, peak]))
        return
    best = {name: float("inf") for name, _ in STEPS}
    peak = dict.fromkeys(best, 0.0)
    with tempfile.TemporaryDirectory() as work:
        listing = Path(work) / "built.txt"
        for _ in range(options.repeat):
            for name, _label in STEPS:
                command = [sys.executable, __file__, "--corpus", options.corpus]
                command += ["--step", name, "--listing", str(listing)]
                done = subprocess.run(command, capture_output=True, text=True, check=True)
                seconds, rss = json.loads(done.stdout.strip().splitlines()[-1])
                best[name] = min(best[name], float(seconds))
                peak[name] = max(peak[name], float(rss))
        built = [Path(line) for line in listing.read_text(encoding="utf-8").splitlines()]
    whole = sum(1 for p in built if mentions_arch(p.read_text(errors="replace")))
    files = sum(1 for _ in root.rglob("*.py"))
    print(f"{options.corpus}: {files} files, the audit builds {len(built)} ({whole} whole)")
    print(f"fastest of {options.repeat} rounds, in-process seconds, / yardstick, peak RSS:")
    yardstick = best["yardstick"]
    for name, label in STEPS:
        ratio = best[name] / yardstick
        print(f"  {label:<38} {best[name]:7.2f} s   {ratio:5.2f}x   {peak[name]:6.0f} MB")


if __name__ == "__main__":
    main()
