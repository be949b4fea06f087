#!/usr/bin/env python3
"""How the audit classes the gates an engine fixed between two releases: the measure the
maintainers keep on held-out fix history ("of real fixes, a third is called likely gap"),
taken on release pairs of any package.

    python -m gatecheck audit OLD_ROOT --generation sm120 --format json --no-cache -q > old.json
    python -m gatecheck audit NEW_ROOT --generation sm120 --format json --no-cache -q > new.json
    python scripts/release_fixes.py old.json new.json [--min-similarity 0.5]

A fix is an old row that does not admit the generation, in a function (path and
qualname) whose rows in the new release no longer hold its condition text, and whose
most similar new row there (difflib ratio of the condition texts, at least
--min-similarity) admits it and every generation the old row admitted: the gate was
widened, not replaced (a function refactored down to its new `is_sm120_supported()`
branch is no fix of its `is_sm100_supported()` one). Prints each fix with its old class
and first reason, then the count per class. Only the two reports are read.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

Row = dict[str, Any]


def fixes(old: Sequence[Row], new: Sequence[Row], min_similarity: float = 0.5) -> list[Row]:
    """The old rows the new release fixed (see the module docstring), in the old order."""
    by_function: dict[tuple[str, str], list[Row]] = defaultdict(list)
    for row in new:
        by_function[(row["path"], row["qualname"])].append(row)
    found: list[Row] = []
    for row in old:
        if row["class"] == "admits":
            continue
        candidates = by_function.get((row["path"], row["qualname"]), [])
        if not candidates or any(c["condition"] == row["condition"] for c in candidates):
            continue

        def similarity(other: Row, text: str = row["condition"]) -> float:
            return difflib.SequenceMatcher(None, other["condition"], text).ratio()

        best = max(candidates, key=similarity)
        widened = set(row.get("admitted", ())) <= set(best.get("admitted", ()))
        if best["class"] == "admits" and widened and similarity(best) >= min_similarity:
            found.append({**row, "fixed_as": best["condition"]})
    return found


def _gates(path: Path) -> list[Row]:
    gates: list[Row] = json.loads(path.read_text(encoding="utf-8"))["gates"]
    return gates


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path, help="audit --format json of the older release")
    parser.add_argument("new", type=Path, help="audit --format json of the newer release")
    parser.add_argument("--min-similarity", type=float, default=0.5)
    args = parser.parse_args(argv)
    try:
        old, new = (_gates(path) for path in (args.old, args.new))
    except (OSError, ValueError, KeyError, TypeError) as err:
        print(f"release_fixes: cannot read the reports: {err}", file=sys.stderr)
        return 2
    found = fixes(old, new, args.min_similarity)
    for row in found:
        reason = (row.get("reasons") or [""])[0]
        print(
            f"{row['class']:<20} {row['path']}:{row['line']}  {row['condition'][:70]}"
            f"  =>  {row['fixed_as'][:50]}  | {reason[:90]}"
        )
    counts = Counter(row["class"] for row in found)
    total = sum(counts.values())
    summary = ", ".join(f"{name} {n}" for name, n in counts.most_common()) or "none"
    print(f"{total} fixes: {summary}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
