"""Per-condition containment (issue #14, deliverable 6): an unexpected exception while
evaluating one condition becomes a diagnostic for that condition, the rest of the report
is intact, the exit code says so, and `--debug` re-raises."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner

from gatecheck.cli import cli
from gatecheck.containment import TOO_DEEP, Containment, is_internal_error
from gatecheck.semantics.admitted import Semantics
from tests.conftest import FAST_THING_RULE

MakeTree = Callable[[Mapping[str, str]], Path]

RULE = FAST_THING_RULE

# Two gates that forget sm120, in two files; the injected failure hits only `boom.py`'s.
GATE = """\
import torch


class Args:
    enable_fast_thing: bool = False

    def adjust(self):
        major, minor = torch.cuda.get_device_capability()
        if {condition}:
            self.enable_fast_thing = True
"""
TREE = {
    "good.py": GATE.format(condition="major in (9, 10)"),
    "boom.py": GATE.format(condition="major in (9, 10) and not boom_marker"),
}


class InjectedFailure(Exception):
    pass


@pytest.fixture
def failing_condition(monkeypatch: pytest.MonkeyPatch) -> None:
    """The semantics fail on every condition (or operand) that mentions `boom_marker`."""
    admission = Semantics.admission

    def failing(self: Semantics, node: object, *args: object, **kwargs: object) -> object:
        if "boom_marker" in node.as_string():  # type: ignore[attr-defined]
            raise InjectedFailure("injected for the test")
        return admission(self, node, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Semantics, "admission", failing)


def tree_with_rules(make_tree: MakeTree) -> tuple[Path, Path]:
    root = make_tree(TREE)
    rules = root.parent / "rules.yaml"
    rules.write_text(RULE, encoding="utf-8")
    return root, rules


@pytest.mark.usefixtures("failing_condition")
def test_check_diagnoses_the_failing_condition_and_reports_the_rest(make_tree: MakeTree) -> None:
    root, rules = tree_with_rules(make_tree)
    args = ["check", str(root), "--rules", str(rules), "--format", "json", "--no-cache"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert [Path(f["path"]).name for f in report["findings"]] == ["good.py"]
    [diagnostic] = report["diagnostics"]
    assert Path(diagnostic["path"]).name == "boom.py"
    assert diagnostic["line"] == 9
    assert "InjectedFailure" in diagnostic["message"]
    assert "please report" in diagnostic["message"].lower()


@pytest.mark.usefixtures("failing_condition")
def test_check_exit_zero_still_wins(make_tree: MakeTree) -> None:
    root, rules = tree_with_rules(make_tree)
    (root / "good.py").unlink()  # only the failing condition is left: no finding
    args = ["check", str(root), "--rules", str(rules), "--no-cache"]
    assert CliRunner().invoke(cli, args).exit_code == 1
    assert CliRunner().invoke(cli, [*args, "--exit-zero"]).exit_code == 0


@pytest.mark.usefixtures("failing_condition")
def test_check_debug_reraises(make_tree: MakeTree) -> None:
    root, rules = tree_with_rules(make_tree)
    args = ["--debug", "check", str(root), "--rules", str(rules), "--no-cache"]
    result = CliRunner().invoke(cli, args)
    assert isinstance(result.exception, InjectedFailure)


@pytest.mark.usefixtures("failing_condition")
def test_audit_diagnoses_the_failing_condition_and_reports_the_rest(make_tree: MakeTree) -> None:
    root, _ = tree_with_rules(make_tree)
    args = ["audit", str(root), "--generation", "sm120", "--format", "json", "--no-cache"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert [Path(g["path"]).name for g in report["gates"]] == ["good.py"]
    [diagnostic] = report["diagnostics"]
    assert Path(diagnostic["path"]).name == "boom.py"
    assert "InjectedFailure" in diagnostic["message"]


@pytest.mark.usefixtures("failing_condition")
def test_audit_debug_reraises(make_tree: MakeTree) -> None:
    root, _ = tree_with_rules(make_tree)
    args = ["--debug", "audit", str(root), "--generation", "sm120", "--no-cache"]
    assert isinstance(CliRunner().invoke(cli, args).exception, InjectedFailure)


def test_without_a_failure_nothing_is_diagnosed(make_tree: MakeTree) -> None:
    root, rules = tree_with_rules(make_tree)
    args = ["check", str(root), "--rules", str(rules), "--format", "json", "--no-cache"]
    report = json.loads(CliRunner().invoke(cli, args).stdout)
    assert sorted(Path(f["path"]).name for f in report["findings"]) == ["boom.py", "good.py"]
    assert report["diagnostics"] == []


def _raise(err: BaseException) -> Callable[[], int]:
    def step() -> int:
        raise err

    return step


@pytest.mark.parametrize(
    ("step", "value", "internal", "message"),
    [
        pytest.param(lambda: 3, 3, None, None, id="passes-the-value-through"),
        pytest.param(_raise(ValueError("bad")), None, True, "ValueError: bad", id="exception"),
        pytest.param(_raise(KeyError()), None, True, "KeyError", id="exception-without-text"),
        pytest.param(_raise(RecursionError()), None, False, TOO_DEEP, id="too-deep-is-a-limit"),
    ],
)
def test_containment_run(
    step: Callable[[], int], value: int | None, internal: bool | None, message: str | None
) -> None:
    diagnostics: list = []
    assert Containment(diagnostics).run(Path("m.py"), 4, 2, step) == value
    if message is None:
        assert diagnostics == []
        return
    [diagnostic] = diagnostics
    assert (diagnostic.line, is_internal_error(diagnostic)) == (4, internal)
    assert message in diagnostic.message


def test_containment_debug_reraises() -> None:
    with pytest.raises(ValueError, match="bad"):
        Containment([], debug=True).run(Path("m.py"), 1, 0, _raise(ValueError("bad")))
