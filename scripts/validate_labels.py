"""Compare gatecheck's admitted sets with hand-labelled real gates kept outside the repo.

Usage: python scripts/validate_labels.py LABELS.yaml [--verbose] [--audit]

With --audit, the labels are compared with `gatecheck audit --format json` instead (the
`admitted` of each audit gate whose condition starts at a labelled line).

LABELS.yaml is a list of entries with `root`, `file` (relative to root), `line` (where the
condition starts), `condition` (its source text) and `admitted` (hand label: the
condition's own admitted set). Third-party sources are never committed; point `root` at
unpacked wheels.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import yaml
from astroid import nodes

from gatecheck.config.loader import load_ruleset
from gatecheck.engine import open_project
from gatecheck.semantics.admitted import Semantics


def _norm(text: str) -> str:
    return re.sub(r"[\s()]+", "", text).replace("'", '"')


def _find_condition(module: nodes.Module, line: int, text: str) -> nodes.NodeNG | None:
    wanted = _norm(text)
    best = None
    for node in module.nodes_of_class(nodes.NodeNG):
        if getattr(node, "lineno", None) != line or node.is_statement:
            continue
        if _norm(node.as_string()) == wanted:
            return node
        if best is None and wanted.startswith(_norm(node.as_string())[:20]):
            best = node
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("labels", type=Path)
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--audit", action="store_true")
    args = parser.parse_args(argv)
    if args.audit:
        return _compare_audit(yaml.safe_load(args.labels.read_text()))
    sys.setrecursionlimit(20000)
    entries = yaml.safe_load(args.labels.read_text())
    ruleset = load_ruleset(None)
    projects: dict[str, Semantics] = {}
    tally: Counter[str] = Counter()
    for entry in entries:
        root = entry["root"]
        if root not in projects:
            project, _ = open_project([Path(root)])
            projects[root] = Semantics(project, ruleset.registry)
        semantics = projects[root]
        module = semantics.project.module_at(Path(root) / entry["file"])
        node = (
            None if module is None else _find_condition(module, entry["line"], entry["condition"])
        )
        where = f"{entry['package']} {entry['file']}:{entry['line']}"
        if node is None:
            tally["not found"] += 1
            print(f"NOT FOUND {where}: {entry['condition'][:80]}")
            continue
        admission = semantics.admission(node)
        got = set(admission.can_be_true)
        want = set(entry["admitted"])
        alt = set(entry["alt_admitted"]) if entry.get("alt_admitted") is not None else None
        if got == want:
            tally["match"] += 1
            if args.verbose:
                print(f"ok        {where}")
        elif alt is not None and got == alt:
            tally["match (alternative reading)"] += 1
            print(f"alt       {where}: {entry.get('alt_note', '')[:100]}")
        else:
            tally["mismatch"] += 1
            order = ruleset.registry.ordered
            print(f"MISMATCH  {where} [{entry.get('idiom')}]: {entry['condition'][:100]}")
            print(f"    extra   {order(got - want)}  missing {order(want - got)}")
            if admission.assumed:
                print(f"    assumed {sorted(admission.assumed)}")
    print(dict(tally), f"of {len(entries)}")
    return 0 if tally["mismatch"] == 0 and tally["not found"] == 0 else 1


def _compare_audit(entries: list[dict[str, Any]]) -> int:
    from click.testing import CliRunner

    from gatecheck.cli import cli

    tally: Counter[str] = Counter()
    roots = sorted({e["root"] for e in entries})
    for root in roots:
        command = ["audit", root, "--generation", "sm120", "--format", "json"]
        result = CliRunner().invoke(cli, command)
        gates = {
            (str(Path(g["path"]).resolve()), g["condition_line"]): g
            for g in json.loads(result.output)["gates"]
        }
        for entry in (e for e in entries if e["root"] == root):
            gate = gates.get((str((Path(root) / entry["file"]).resolve()), entry["line"]))
            where = f"{entry['package']} {entry['file']}:{entry['line']}"
            if gate is None:
                tally["not an audit gate (inner condition, hop or predicate body)"] += 1
                continue
            got, want = set(gate["admitted"]), set(entry["admitted"])
            alt = set(entry["alt_admitted"]) if entry.get("alt_admitted") is not None else None
            if got in (want, alt):
                tally["match"] += 1
            else:
                tally["mismatch"] += 1
                print(f"MISMATCH  {where}: extra {sorted(got - want)} missing {sorted(want - got)}")
    print(dict(tally), f"of {len(entries)}")
    return 0 if tally["mismatch"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
