"""Does the audit's answer depend on the order its candidate files are evaluated in?

    python benchmarks/order_probe.py [--corpus sglang==0.5.9] [--generation sm120]

Worker processes over a partition of the candidate files (#20) give the same answers only
if no value depends on what was evaluated before it (memo entries, the cycle guard that
reads a binding in progress as Unknown, the per-condition work budget). This runs the
audit twice in one process each, the candidate modules in file order and reversed (it
wraps audit/run.py's `_arch_modules`, a private step: this is a probe, not an API), and
compares the JSON reports: byte for byte, then each gate with its call sites sorted and
the hop list as a set (both follow the order of discovery, which a merge pass would
restore). Diagnostics are left out (they follow the order files are read in).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from scripts.corpus import fetch  # noqa: E402

CHILD = """\
import json, sys
from pathlib import Path
sys.setrecursionlimit(20000)
import gatecheck.audit.run as run
from gatecheck.config.loader import load_ruleset
from gatecheck.reporting.audit_json import render_audit_json
root, order, generation, out = Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
in_file_order = run._arch_modules
if order == "reversed":
    run._arch_modules = lambda project, only=None: list(reversed(in_file_order(project, only)))
report = run.run_audit([root], load_ruleset(None), generation, jobs=1)
data = json.loads(render_audit_json(report, root))
data.pop("diagnostics", None)
Path(out).write_text(json.dumps(data, indent=1, sort_keys=True))
"""


def audit(root: Path, order: str, generation: str, out: Path) -> dict[str, Any]:
    command = [sys.executable, "-c", CHILD, str(root), order, generation, str(out)]
    subprocess.run(command, check=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    data: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return data


def normalised(gate: dict[str, Any]) -> str:
    sites = sorted(gate.get("call_sites", []), key=lambda s: json.dumps(s, sort_keys=True))
    return json.dumps({**gate, "call_sites": sites}, sort_keys=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default="sglang==0.5.9")
    parser.add_argument("--generation", default="sm120")
    options = parser.parse_args()
    root = fetch(options.corpus, only_python=True)
    with tempfile.TemporaryDirectory() as folder:
        forward = audit(root, "forward", options.generation, Path(folder) / "forward.json")
        backward = audit(root, "reversed", options.generation, Path(folder) / "reversed.json")
    gates_f = [normalised(g) for g in forward["gates"]]
    gates_b = [normalised(g) for g in backward["gates"]]
    hops_f = sorted(json.dumps(h, sort_keys=True) for h in forward["hops"])
    hops_b = sorted(json.dumps(h, sort_keys=True) for h in backward["hops"])
    differing = [k for k in forward if forward[k] != backward.get(k)]
    only_f, only_b = len(set(gates_f) - set(gates_b)), len(set(gates_b) - set(gates_f))
    print(f"{options.corpus} audit --generation {options.generation}:")
    print(f"  byte-identical reports: {forward == backward} (fields that differ: {differing})")
    print(f"  gates ({len(gates_f)}) equal, call sites sorted: {gates_f == gates_b}")
    print(f"  gates only in file order / only reversed: {only_f} / {only_b}")
    print(f"  hops ({len(hops_f)}) equal as a set: {hops_f == hops_b}")


if __name__ == "__main__":
    main()
