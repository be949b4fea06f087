"""`# gatecheck: ignore[<id>] <reason>` comments: parsing, matching, and the findings about
suppressions themselves (GC101 without reason, GC102 unused)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gatecheck.cli import cli
from gatecheck.findings import Finding, GateKind, Polarity, Position
from gatecheck.suppressions import (
    SUPPRESSION_WITHOUT_REASON,
    UNUSED_SUPPRESSION,
    apply_suppressions,
    find_suppressions,
    parse_comment,
)
from tests.conftest import write_tree

RULE = """
features:
  - id: fast-thing
    description: the fast thing
    flags: [enable_fast_thing]
    require: [sm90, sm100, sm120]
  - id: other-thing
    description: another feature
    flags: [enable_other_thing]
    require: [sm90, sm100, sm120]
"""

ARGS = """
import torch


class Args:
    enable_fast_thing: bool = False

    def adjust(self):
        major, minor = torch.cuda.get_device_capability()
{before}
        if major in (9, 10):{same}
            self.enable_fast_thing = True
"""


def project(tmp_path: Path, before: str = "", same: str = "") -> Path:
    source = ARGS.replace("{before}", before).replace("{same}", same)
    return write_tree(
        tmp_path / "proj", {"pkg/__init__.py": "", "pkg/args.py": source, "rules.yaml": RULE}
    )


def run(root: Path, *extra: str) -> tuple[int, list[tuple[str, str, int]]]:
    result = CliRunner().invoke(
        cli, ["check", str(root), "--rules", str(root / "rules.yaml"), "--format", "json", *extra]
    )
    assert result.exit_code in (0, 1), result.output
    found = json.loads(result.output)["findings"]
    return result.exit_code, [(f["rule"], f["feature"], f["start"]["line"]) for f in found]


@pytest.mark.parametrize(
    ("comment", "expected"),
    [
        pytest.param(
            "# gatecheck: ignore[fast-thing] sm120 has no kernel",
            (("fast-thing",), "sm120 has no kernel"),
            id="one-id",
        ),
        pytest.param("# gatecheck: ignore[a, b] why", (("a", "b"), "why"), id="two-ids"),
        pytest.param("#gatecheck:ignore[GC001]", (("GC001",), ""), id="no-spaces-no-reason"),
        pytest.param(
            "# gatecheck: ignore[x] - dashes are not the reason",
            (("x",), "dashes are not the reason"),
            id="dash-separator",
        ),
        pytest.param(
            "# noqa: E501  # gatecheck: ignore[x] after another marker",
            (("x",), "after another marker"),
            id="after-noqa",
        ),
        pytest.param("# gatecheck: ignore because", ((), "because"), id="no-brackets"),
        pytest.param("# gatecheck: ignore[] why", ((), "why"), id="empty-brackets"),
    ],
)
def test_parse_comment(comment: str, expected: tuple[tuple[str, ...], str]) -> None:
    assert parse_comment(comment) == expected


@pytest.mark.parametrize(
    "comment",
    [
        pytest.param("# see gatecheck: ignore[x] in the docs", id="prose"),
        pytest.param("# gatecheck-ignore[x] why", id="wrong-marker"),
        pytest.param("# pylint: disable=foo", id="other-tool"),
    ],
)
def test_parse_comment_noop(comment: str) -> None:
    assert parse_comment(comment) is None


def test_marker_in_a_string_is_not_a_suppression(tmp_path: Path) -> None:
    text = 'NOTE = "# gatecheck: ignore[x] in a string"\nDOC = """\n# gatecheck: ignore[y] in a docstring\n"""\nx = 1  # gatecheck: ignore[z] real\n'
    found = find_suppressions(text, tmp_path / "m.py")
    assert [(s.line, s.ids, s.reason) for s in found] == [(5, ("z",), "real")]


def test_suppression_column_is_a_byte_offset(tmp_path: Path) -> None:
    found = find_suppressions('x = "é"  # gatecheck: ignore[z] why\n', tmp_path / "m.py")
    assert found[0].column == len('x = "é"  '.encode())
    assert found[0].end_column == len('x = "é"  # gatecheck: ignore[z] why'.encode())


def test_same_line_suppression_with_reason_hides_the_finding(tmp_path: Path) -> None:
    root = project(tmp_path, same="  # gatecheck: ignore[fast-thing] sm120 has no kernel yet")
    assert run(root) == (0, [])


def test_line_before_suppression_hides_the_finding(tmp_path: Path) -> None:
    root = project(
        tmp_path, before="        # gatecheck: ignore[fast-thing] sm120 has no kernel yet"
    )
    assert run(root) == (0, [])


def test_rule_id_suppresses_too(tmp_path: Path) -> None:
    root = project(tmp_path, same="  # gatecheck: ignore[GC001] every feature of this gate")
    assert run(root) == (0, [])


def test_two_lines_before_does_not_suppress(tmp_path: Path) -> None:
    root = project(tmp_path, before="        # gatecheck: ignore[fast-thing] too far away\n")
    code, found = run(root)
    assert code == 1
    assert sorted(found) == [("GC001", "fast-thing", 12), ("GC102", "fast-thing", 10)]


def test_suppression_without_reason_is_reported(tmp_path: Path) -> None:
    root = project(tmp_path, same="  # gatecheck: ignore[fast-thing]")
    assert run(root) == (1, [("GC101", "fast-thing", 11)])


def test_suppression_of_another_feature_is_unused(tmp_path: Path) -> None:
    root = project(tmp_path, same="  # gatecheck: ignore[other-thing] wrong feature")
    code, found = run(root)
    assert code == 1
    assert sorted(found) == [("GC001", "fast-thing", 11), ("GC102", "other-thing", 11)]


def test_unknown_id_is_unused_even_when_the_feature_is_not_checked(tmp_path: Path) -> None:
    root = project(tmp_path, same="  # gatecheck: ignore[fast-thing, fats-thing] typo")
    assert run(root, "--feature", "fast-thing") == (1, [("GC102", "fats-thing", 11)])


def test_unchecked_feature_is_not_called_unused(tmp_path: Path) -> None:
    # Only other-thing is checked: the fast-thing suppression cannot be judged.
    root = project(tmp_path, same="  # gatecheck: ignore[fast-thing] sm120 later")
    assert run(root, "--feature", "other-thing") == (0, [])


def test_generation_restricted_run_reports_no_unused(tmp_path: Path) -> None:
    root = project(tmp_path, same="  # gatecheck: ignore[fast-thing] sm120 later")
    assert run(root, "--generation", "sm90") == (0, [])


def test_suppression_findings_can_be_ignored(tmp_path: Path) -> None:
    root = project(tmp_path, same="  # gatecheck: ignore[fast-thing]")
    assert run(root, "--ignore", "GC101") == (0, [])


def test_text_output_lists_suppression_findings(tmp_path: Path) -> None:
    root = project(tmp_path, same="  # gatecheck: ignore[other-thing]")
    result = CliRunner().invoke(cli, ["check", str(root), "--rules", str(root / "rules.yaml")])
    assert result.exit_code == 1
    assert "GC101" in result.output and "GC102" in result.output and "GC001" in result.output


def _finding(path: Path, line: int, feature: str = "fast-thing") -> Finding:
    from gatecheck.findings import MISSING_GENERATION

    return Finding(
        rule=MISSING_GENERATION,
        path=path,
        start=Position(line, 8),
        end=Position(line, 20),
        feature=feature,
        message="m",
        required=frozenset({"sm120"}),
        admitted=frozenset(),
        missing=frozenset({"sm120"}),
        gate_kind=GateKind.RUNTIME,
        polarity=Polarity.ENABLES,
        qualname="f",
        condition="c",
        culprit="c",
    )


def test_apply_suppressions_prefers_the_same_line(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    text = "# gatecheck: ignore[fast-thing] before\nx = 1  # gatecheck: ignore[fast-thing] same\n"
    found = {path: find_suppressions(text, path)}
    finding = _finding(path, 2)
    outcome = apply_suppressions(
        [finding], found, known_ids={"fast-thing", "GC001"}, checked_ids={"fast-thing", "GC001"}
    )
    assert [s.reason for _f, s in outcome.suppressed] == ["same"]
    assert [(p.rule, p.start.line) for p in outcome.problems] == [(UNUSED_SUPPRESSION, 1)]
    assert SUPPRESSION_WITHOUT_REASON.id == "GC101" and UNUSED_SUPPRESSION.id == "GC102"


def test_fix_leaves_suppressed_gates_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from tests.conftest import FIXTURES

    root = tmp_path / "seed"
    shutil.copytree(FIXTURES / "seed_alias", root)
    server = root / "sglang/srt/server_args.py"
    text = server.read_text(encoding="utf-8")
    gate = "and (is_sm90_supported() or is_sm100_supported())"
    server.write_text(
        text.replace(
            gate, gate + "  # gatecheck: ignore[flashinfer-allreduce-fusion] decided later"
        ),
        encoding="utf-8",
    )
    monkeypatch.chdir(root)
    result = CliRunner().invoke(cli, ["check", ".", "--diff"])
    assert result.exit_code == 1
    assert "+++ b/sglang/srt/layers/communicator.py" in result.output
    assert "server_args.py" not in result.output
