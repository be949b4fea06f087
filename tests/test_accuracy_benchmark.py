"""benchmarks/accuracy: the labels are well-formed and the matching of labels to audit rows
is what the README says (pure functions; nothing is downloaded or audited here)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

RUN = Path(__file__).resolve().parent.parent / "benchmarks" / "accuracy" / "run.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("accuracy_run", RUN)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["accuracy_run"] = module
    spec.loader.exec_module(module)
    return module


run = _load()
NAMES = run.registry_names()


def _label(**fields: object) -> object:
    entry: dict[str, object] = {
        "corpus": "pkg==1.0",
        "path": "pkg/mod.py",
        "line": 10,
        "condition": "is_sm100_supported()",
        "admitted": ["sm100", "sm103"],
        "kind": "gate",
        "reason": "read it",
    }
    entry.update(fields)
    return run._label(entry, "t#1", set(NAMES))


def _row(first: int, last: int, condition: str, path: str = "pkg/mod.py", **kw: object) -> object:
    values: dict[str, object] = {
        "gate_class": "likely-gap",
        "admitted": frozenset({"sm100", "sm103"}),
        "rank": 0,
        "sites": (),
    }
    values.update(kw)
    return run.Row(path=path, first=first, last=last, condition=condition, **values)


def test_the_shipped_labels_load() -> None:
    labels = run.load_labels(run.LABELS, NAMES)
    assert {lab.kind for lab in labels} == set(run.KINDS)
    # One gate may be a gap for two generations (each audited apart), not labelled twice
    # for one.
    places = [(lab.corpus, lab.path, lab.line, lab.generation) for lab in labels]
    assert len(places) == len(set(places)), "a place is labelled twice"
    for lab in labels:
        assert lab.line <= lab.end_line, lab.where
        assert not Path(lab.path).is_absolute() and ".." not in Path(lab.path).parts, lab.where


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        pytest.param({"kind": "bug"}, "kind 'bug' is not one of", id="unknown-kind"),
        pytest.param(
            {"admitted": ["sm999"]}, "not in rules/generations.yaml: sm999", id="unknown-gen"
        ),
        pytest.param({"generation": "sm130"}, "sm130", id="unknown-audit-gen"),
        pytest.param({"corpus": "pkg"}, "is not name==version", id="no-version"),
        pytest.param(
            {"kind": "gap"}, "names the release and place that widened it", id="gap-no-fix"
        ),
    ],
)
def test_bad_labels_are_refused_with_their_reason(fields: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _label(**fields)


def test_a_missing_field_is_named() -> None:
    entry = {"corpus": "pkg==1.0", "path": "p.py", "line": 1}
    with pytest.raises(KeyError, match="condition, admitted, kind, reason"):
        run._label(entry, "t#1", set(NAMES))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("a and (b or c)", "aandborc", id="parens-spaces"),
        pytest.param('x in ["90", "100",]', "xin['90','100']", id="quotes-trailing-comma"),
        pytest.param("f(\n    1,\n)", "f1", id="layout"),
    ],
)
def test_normalise(text: str, expected: str) -> None:
    assert run.normalise(text) == expected


@pytest.mark.parametrize(
    ("label", "rows", "via", "row_first"),
    [
        pytest.param(_label(), [_row(10, 10, "is_sm100_supported()")], "span", 10, id="same-line"),
        pytest.param(
            _label(line=12, end_line=14),
            [_row(11, 12, "x")],
            "span",
            11,
            id="spans-overlap",
        ),
        pytest.param(
            _label(),
            [_row(40, 40, "is_sm100_supported()")],
            "text",
            40,
            id="moved-same-text",
        ),
        pytest.param(
            _label(),
            [_row(400, 400, "is_sm100_supported()")],
            "",
            None,
            id="same-text-far-away-is-another-gate",
        ),
        pytest.param(
            _label(),
            [_row(50, 50, "is_sm100_supported()"), _row(30, 30, "is_sm100_supported()")],
            "text",
            30,
            id="nearest-same-text",
        ),
        pytest.param(
            _label(),
            [_row(10, 10, "is_sm100_supported()", path="pkg/other.py")],
            "",
            None,
            id="other-file",
        ),
        pytest.param(
            _label(),
            [_row(3, 3, "x", sites=(("pkg/mod.py", 10, "f(y)", None),))],
            "call site",
            3,
            id="call-site-of-a-row",
        ),
        pytest.param(
            _label(),
            [_row(9, 11, "other"), _row(10, 10, "is_sm100_supported()", rank=5)],
            "span",
            10,
            id="same-text-wins-among-overlaps",
        ),
    ],
)
def test_match(label: object, rows: list[object], via: str, row_first: int | None) -> None:
    outcome = run.match(label, rows)
    assert outcome.via == via
    assert (outcome.row.first if outcome.row else None) == row_first


@pytest.mark.parametrize(
    ("admitted", "exact"),
    [
        pytest.param({"sm100", "sm103"}, True, id="equal"),
        pytest.param({"sm100"}, False, id="smaller"),
        pytest.param({"sm100", "sm103", "gfx90a"}, True, id="alternative-reading"),
    ],
)
def test_exact_admitted_set(admitted: set[str], exact: bool) -> None:
    label = _label(alt_admitted=["sm100", "sm103", "gfx90a"])
    row = _row(10, 10, "is_sm100_supported()", admitted=frozenset(admitted))
    assert run.Outcome(label, row, "span").exact is exact


@pytest.mark.parametrize(
    ("site_admitted", "exact"),
    [
        # `if not is_blackwell():` under the predicate's row: the site's own set decides.
        pytest.param(frozenset({"sm90"}), True, id="the-sites-own-set"),
        pytest.param(None, False, id="no-set-given-the-rows"),
    ],
)
def test_a_call_site_is_read_with_its_own_set(
    site_admitted: frozenset[str] | None, exact: bool
) -> None:
    label = _label(admitted=["sm90"])
    sites = (("pkg/mod.py", 10, "not is_blackwell()", site_admitted),)
    outcome = run.match(label, [_row(3, 3, "major == 10", sites=sites)])
    assert (outcome.via, outcome.exact) == ("call site", exact)


def test_figures_and_top_gaps() -> None:
    gap = _label(kind="gap", fixed_in="pkg==2.0 pkg/mod.py:12")
    deliberate = _label(kind="deliberate", line=30)
    rows = [_row(10, 10, "is_sm100_supported()"), _row(30, 30, "y", gate_class="admits", rank=1)]
    outcomes = [run.match(gap, rows), run.match(deliberate, rows)]
    numbers = run.figures(outcomes)
    assert (numbers["gaps"], numbers["gaps_listed"], numbers["gaps_likely_gap"]) == (1, 1, 1)
    assert (numbers["deliberate"], numbers["deliberate_likely_gap"]) == (1, 0)
    assert [t["label"] for t in run.top_likely_gaps(rows, outcomes)] == ["gap"]


@pytest.mark.parametrize(
    ("fields", "worth"),
    [
        ({"kind": "gate"}, None),
        ({"kind": "gate", "worth": False}, False),
        ({"kind": "gap", "generation": "sm120", "fixed_in": "pkg==2.0 pkg/mod.py:1"}, True),
        ({"kind": "deliberate"}, False),
    ],
)
def test_worth_follows_the_kind_unless_judged(fields: dict[str, object], worth: object) -> None:
    assert _label(**fields).worth is worth  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "fields",
    [{"kind": "gate", "worth": "yes"}, {"kind": "deliberate", "worth": True}],
)
def test_worth_refusals(fields: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="worth"):
        _label(**fields)


def test_the_top_rows_are_scored_by_the_labels_that_judge_them() -> None:
    rows = [_row(10, 10, "is_sm100_supported()", rank=0), _row(20, 20, "x", rank=1)]
    rows.append(_row(30, 30, "y", rank=2))
    labels = [_label(worth=True), _label(line=20, condition="x", kind="deliberate")]
    top = run.top_likely_gaps(rows, [run.match(lab, rows) for lab in labels])
    assert [r["worth"] for r in top] == [True, False, None]
    assert run.worth_figure(top) == "1/3 worth a maintainer's time (2 judged)"


def test_a_row_spans_its_whole_condition() -> None:
    # The row's `end_line` is its anchor's (the part that shuts the generation out); the
    # condition may go on (TransformerEngine 1.13.0's head-size filter, 477-481).
    gate = {
        "path": "pkg/mod.py",
        "line": 477,
        "end_line": 477,
        "condition_line": 477,
        "condition_end_line": 481,
        "condition": "use_fa and (d > 256 or d > 192 and cap not in ((8, 0), (9, 0)))",
        "class": "admits",
        "admitted": ["sm90"],
    }
    (row,) = run.rows_of({"gates": [gate]}, run.REPO)
    assert (row.first, row.last) == (477, 481)


def test_a_hop_under_no_row_is_listed_with_its_own_set() -> None:
    gate = {
        "path": "pkg/flags.py",
        "line": 26,
        "end_line": 26,
        "condition_line": 26,
        "condition_end_line": 26,
        "condition": "sm_version == 90",
        "class": "probably-deliberate",
        "admitted": ["sm90"],
        "call_sites": [{"path": "pkg/a.py", "line": 5, "condition": "FLAG", "admitted": ["sm90"]}],
    }
    hops = [
        {"path": "pkg/a.py", "line": 5, "condition": "FLAG", "admitted": ["sm90"]},
        {"path": "pkg/b.py", "line": 9, "end_line": 10, "condition": "FLAG and x", "admitted": []},
    ]
    rows = run.rows_of({"gates": [gate], "hops": hops}, run.REPO)
    # The hop under the gate stays one of its call sites; the other is a row of its own.
    assert [(r.path, r.first, r.last, r.gate_class) for r in rows[1:]] == [
        ("pkg/b.py", 9, 10, "hop")
    ]
    label = run._label(
        {
            "corpus": "pkg==1",
            "path": "pkg/b.py",
            "line": 10,
            "condition": "FLAG and x",
            "admitted": [],
            "kind": "gate",
            "reason": "r",
        },
        "t#1",
        {"sm90", "sm120"},
    )
    outcome = run.match(label, rows)
    assert outcome.listed and outcome.exact and not outcome.likely_gap
