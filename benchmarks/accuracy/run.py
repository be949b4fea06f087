"""How well `gatecheck audit` lists and classes the architecture gates of real code bases.

    python benchmarks/accuracy/run.py               # every corpus of labels/*.yaml
    python benchmarks/accuracy/run.py --json        # the same figures as JSON
    python benchmarks/accuracy/run.py --corpus sglang==0.5.9 --verbose

Run from the repository root: the audit is `python -m gatecheck audit` in a fresh process
with the repository root as working directory, so whatever gatecheck that interpreter
imports (the working tree's, when installed with `pip install -e .`) is the one measured.

The labels (labels/*.yaml, see README.md) name a corpus (a PyPI `name==version`), a path
inside the unpacked wheel, the line where a condition starts, the condition as written, its
admitted set and its kind:

- `gap`: a gate later widened by the engine's maintainers to a generation (`generation`,
  sm120 unless said); audited with `--generation` that generation;
- `deliberate`: an exclusion of the audited generation that a comment or message next to
  it says is on purpose; a maintainer does not want it classed likely-gap;
- `gate`: any other real architecture gate.

Each wheel is downloaded once (python files only) into .cache/corpus/ by scripts/corpus.py,
then audited once per generation its labels need (`--no-cache`, so every run is fresh).
A label is matched to an audit row of the same file whose lines overlap the label's
(`line`..`end_line` against the row's `condition_line`..`end_line`), else to the nearest row
of that file, within NEAR lines, with the same condition text (whitespace, parentheses,
quote style and trailing commas ignored), so a label still finds its row when the audit
reports the condition a few lines off (and not another gate that reads the same). A label found
only among the call sites of a row counts as listed, with the admitted set the report gives
that call site (the row's where it gives none); one among the audit's hops under no row,
with the hop's.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO))

from scripts.corpus import CorpusUnavailable, fetch  # noqa: E402

LABELS = HERE / "labels"
KINDS = ("gap", "deliberate", "gate")
DEFAULT_GENERATION = "sm120"
LIKELY_GAP = "likely-gap"
TOP = 10
NEAR = 30  # lines: how far a row with the label's condition text may be reported


class LabelError(Exception):
    """A label file that cannot be read as labels (every problem, each with its place)."""


@dataclass(frozen=True)
class Label:
    where: str  # labels file and entry number, for messages
    corpus: str
    path: str
    line: int
    end_line: int
    condition: str
    admitted: frozenset[str]
    alt_admitted: frozenset[str] | None  # a second reading the label accepts (see README)
    kind: str
    generation: str
    reason: str
    fixed_in: str | None
    # Would a maintainer auditing for the generation want this row among the likely gaps?
    # A gap yes, a deliberate exclusion no; a plain gate only when judged (`worth:`).
    worth: bool | None = None


@dataclass(frozen=True)
class Row:
    """One audit row, reduced to what matching and the figures need."""

    path: str  # relative to the corpus root
    first: int
    last: int
    condition: str
    gate_class: str
    admitted: frozenset[str]
    rank: int  # position in the report (likely gaps come first)
    # call sites: path, line, condition and the site's own admitted set (None: not given)
    sites: tuple[tuple[str, int, str, frozenset[str] | None], ...]


@dataclass(frozen=True)
class Outcome:
    label: Label
    row: Row | None
    via: str  # "span", "text", "call site" or "" when not listed
    # Matched as a call site: the set the report gives that call (the condition there),
    # not the row's (the predicate's own test).
    site_admitted: frozenset[str] | None = None

    @property
    def listed(self) -> bool:
        return self.row is not None

    @property
    def exact(self) -> bool:
        if self.row is None:
            return False
        admitted = self.row.admitted if self.site_admitted is None else self.site_admitted
        return admitted in (self.label.admitted, self.label.alt_admitted)

    @property
    def likely_gap(self) -> bool:
        return self.row is not None and self.row.gate_class == LIKELY_GAP


def registry_names() -> list[str]:
    data = yaml.safe_load((REPO / "rules" / "generations.yaml").read_text())
    return [g["name"] for g in data["generations"]]


def normalise(text: str) -> str:
    """A condition's text without what layout changes: whitespace, parentheses, quote style."""
    text = re.sub(r",\s*([)\]}])", r"\1", text)  # a trailing comma
    return re.sub(r"[\s()]+", "", text).replace('"', "'")


def load_labels(folder: Path, names: list[str]) -> list[Label]:
    known = set(names)
    labels: list[Label] = []
    errors: list[str] = []
    for file in sorted(folder.glob("*.yaml")):
        data = yaml.safe_load(file.read_text()) or {}
        for number, entry in enumerate(data.get("labels") or [], start=1):
            where = f"{file.name}#{number}"
            try:
                labels.append(_label(entry, where, known))
            except (KeyError, TypeError, ValueError) as err:
                errors.append(f"{where}: {err}")
    if errors:
        raise LabelError("\n".join(errors))
    return labels


def _label(entry: dict[str, Any], where: str, known: set[str]) -> Label:
    missing = [
        k
        for k in ("corpus", "path", "line", "condition", "admitted", "kind", "reason")
        if k not in entry
    ]
    if missing:
        raise KeyError(f"missing {', '.join(missing)}")
    if entry["kind"] not in KINDS:
        raise ValueError(f"kind {entry['kind']!r} is not one of {', '.join(KINDS)}")
    admitted = frozenset(entry["admitted"])
    alt = entry.get("alt_admitted")
    alt_admitted = None if alt is None else frozenset(alt)
    generation = entry.get("generation", DEFAULT_GENERATION)
    unknown = sorted((admitted | (alt_admitted or frozenset()) | {generation}) - known)
    if unknown:
        raise ValueError(f"not in rules/generations.yaml: {', '.join(unknown)}")
    if "==" not in entry["corpus"]:
        raise ValueError(f"corpus {entry['corpus']!r} is not name==version")
    if entry["kind"] == "gap" and not entry.get("fixed_in"):
        raise ValueError("a gap names the release and place that widened it (fixed_in)")
    line = int(entry["line"])
    worth = entry.get("worth", {"gap": True, "deliberate": False}.get(entry["kind"]))
    if worth is not None and not isinstance(worth, bool):
        raise ValueError(f"worth {worth!r} is not true or false")
    if worth is not None and entry["kind"] != "gate" and worth is not (entry["kind"] == "gap"):
        raise ValueError(f"a {entry['kind']} label cannot say worth: {worth}")
    return Label(
        where=where,
        corpus=entry["corpus"],
        path=entry["path"],
        line=line,
        end_line=int(entry.get("end_line", line)),
        condition=" ".join(str(entry["condition"]).split()),
        admitted=admitted,
        alt_admitted=alt_admitted,
        kind=entry["kind"],
        generation=generation,
        reason=entry["reason"],
        fixed_in=entry.get("fixed_in"),
        worth=worth,
    )


def run_audit(root: Path, generation: str) -> tuple[dict[str, Any], float]:
    command = [sys.executable, "-m", "gatecheck", "audit", str(root), "--generation", generation]
    command += ["--format", "json", "--no-cache", "-q"]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    try:
        return json.loads(done.stdout), seconds
    except json.JSONDecodeError:
        tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
        raise RuntimeError(f"audit of {root.name} for {generation} failed: {tail[0]}") from None


def _relative(path: str, root: Path) -> str:
    full = Path(path) if Path(path).is_absolute() else REPO / path
    try:
        return full.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return full.as_posix()


def rows_of(report: dict[str, Any], root: Path) -> list[Row]:
    rows = []
    for rank, gate in enumerate(report.get("gates", [])):
        first = min(gate["condition_line"], gate["line"])
        sites = tuple(
            (
                _relative(s["path"], root),
                s["line"],
                s.get("condition") or "",
                frozenset(s["admitted"]) if "admitted" in s else None,
            )
            for s in gate.get("call_sites", [])
        )
        rows.append(
            Row(
                path=_relative(gate["path"], root),
                first=first,
                last=max(
                    gate["end_line"],
                    gate.get("condition_end_line", 0),
                    gate["condition_line"],
                    first,
                ),
                condition=gate["condition"],
                gate_class=gate["class"],
                admitted=frozenset(gate["admitted"]),
                rank=rank,
                sites=sites,
            )
        )
    # The report's hops under no row (a reader of a flag whose gate it is not attributed
    # to: sglang 0.4.6's `if _ENABLE_JIT_DEEPGEMM:`): listed, each with its own set.
    under_rows = {(path, line) for r in rows for path, line, _, _ in r.sites}
    for hop in report.get("hops", []):
        path = _relative(hop["path"], root)
        if (path, hop["line"]) in under_rows:
            continue
        rows.append(
            Row(
                path=path,
                first=hop["line"],
                last=max(hop.get("end_line", hop["line"]), hop["line"]),
                condition=hop["condition"],
                gate_class="hop",
                admitted=frozenset(hop["admitted"]),
                rank=len(rows),
                sites=(),
            )
        )
    return rows


def match(label: Label, rows: list[Row]) -> Outcome:
    same_file = [r for r in rows if r.path == label.path]
    wanted = normalise(label.condition)
    overlapping = [r for r in same_file if r.first <= label.end_line and label.line <= r.last]
    if overlapping:
        best = min(overlapping, key=lambda r: (normalise(r.condition) != wanted, r.rank))
        return Outcome(label, best, "span")
    same_text = [
        r for r in same_file if normalise(r.condition) == wanted and _distance(label, r) <= NEAR
    ]
    if same_text:
        return Outcome(label, min(same_text, key=lambda r: _distance(label, r)), "text")
    for row in rows:
        for path, line, condition, admitted in row.sites:
            if path == label.path and (
                label.line <= line <= label.end_line or normalise(condition) == wanted
            ):
                return Outcome(label, row, "call site", admitted)
    return Outcome(label, None, "")


def _distance(label: Label, row: Row) -> int:
    return max(row.first - label.end_line, label.line - row.last, 0)


def figures(outcomes: list[Outcome]) -> dict[str, Any]:
    def count(kind: str | None, test: str) -> int:
        chosen = [o for o in outcomes if kind is None or o.label.kind == kind]
        return sum(1 for o in chosen if getattr(o, test))

    total = Counter(o.label.kind for o in outcomes)
    return {
        "labels": len(outcomes),
        "all_listed": count(None, "listed"),
        "all_exact": count(None, "exact"),
        "gates": total["gate"],
        "gates_listed": count("gate", "listed"),
        "gates_exact": count("gate", "exact"),
        "gaps": total["gap"],
        "gaps_listed": count("gap", "listed"),
        "gaps_likely_gap": count("gap", "likely_gap"),
        "deliberate": total["deliberate"],
        "deliberate_listed": count("deliberate", "listed"),
        "deliberate_likely_gap": count("deliberate", "likely_gap"),
    }


def top_likely_gaps(rows: list[Row], outcomes: list[Outcome]) -> list[dict[str, Any]]:
    """The first likely gaps of the report, each with what the labels say about it."""
    labelled: dict[Row, Label] = {}
    for outcome in outcomes:
        if outcome.row is not None:
            labelled.setdefault(outcome.row, outcome.label)
    top = [r for r in rows if r.gate_class == LIKELY_GAP][:TOP]
    return [
        {
            "path": r.path,
            "line": r.first,
            "condition": r.condition,
            "label": labelled[r].kind if r in labelled else "unlabelled",
            "worth": labelled[r].worth if r in labelled else None,
        }
        for r in top
    ]


def worth_figure(top: list[dict[str, Any]]) -> str:
    """'k/10 worth a maintainer's time' over the top rows, with how many are judged."""
    worth = sum(1 for row in top if row.get("worth") is True)
    judged = sum(1 for row in top if row.get("worth") is not None)
    return f"{worth}/{len(top)} worth a maintainer's time ({judged} judged)"


def measure(
    labels: list[Label], corpora: list[str], reports: Path | None = None, reuse: bool = False
) -> dict[str, Any]:
    """`reports`: a folder to write each audit's JSON to (`reuse`: read them from it
    instead of auditing, to score changed labels without a new audit)."""
    result: dict[str, Any] = {"corpora": {}, "audits": []}
    everything: list[Outcome] = []
    for corpus in corpora:
        mine = [lab for lab in labels if lab.corpus == corpus]
        root = fetch(corpus, only_python=True)
        generations = sorted({DEFAULT_GENERATION} | {lab.generation for lab in mine})
        rows_by_generation: dict[str, list[Row]] = {}
        for generation in generations:
            kept = reports / f"{corpus}-{generation}.json" if reports else None
            if reuse and kept is not None:
                report, seconds = json.loads(kept.read_text()), 0.0
            else:
                report, seconds = run_audit(root, generation)
            if kept is not None and not reuse:
                kept.parent.mkdir(parents=True, exist_ok=True)
                kept.write_text(json.dumps(report))
            rows_by_generation[generation] = rows_of(report, root)
            result["audits"].append(
                {
                    "corpus": corpus,
                    "generation": generation,
                    "seconds": round(seconds, 1),
                    "rows": len(rows_by_generation[generation]),
                }
            )
        outcomes = [match(lab, rows_by_generation[lab.generation]) for lab in mine]
        everything += outcomes
        default_rows = rows_by_generation[DEFAULT_GENERATION]
        on_default = [match(lab, default_rows) for lab in mine]
        result["corpora"][corpus] = {
            **figures(outcomes),
            "top_likely_gaps": top_likely_gaps(default_rows, on_default),
            "labels_detail": [_detail(o) for o in outcomes],
        }
    result["total"] = figures(everything)
    return result


def check_places(labels: list[Label]) -> list[str]:
    """Labels whose file is missing from the wheel, or whose lines do not hold at least half
    of the condition's names and numbers (a line number typed wrong)."""
    problems = []
    for label in labels:
        source = fetch(label.corpus, only_python=True) / label.path
        if not source.is_file():
            problems.append(f"{label.where}: no {label.path} in {label.corpus}")
            continue
        lines = source.read_text(errors="replace").splitlines()
        span = " ".join(lines[label.line - 1 : label.end_line])
        names = set(re.findall(r"[A-Za-z_]\w{3,}|\d+", label.condition))
        found = {n for n in names if n in span}
        if len(found) < max(1, len(names) // 2):
            problems.append(f"{label.where}: {label.path}:{label.line} does not read like it")
    return problems


def _detail(outcome: Outcome) -> dict[str, Any]:
    label, row = outcome.label, outcome.row
    return {
        "label": label.where,
        "kind": label.kind,
        "generation": label.generation,
        "path": label.path,
        "line": label.line,
        "listed": outcome.listed,
        "via": outcome.via,
        "row_line": None if row is None else row.first,
        "class": None if row is None else row.gate_class,
        "exact": outcome.exact,
        "extra": [] if row is None else sorted(row.admitted - label.admitted),
        "missing": [] if row is None else sorted(label.admitted - row.admitted),
    }


def _ratio(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "0/0"


def render(result: dict[str, Any], verbose: bool) -> str:
    lines = []
    for corpus, data in [*result["corpora"].items(), ("TOTAL", result["total"])]:
        lines.append(f"== {corpus}")
        lines.append(
            f"  every label listed          {_ratio(data['all_listed'], data['labels'])}"
            f"   exact admitted set {_ratio(data['all_exact'], data['labels'])}"
            f", of listed {_ratio(data['all_exact'], data['all_listed'])}"
        )
        lines.append(
            f"  plain gates listed          {_ratio(data['gates_listed'], data['gates'])}"
            f"   exact admitted set {_ratio(data['gates_exact'], data['gates'])}"
            f", of listed {_ratio(data['gates_exact'], data['gates_listed'])}"
        )
        lines.append(
            f"  gaps listed                 {_ratio(data['gaps_listed'], data['gaps'])}"
            f"   classed likely-gap {_ratio(data['gaps_likely_gap'], data['gaps'])}"
        )
        lines.append(
            "  deliberate classed likely-gap "
            f"{_ratio(data['deliberate_likely_gap'], data['deliberate'])}"
            f"   (listed {_ratio(data['deliberate_listed'], data['deliberate'])})"
        )
        if corpus == "TOTAL":
            continue
        top = data["top_likely_gaps"]
        lines.append(
            f"  top {TOP} likely gaps (--generation {DEFAULT_GENERATION}): {worth_figure(top)}"
        )
        for row in top:
            text = row["condition"] if len(row["condition"]) < 70 else row["condition"][:67] + "..."
            mark = {True: "+", False: "-"}.get(row.get("worth"), "?")
            lines.append(f"    {mark} [{row['label']:>10}] {row['path']}:{row['line']}  {text}")
        if verbose:
            for d in data["labels_detail"]:
                if not d["listed"]:
                    lines.append(
                        f"    NOT LISTED {d['kind']:>10} {d['path']}:{d['line']} ({d['label']})"
                    )
                elif not d["exact"]:
                    lines.append(
                        f"    SET        {d['kind']:>10} {d['path']}:{d['line']} extra {d['extra']}"
                        f" missing {d['missing']} ({d['label']})"
                    )
                if d["kind"] == "gap" and d["listed"] and d["class"] != LIKELY_GAP:
                    lines.append(
                        f"    GAP AS     {d['class']:>10} {d['path']}:{d['line']} ({d['label']})"
                    )
                if d["kind"] == "deliberate" and d["class"] == LIKELY_GAP:
                    lines.append(
                        f"    DELIBERATE likely-gap {d['path']}:{d['line']} ({d['label']})"
                    )
    lines.append(
        "audits: "
        + ", ".join(f"{a['corpus']} {a['generation']} {a['seconds']}s" for a in result["audits"])
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labels", type=Path, default=LABELS, help="folder of label files")
    parser.add_argument("--corpus", action="append", help="only this name==version (repeatable)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--verbose", action="store_true", help="list every label that misses")
    parser.add_argument("--save", type=Path, help="also write the JSON figures to this file")
    parser.add_argument("--load", type=Path, help="print a --save'd run instead of auditing")
    parser.add_argument("--reports", type=Path, help="also write each audit's JSON here")
    parser.add_argument(
        "--reuse", action="store_true", help="score the --reports JSON instead of auditing"
    )
    parser.add_argument(
        "--check", action="store_true", help="only check that each label's lines hold it"
    )
    args = parser.parse_args(argv)
    if args.load:
        print(render(json.loads(args.load.read_text()), args.verbose))
        return 0
    try:
        labels = load_labels(args.labels, registry_names())
    except LabelError as err:
        print(f"bad labels:\n{err}", file=sys.stderr)
        return 2
    corpora = sorted({lab.corpus for lab in labels})
    if args.corpus:
        corpora = [c for c in corpora if c in args.corpus]
    if args.check:
        chosen = [lab for lab in labels if lab.corpus in corpora]
        problems = check_places(chosen)
        print("\n".join(problems) or f"{len(chosen)} labels: every place holds its condition")
        return 1 if problems else 0
    try:
        result = measure(labels, corpora, args.reports, args.reuse)
    except (CorpusUnavailable, RuntimeError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.save:
        args.save.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2) if args.json else render(result, args.verbose))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
