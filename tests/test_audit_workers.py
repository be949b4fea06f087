"""Worker processes for the audit (gatecheck/audit/workers.py): the shares, the forked
task, and the one property that matters -- the report is the single-process one."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gatecheck import forking
from gatecheck.audit import run_audit, workers
from gatecheck.cli import cli
from gatecheck.config.model import RuleSet
from gatecheck.loading.project import Project
from gatecheck.reporting.audit_json import render_audit_json
from tests.conftest import write_tree

pytestmark = pytest.mark.skipif(not forking.can_fork(), reason="no os.fork on this system")


@pytest.mark.parametrize(
    ("weights", "jobs", "min_share", "expected"),
    [
        # As many processes as jobs, each with min_share of the weight.
        ([1] * 10, 2, 1, 2),
        ([1] * 10, 3, 1, 3),
        ([1] * 10, 4, 3, 3),
        ([1] * 10, 2, 6, 1),
        ([1] * 10, 1, 1, 1),
        # No more processes than items; none, or too little: one.
        ([5, 5], 4, 1, 2),
        ([1] * 3, 2, 2, 1),
        ([], 2, 1, 1),
    ],
)
def test_plan(weights: list[int], jobs: int, min_share: int, expected: int) -> None:
    assert workers.plan(weights, jobs, min_share) == expected


@pytest.mark.parametrize("count", [0, 1, 2, 7, 200])
def test_claims_from_both_ends_take_each_item_once(count: int) -> None:
    """The main process from the front, a forked worker from the back: every item taken
    once, the front's a prefix, the back's the rest, however the two interleave."""
    claims = workers.Claims(count)
    worker = forking.start(lambda: list(iter(claims.back, None)))
    front = list(iter(claims.front, None))
    assert worker is not None
    back = worker.result()
    assert back is not None
    assert front == list(range(len(front)))
    assert claims.taken_from_front() == len(front)
    assert sorted(back, reverse=True) == back
    assert sorted(front + back) == list(range(count))


def test_forked_task_value() -> None:
    worker = forking.start(lambda: {"answer": [1, 2, 3]})
    assert worker is not None
    assert worker.result() == {"answer": [1, 2, 3]}


def _speaks() -> str:
    import warnings

    print("to stdout")
    print("to stderr", file=sys.stderr)
    warnings.warn("a warning", SyntaxWarning, stacklevel=1)
    return "done"


def test_worker_writes_nothing(capfd: pytest.CaptureFixture[str]) -> None:
    """A forked child never writes to the terminal (a parent's thread may hold its lock)."""
    worker = forking.start(_speaks)
    assert worker is not None
    assert worker.result() == "done"
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")


def _raises() -> int:
    raise RuntimeError("a bug in the worker")


def _dies() -> int:
    os._exit(3)


@pytest.mark.parametrize("task", [_raises, _dies], ids=["exception", "exit"])
def test_failed_worker_gives_no_answer(task: object) -> None:
    """A worker that fails sends nothing: the main process then evaluates its share."""
    worker = forking.start(task)  # type: ignore[arg-type]
    assert worker is not None
    assert worker.result() is None


def test_default_jobs_within_bounds() -> None:
    assert 1 <= workers.default_jobs() <= workers.MAX_JOBS


def test_built_elsewhere_is_parsed_and_unbuildable_once(tmp_path: Path) -> None:
    good = tmp_path / "good.py"
    bad = tmp_path / "bad.py"
    good.write_text("x = 1\n")
    bad.write_text("def (:\n")
    project = Project([good, bad], [tmp_path])
    project.built_elsewhere([good])
    assert project.parsed_paths() == {good}
    # The worker said why bad.py does not build: this process had not tried it, and
    # now does not (it would say it again).
    assert project.unbuildable_elsewhere(bad) is False
    assert project.module_at(bad) is None
    assert project.diagnostics == []
    assert project.unbuildable_elsewhere(bad) is True


_PREDICATES = """\
import torch

def is_sm90_supported():
    major, minor = torch.cuda.get_device_capability()
    return major == 9

def is_sm100_supported():
    return torch.cuda.get_device_capability()[0] == 10

def is_sm120_supported():
    return torch.cuda.get_device_capability() == (12, 0)
"""

# Each feature module: padding (weight), a gate on predicates of another module, a
# parameter read through its callers, conditions that read no arch term, and a module
# that cannot be built, read for a name.
_FEATURE = '''\
"""{padding}"""
from pkg.predicates import is_sm90_supported, is_sm100_supported
from pkg import broken_{index}

_is_hopper_or_blackwell = is_sm90_supported() or is_sm100_supported()


def _pick(major):
    if major in (9, 10):
        return "fast"
    return "slow"


def feature_{index}(x, flag=None):
    if flag is None:
        flag = broken_{index}.DEFAULT
    if x > {index}:
        x = x - 1
    if _is_hopper_or_blackwell and flag:
        return _pick(9 if is_sm90_supported() else 12)
    return x
'''


def _workers_project(root: Path, modules: int) -> Path:
    files = {"pkg/__init__.py": "", "pkg/predicates.py": _PREDICATES}
    padding = "capability notes. " * 2_000  # mentions an arch idiom: every file a candidate
    for index in range(modules):
        files[f"pkg/feature_{index}.py"] = _FEATURE.format(index=index, padding=padding)
        files[f"pkg/broken_{index}.py"] = "DEFAULT = (\n"
    return write_tree(root, files)


def test_same_report_with_workers(tmp_path: Path, ruleset: RuleSet) -> None:
    root = _workers_project(tmp_path / "tree", 32)
    texts = [p.stat().st_size for p in sorted(root.rglob("feature_*.py"))]
    processes = workers.plan(texts, 2)
    assert processes == 2, "the project must be large enough for a worker"
    reports = {jobs: run_audit([root], ruleset, "sm120", jobs=jobs) for jobs in (1, 2, 3)}
    one = render_audit_json(reports[1], root)
    # Gates, and the modules that cannot be built (read by conditions of every share).
    assert one.count('"condition": "_is_hopper_or_blackwell and flag"') == 32
    assert one.count("was never closed") == 32
    for jobs in (2, 3):
        assert render_audit_json(reports[jobs], root) == one
        # What the cache keeps the report by, too.
        assert reports[jobs].parsed == reports[1].parsed
        assert reports[jobs].searched_calls == reports[1].searched_calls
        assert reports[jobs].diagnostics == reports[1].diagnostics


def evaluated_in_this_process(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """The names of the files whose conditions this process evaluates from now on (not a
    forked worker's): audit.run.classify_condition wrapped to note them."""
    import gatecheck.audit.run as audit_run

    parent = os.getpid()
    noted: set[str] = set()
    classify = audit_run.classify_condition

    def noting(semantics, module, *args):  # type: ignore[no-untyped-def]
        if os.getpid() == parent:
            noted.add(Path(module.file).name)
        return classify(semantics, module, *args)

    monkeypatch.setattr(audit_run, "classify_condition", noting)
    return noted


def test_conditions_a_worker_found_are_not_evaluated_again(
    tmp_path: Path, ruleset: RuleSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker sends back what it found for each arch condition (FoundCondition): the
    main process puts it on its own nodes instead of evaluating the condition again (a
    third of the time after the workers on sglang 0.5.23), and the report is the same."""
    root = _workers_project(tmp_path / "tree", 32)
    evaluated_here = evaluated_in_this_process(monkeypatch)
    one = render_audit_json(run_audit([root], ruleset, "sm120", jobs=1), root)
    assert len({n for n in evaluated_here if n.startswith("feature_")}) == 32
    evaluated_here.clear()
    two = render_audit_json(run_audit([root], ruleset, "sm120", jobs=2), root)
    assert two == one
    left = {f"feature_{i}.py" for i in range(32)} - evaluated_here
    assert left, "every module's conditions were evaluated in the main process"


def test_cli_jobs_option(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _workers_project(tmp_path / "tree", 32)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    outputs = []
    for jobs in ("1", "2"):
        command = ["audit", str(root), "--generation", "sm120", "--format", "json"]
        result = runner.invoke(cli, [*command, "--no-cache", "--jobs", jobs])
        assert result.exit_code in (0, 1), result.output
        outputs.append(result.stdout)
    assert outputs[0] == outputs[1]


def test_cli_jobs_must_be_a_count(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["audit", str(tmp_path), "--generation", "sm120", "--jobs", "-1"]
    )
    assert result.exit_code == 2
    assert "--jobs" in result.output


def test_gates_are_classified_by_workers_too(
    tmp_path: Path, ruleset: RuleSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With enough gates a process (workers.MIN_SHARE_GATES, lowered here for a small
    project), a worker forked after discovery classifies the gates from the back: a row
    is plain data, sent back; the report is the single-process one."""
    from gatecheck.audit.classify import Classifier

    root = _workers_project(tmp_path / "tree", 32)
    parent = os.getpid()
    classified_here: list[str] = []
    classify = Classifier.classify

    def counting(self, found, call_sites):  # type: ignore[no-untyped-def]
        if os.getpid() == parent:
            classified_here.append(found.path.name)
        return classify(self, found, call_sites)

    monkeypatch.setattr(Classifier, "classify", counting)
    report = run_audit([root], ruleset, "sm120", jobs=1)
    one, every = render_audit_json(report, root), len(classified_here)
    assert one.count('"condition": "_is_hopper_or_blackwell and flag"') == 32
    monkeypatch.setattr(workers, "MIN_SHARE_GATES", 4)
    classified_here.clear()
    two = run_audit([root], ruleset, "sm120", jobs=2)
    assert render_audit_json(two, root) == one
    assert two.diagnostics == report.diagnostics
    assert 0 < len(classified_here) < every, "every gate was classified in the main process"


def _declaring_project(root: Path, modules: int) -> Path:
    """The workers' project, each feature module also declaring a kernel's capabilities
    (a declaration row: evaluated again in the main process)."""
    root = _workers_project(root, modules)
    for index in range(modules):
        path = root / "pkg" / f"feature_{index}.py"
        path.write_text(
            path.read_text()
            + "\n\n@supported_compute_capability([90, 100])\n"
            + f"def kernel_{index}(x):\n    return x\n"
        )
    return root


def test_declarations_and_conditions_a_worker_found_are_the_same_report(
    tmp_path: Path, ruleset: RuleSet
) -> None:
    root = _declaring_project(tmp_path / "tree", 32)
    one = render_audit_json(run_audit([root], ruleset, "sm120", jobs=1), root)
    assert one.count('"condition": "supported_compute_capability([90, 100])"') == 32
    assert render_audit_json(run_audit([root], ruleset, "sm120", jobs=2), root) == one


def test_a_found_condition_whose_path_leads_nowhere_is_evaluated_again(
    tmp_path: Path, ruleset: RuleSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Noop: where a condition a worker found cannot be put on this process's tree by its
    path (FoundCondition.placed gives None), the module is walked and its conditions
    evaluated here, as for a worker that failed: the same report."""
    from gatecheck.audit.conditions import FoundCondition

    root = _workers_project(tmp_path / "tree", 32)
    one = render_audit_json(run_audit([root], ruleset, "sm120", jobs=1), root)
    monkeypatch.setattr(FoundCondition, "placed", lambda self, module: None)
    assert render_audit_json(run_audit([root], ruleset, "sm120", jobs=2), root) == one


def test_candidates_that_cannot_be_built_are_said_in_order_with_workers(
    tmp_path: Path, ruleset: RuleSet
) -> None:
    """Files that spell an arch idiom and cannot be built, among the modules of both
    processes, are said once each in the files' order, as one process says them, and
    the report is the one-process report."""
    root = _workers_project(tmp_path / "tree", 32)
    for name in ("a_capability", "m_capability", "z_capability"):
        (root / "pkg" / f"{name}.py").write_text("capability = (\n", encoding="utf-8")
    weights = [p.stat().st_size for p in sorted(root.rglob("*.py"))]
    assert workers.plan(weights, 2) == 2, "the project must be large enough for a worker"
    reports = {jobs: run_audit([root], ruleset, "sm120", jobs=jobs) for jobs in (1, 2)}
    said = [d.path.name for d in reports[1].diagnostics if d.path.name.endswith("ty.py")]
    assert said == ["a_capability.py", "m_capability.py", "z_capability.py"]
    assert reports[2].diagnostics == reports[1].diagnostics
    assert render_audit_json(reports[2], root) == render_audit_json(reports[1], root)
    assert reports[2].parsed == reports[1].parsed
