"""`gatecheck impact`: mini git repositories built here (git init, commit, change, commit),
each change reported once, moves and reformatting reporting nothing; the identity
normaliser as a table; every refusal with its reason."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from gatecheck.audit.report import AuditReport
from gatecheck.cli import cli
from gatecheck.config.model import RuleSet
from gatecheck.impact import normalise_condition
from gatecheck.impact.parallel import can_fork
from gatecheck.impact.run import Audit
from gatecheck.impact.scope import imported_names, reaches
from tests.conftest import FIXTURES, write_tree
from tests.test_sarif import assert_valid, load_validator

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

UTILS = """\
import torch


def is_blackwell():
    major, _ = torch.cuda.get_device_capability()
    return major in (10, 11, 12)


def is_sm90():
    return torch.cuda.get_device_capability() == (9, 0)


def is_sm100():
    return torch.cuda.get_device_capability() == (10, 0)
"""

MODEL = """\
from pkg.utils import is_blackwell, is_sm90, is_sm100


def use_fast_path():
    if is_blackwell():
        return True
    return False


def pick_backend():
    if is_sm90():
        return "hopper"
    return "other"


class Layer:
    def forward(self):
        if is_sm100():
            return "fused"
        if is_sm90():
            return "wgmma"
        return "plain"
"""

BASE_FILES = {"pkg/__init__.py": "", "pkg/utils.py": UTILS, "pkg/model.py": MODEL}


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return done.stdout


def commit_all(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write_tree(root, BASE_FILES)
    commit_all(root, "base")
    return root


def impact(repo: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> Result:
    monkeypatch.chdir(repo)
    return CliRunner().invoke(cli, ["impact", *args])


def impact_json(repo: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> dict[str, Any]:
    result = impact(repo, monkeypatch, *args, "--format", "json", "--no-cache")
    assert result.exit_code in (0, 1), result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def reported(data: dict[str, Any]) -> list[tuple[str, str, tuple[str, ...]]]:
    """(rule, qualname, generations) per issue."""
    rows = []
    for issue in data["issues"]:
        side = issue["after"] or issue["before"]
        qualname = side["qualname"].removeprefix(side["module"]).lstrip(".")
        rows.append((issue["rule"], qualname, tuple(issue["generations"])))
    return sorted(rows)


def edit(repo: Path, rel: str, old: str, new: str) -> None:
    path = repo / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


FAST_PATH = (
    "def use_fast_path():\n    if is_blackwell():\n        return True\n    return False\n\n\n"
)
BLACKWELL_OUT = ("sm110", "sm120", "sm121")

SCENARIOS = [
    pytest.param(
        [("pkg/utils.py", "major in (10, 11, 12)", "major == 10")],
        [("impact-narrowed", "use_fast_path", BLACKWELL_OUT)],
        id="narrow-predicate-body",
    ),
    pytest.param(
        [("pkg/model.py", "    if is_blackwell():", "    if is_sm100():")],
        [("impact-narrowed", "use_fast_path", ("sm103", *BLACKWELL_OUT))],
        id="narrow-rewritten-condition",
    ),
    pytest.param(
        [
            (
                "pkg/model.py",
                '    if is_sm90():\n        return "hopper"',
                '    if is_sm90() or is_blackwell():\n        return "hopper"',
            )
        ],
        [("impact-widened", "pick_backend", ("sm100", "sm103", "sm110", "sm120", "sm121"))],
        id="widen-condition",
    ),
    pytest.param(
        [("pkg/model.py", "from pkg.utils", "# a comment\n\n\nfrom pkg.utils")],
        [],
        id="line-move",
    ),
    pytest.param(
        [
            ("pkg/model.py", FAST_PATH, ""),
            (
                "pkg/model.py",
                '        return "plain"\n',
                '        return "plain"\n\n\n' + FAST_PATH,
            ),
        ],
        [],
        id="function-moved-down",
    ),
    pytest.param(
        [
            (
                "pkg/model.py",
                '    if is_sm90():\n        return "hopper"',
                '    if (\n        is_sm90()\n    ):\n        return "hopper"',
            ),
            ("pkg/model.py", "        if is_sm100():", "        if (is_sm100()):  # reformatted"),
        ],
        [],
        id="reformat",
    ),
    pytest.param(
        [
            (
                "pkg/model.py",
                "    def forward(self):\n",
                '    def forward(self):\n        if is_blackwell():\n            return "tcgen05"\n',
            )
        ],
        [
            (
                "impact-new-gate",
                "Layer.forward",
                ("sm70", "sm75", "sm80", "sm86", "sm87", "sm89", "sm90"),
            )
        ],
        id="add-gate",
    ),
    pytest.param(
        [("pkg/model.py", '        if is_sm90():\n            return "wgmma"\n', "")],
        [
            (
                "impact-removed-gate",
                "Layer.forward",
                (
                    "sm70",
                    "sm75",
                    "sm80",
                    "sm86",
                    "sm87",
                    "sm89",
                    "sm100",
                    "sm103",
                    "sm110",
                    "sm120",
                    "sm121",
                ),
            )
        ],
        id="remove-gate",
    ),
]


@pytest.mark.parametrize(("edits", "expected"), SCENARIOS)
def test_each_change_reported_once(
    repo: Path,
    monkeypatch: pytest.MonkeyPatch,
    edits: list[tuple[str, str, str]],
    expected: list[tuple[str, str, tuple[str, ...]]],
) -> None:
    for rel, old, new in edits:
        edit(repo, rel, old, new)
    commit_all(repo, "change")
    data = impact_json(repo, monkeypatch, "HEAD~1")
    assert reported(data) == sorted(expected)


def test_function_moved_inside_its_module_reports_nothing(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two functions swapped and the class moved to the top: every gate keeps its qualname.
    moved = MODEL.replace("from pkg.utils import is_blackwell, is_sm90, is_sm100\n", "")
    head, _, layer = moved.partition("class Layer:")
    text = (
        "from pkg.utils import is_blackwell, is_sm90, is_sm100\n\n\nclass Layer:"
        + layer
        + "\n\n"
        + head.strip()
        + "\n"
    )
    (repo / "pkg/model.py").write_text(text, encoding="utf-8")
    commit_all(repo, "move")
    data = impact_json(repo, monkeypatch, "HEAD~1")
    assert data["issues"] == [] and data["unchanged"] == 4


def test_exit_codes_narrowing_and_allow(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    edit(repo, "pkg/utils.py", "major in (10, 11, 12)", "major == 10")
    assert impact(repo, monkeypatch, "main", "--no-cache").exit_code == 1
    assert impact(repo, monkeypatch, "main", "--no-cache", "--allow-narrowing").exit_code == 0


def test_widening_exits_zero(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    edit(repo, "pkg/utils.py", "major in (10, 11, 12)", "major in (9, 10, 11, 12)")
    result = impact(repo, monkeypatch, "main", "--no-cache")
    assert result.exit_code == 0, result.output
    assert "impact-widened" in result.output and "now admits sm90" in result.output


def test_uncommitted_and_untracked_changes_count(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree(
        repo, {"pkg/extra.py": "from pkg.utils import is_sm90\n\nif is_sm90():\n    X = 1\n"}
    )
    data = impact_json(repo, monkeypatch)  # default BASE: the merge-base with main
    assert reported(data) == [
        (
            "impact-new-gate",
            "",
            (
                "sm70",
                "sm75",
                "sm80",
                "sm86",
                "sm87",
                "sm89",
                "sm100",
                "sm103",
                "sm110",
                "sm120",
                "sm121",
            ),
        )
    ]
    assert data["base"] == "merge-base with main"


def test_deleted_file_reports_its_gates_removed(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (repo / "pkg/model.py").unlink()
    data = impact_json(repo, monkeypatch, "main")
    assert [i["rule"] for i in data["issues"]] == ["impact-removed-gate"] * 4


def test_unrelated_files_are_not_audited(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_tree(
        repo,
        {
            "pkg/other.py": "import torch\n\nif torch.cuda.get_device_capability() >= (9, 0):\n    Y = 2\n"
        },
    )
    commit_all(repo, "other")
    edit(repo, "pkg/other.py", ">= (9, 0)", ">= (8, 0)")
    data = impact_json(repo, monkeypatch, "HEAD")
    # Only other.py is reached: nothing imports it.
    assert data["compared_files"] == 1
    assert reported(data) == [("impact-widened", "", ("sm80", "sm86", "sm87", "sm89"))]


def test_cached_runs_answer_the_same(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    edit(repo, "pkg/utils.py", "major in (10, 11, 12)", "major == 10")
    first = impact(repo, monkeypatch, "main", "--format", "json")
    second = impact(repo, monkeypatch, "main", "--format", "json")
    assert first.exit_code == second.exit_code == 1
    assert json.loads(first.stdout)["issues"] == json.loads(second.stdout)["issues"]
    assert list((repo / ".gatecheck_cache").glob("impact-*"))  # BASE kept for the next run
    assert git(repo, "status", "--porcelain") == " M pkg/utils.py\n"  # nothing checked out


# -- output formats ---------------------------------------------------------------------------


@pytest.fixture
def narrowed(repo: Path) -> Path:
    edit(repo, "pkg/utils.py", "major in (10, 11, 12)", "major == 10")
    edit(
        repo,
        "pkg/model.py",
        '    if is_sm90():\n        return "hopper"',
        '    if is_sm90() or is_sm100():\n        return "hopper"',
    )
    return repo


def test_sarif_is_schema_valid(narrowed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    validator = load_validator()
    result = impact(narrowed, monkeypatch, "main", "--format", "sarif", "--no-cache")
    log = json.loads(result.stdout)
    assert_valid(validator, log)
    rules = [r["ruleId"] for r in log["runs"][0]["results"]]
    assert rules == ["impact-narrowed", "impact-widened"]
    location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "pkg/model.py"
    assert location["region"]["startLine"] == 5


def test_github_annotations_and_summary(
    narrowed: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = impact(narrowed, monkeypatch, "main", "--format", "github", "--no-cache")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("::error file=pkg/model.py,line=5,endLine=5,col=8,")
    assert lines[1].startswith("::notice file=pkg/model.py,line=11,")
    text = summary.read_text(encoding="utf-8")
    assert "| narrowed |" in text and "**yes → no**" in text and "**no → yes**" in text


def test_markdown_when_nothing_changed(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = impact(repo, monkeypatch, "main", "--format", "markdown")
    assert result.exit_code == 0
    assert "no Python file changed" in result.stdout


# -- refusals: one line, exit 2 ---------------------------------------------------------------


def test_noop_not_a_git_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_tree(tmp_path / "plain", {"a.py": "X = 1\n"})
    result = impact(tmp_path / "plain", monkeypatch, "main")
    assert result.exit_code == 2
    assert "is not in a git repository" in result.output
    assert len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("base", "reason"),
    [
        pytest.param("no-such-branch", "unknown git revision 'no-such-branch'", id="unknown"),
        pytest.param("--all", "is not a git revision", id="option-like"),
    ],
)
def test_noop_bad_base(repo: Path, monkeypatch: pytest.MonkeyPatch, base: str, reason: str) -> None:
    result = impact(repo, monkeypatch, "--", base)
    assert result.exit_code == 2 and reason in result.output


def test_noop_no_default_branch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q", "-b", "trunk")
    write_tree(root, BASE_FILES)
    commit_all(root, "base")
    result = impact(root, monkeypatch)
    assert result.exit_code == 2 and "no default branch" in result.output


def test_noop_unrelated_history(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    git(repo, "checkout", "-q", "--orphan", "other")
    commit_all(repo, "unrelated")
    result = impact(repo, monkeypatch, "main")
    assert result.exit_code == 2 and "no common history" in result.output


def test_noop_unknown_generation(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = impact(repo, monkeypatch, "main", "--generation", "sm999")
    assert result.exit_code == 2 and "unknown generation 'sm999'" in result.output


# -- pure functions ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param("is_sm90()", "is_sm90()", id="call"),
        pytest.param("(is_sm90())", "is_sm90()", id="redundant-parens"),
        pytest.param("is_sm90()  or\n  is_sm100()", "is_sm90() or is_sm100()", id="reflowed"),
        pytest.param("(a and b) or c", "a and b or c", id="parens-by-precedence"),
        pytest.param("a and (b or c)", "a and (b or c)", id="parens-that-matter"),
        pytest.param("cap == (9,0)", "cap == (9, 0)", id="tuple-spacing"),
        pytest.param("name in ['a',\n 'b',]", "name in ['a', 'b']", id="trailing-comma"),
        pytest.param('x == "sm90"', "x == 'sm90'", id="quote-style"),
        pytest.param("not(is_sm90())", "not is_sm90()", id="not-call"),
        pytest.param("90 <= sm  < 120", "90 <= sm < 120", id="chained"),
        pytest.param("is_sm90(", "is_sm90(", id="unparsable-kept"),
        pytest.param("  a\n  b", "a b", id="unparsable-words"),
    ],
)
def test_normalise_condition(source: str, expected: str) -> None:
    assert normalise_condition(source) == expected


@pytest.mark.parametrize(
    ("source", "module", "is_package", "expected"),
    [
        pytest.param("import a.b", "m", False, {"a", "a.b"}, id="import"),
        pytest.param("from a.b import c", "m", False, {"a.b", "a.b.c"}, id="from"),
        pytest.param("from . import c", "p.m", False, {"p", "p.c"}, id="relative"),
        pytest.param("from .. import c", "p.q.m", False, {"p", "p.c"}, id="relative-2"),
        pytest.param("from .x import y", "p", True, {"p.x", "p.x.y"}, id="package-relative"),
        pytest.param(
            "X = 'pkg.platforms.cuda'",
            "m",
            False,
            {"pkg", "pkg.platforms", "pkg.platforms.cuda"},
            id="string",
        ),
        pytest.param("X = 'not a name'", "m", False, set(), id="prose-string"),
    ],
)
def test_imported_names(source: str, module: str, is_package: bool, expected: set[str]) -> None:
    assert imported_names(source, module, is_package) == expected


def test_imported_names_unparsable_is_none() -> None:
    assert imported_names("def (", "m", False) is None


@pytest.mark.parametrize(
    ("imported", "module", "expected"),
    [
        pytest.param({"a.b"}, "a.b", True, id="itself"),
        pytest.param({"a.b.c"}, "a.b", False, id="submodule-alone"),
        pytest.param({"a.bc"}, "a.b", False, id="prefix-not-dotted"),
        pytest.param({"a"}, "a.b", False, id="parent"),
    ],
)
def test_reaches(imported: set[str], module: str, expected: bool) -> None:
    assert reaches(imported, module) is expected


# -- kernel support: widening past what the kernels are built for ---------------------------

KERNEL_RULE = """\
features:
  - id: flashinfer-allreduce-fusion
    description: fused allreduce + RMSNorm
    flags: [enable_flashinfer_allreduce_fusion]
    gate_functions: [sglang.srt.layers.communicator.apply_flashinfer_allreduce_fusion]
    require: [sm90, sm100, sm120]
    kernels: [flashinfer.comm.allreduce_fusion]
"""


@pytest.mark.parametrize(
    ("library", "rules", "code"),
    [
        pytest.param("flashinfer-0.1", ["impact-widened-past-kernels"], 1, id="built-for-9-10"),
        pytest.param("flashinfer-0.2", ["impact-widened"], 0, id="built-for-9-10-12"),
    ],
)
def test_widening_checked_against_kernel_support(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, library: str, rules: list[str], code: int
) -> None:
    root = tmp_path / "app"
    shutil.copytree(FIXTURES / "seed_alias", root)
    (tmp_path / "rules.yaml").write_text(KERNEL_RULE, encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    commit_all(root, "base")
    edit(
        root,
        "sglang/srt/layers/communicator.py",
        "(_is_sm90_supported or _is_sm100_supported)\n",
        "(_is_sm90_supported or _is_sm100_supported or _is_sm120_supported)\n",
    )
    kernels = str(FIXTURES / "kernels" / library)
    args = ["main", "--rules", str(tmp_path / "rules.yaml"), "--kernel-source", kernels]
    result = impact(root, monkeypatch, *args, "--format", "json", "--no-cache")
    assert result.exit_code == code, result.output
    issues = json.loads(result.stdout)["issues"]
    assert [i["rule"] for i in issues] == rules
    assert issues[0]["generations"] == ["sm120", "sm121"]
    assert issues[0]["feature"] == "flashinfer-allreduce-fusion"


# -- auditing only what the change reaches answers as auditing everything -------------------


def _sm120_audit(ruleset: RuleSet, restricted: bool) -> Audit:
    """impact's audit callback: an sm120 audit of the targets (of `only` when restricted
    or laid over)."""
    from gatecheck.audit import run_audit
    from gatecheck.impact.run import OnOpen

    def audit(
        targets: Sequence[Path],
        only: Sequence[Path] | None,
        *,
        record_reads: bool = False,
        on_open: OnOpen | None = None,
        laid_over: bool = False,
    ) -> AuditReport:
        return run_audit(
            list(targets),
            ruleset,
            "sm120",
            only=only if restricted or laid_over else None,
            record_reads=record_reads,
            on_open=on_open,
        )

    return audit


def _issues_with(repo: Path, restricted: bool, parallel: bool) -> list[tuple[str, str, int]]:
    from gatecheck.config.loader import load_ruleset
    from gatecheck.impact.run import run_impact

    ruleset = load_ruleset(None)
    audit = _sm120_audit(ruleset, restricted)
    report = run_impact([repo], "HEAD~1", audit, ruleset.registry, "sm120", parallel=parallel)
    return [(i.kind.value, i.message, i.change.gate.found.line) for i in report.issues]


@pytest.mark.parametrize(("edits", "expected"), SCENARIOS)
def test_reached_files_answer_as_the_whole_tree(
    repo: Path, edits: list[tuple[str, str, str]], expected: object
) -> None:
    write_tree(
        repo,
        {
            "pkg/unrelated.py": "import torch\n\nOLD = torch.cuda.get_device_capability() >= (8, 0)\n"
        },
    )
    commit_all(repo, "unrelated")
    for rel, old, new in edits:
        edit(repo, rel, old, new)
    commit_all(repo, "change")
    whole = _issues_with(repo, restricted=False, parallel=False)
    assert _issues_with(repo, restricted=True, parallel=True) == whole


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        pytest.param(
            "def f():\n    return 1\n", "def f():\n    return (1)  # same\n", set(), id="layout"
        ),
        pytest.param('"""Doc."""\nX = 1\n', '"""Other doc."""\nX = 1\n', set(), id="docstring"),
        pytest.param("def f():\n    return 1\n", "def f():\n    return 2\n", {"f"}, id="body"),
        pytest.param("X = 1\nY = 2\n", "X = 1\n", {"Y"}, id="removed"),
        pytest.param("from a import b\n", "from c import b\n", {"b"}, id="import-source"),
        pytest.param("X = 1\nregister(X)\n", "X = 1\nregister(X, 2)\n", {"*"}, id="loose-call"),
        pytest.param("X = 1\n", "X = (\n", {"*"}, id="unparsable"),
    ],
)
def test_changed_names(old: str, new: str, expected: set[str]) -> None:
    from gatecheck.impact.scope import changed_names

    assert changed_names(old, new) == expected


def test_paths_limit_what_is_compared(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_tree(
        repo,
        {"tools/probe.py": "import torch\n\nOK = torch.cuda.get_device_capability() >= (9, 0)\n"},
    )
    commit_all(repo, "tools")
    edit(repo, "tools/probe.py", ">= (9, 0)", ">= (10, 0)")
    assert impact_json(repo, monkeypatch, "HEAD", "pkg")["issues"] == []
    assert [i["rule"] for i in impact_json(repo, monkeypatch, "HEAD", "tools")["issues"]] == [
        "impact-narrowed"
    ]


def test_markdown_escapes_the_analysed_code(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A condition's text goes into the job summary as a code span and a table cell: a
    pipe, a backtick or a tag from the analysed code must not break the table or render."""
    edit(
        repo,
        "pkg/model.py",
        '    if is_sm90():\n        return "hopper"',
        '    if is_sm90() or (is_sm100() and "|`<b>" != "x"):\n        return "hopper"',
    )
    result = impact(repo, monkeypatch, "main", "--no-cache", "--format", "markdown")
    assert result.exit_code == 0, result.output
    row = next(line for line in result.stdout.splitlines() if "<b>" in line)
    assert "``" in row  # a fence longer than the backtick inside
    assert "\\|`<b>" in row  # the pipe escaped inside the cell
    assert row.count(" | ") == row.replace("\\|", "").count(" | ")


def test_stale_exports_of_killed_runs_are_removed(repo: Path, tmp_path: Path) -> None:
    """A run killed mid-export leaves its `.impact-XXXXXXXX` folder in the cache: the next
    export removes such folders once stale; never a fresh one (a run exporting now), a
    link so named (nor what it points to), or anything else."""
    from gatecheck.impact.snapshot import STALE_SECONDS, resolve_base, snapshot

    cache = repo / ".gatecheck_cache"
    cache.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.py").write_text("x = 1\n", encoding="utf-8")
    stale, fresh, other = cache / ".impact-abcd1234", cache / ".impact-efgh5678", cache / "mine"
    for folder in (stale, fresh, other):
        folder.mkdir()
        (folder / "a.py").write_text("", encoding="utf-8")
    link = cache / ".impact-ijkl9012"
    link.symlink_to(outside, target_is_directory=True)
    old = time.time() - STALE_SECONDS - 60
    for path in (stale, other, outside):
        os.utime(path, (old, old))
    os.utime(link, (old, old), follow_symlinks=False)

    base = resolve_base(repo, "main")
    folder = snapshot(repo, base.commit, [], cache)

    assert (folder / "pkg/utils.py").is_file()
    assert not stale.exists()
    assert fresh.is_dir() and other.is_dir() and link.is_symlink()
    assert (outside / "keep.py").is_file()


def test_paths_without_base_take_the_default_base(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    edit(repo, "pkg/utils.py", "major in (10, 11, 12)", "major == 10")
    write_tree(
        repo,
        {"tools/probe.py": "import torch\n\nOK = torch.cuda.get_device_capability() >= (9, 0)\n"},
    )
    data = impact_json(repo, monkeypatch, "pkg")
    assert data["base"] == "merge-base with main"
    assert reported(data) == reported(impact_json(repo, monkeypatch, "main", "pkg"))
    assert reported(data) == [("impact-narrowed", "use_fast_path", BLACKWELL_OUT)]
    assert all(not p.startswith("tools") for p in data["changed_files"])


def test_noop_base_that_is_also_a_path(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    git(repo, "branch", "pkg")
    result = impact(repo, monkeypatch, "pkg", "--no-cache")
    assert result.exit_code == 2
    assert "'pkg' is both a git revision and a path: write ./pkg for the path" in result.output
    # With PATHS after it, the first argument is BASE.
    assert impact(repo, monkeypatch, "pkg", "pkg", "--no-cache").exit_code == 0
    assert impact(repo, monkeypatch, "./pkg", "--no-cache").exit_code == 0


def test_base_files_export_the_changed_files_alone(tmp_path: Path) -> None:
    """BASE's changed files are read without exporting all of BASE (a reused audit needs
    no more); names spelling a glob are files, not patterns; a link or a file added since
    is no file of BASE; the whole export comes when asked, and both go on close()."""
    from gatecheck.impact.snapshot import BaseFiles, resolve_base

    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write_tree(repo, {"pkg/a.py": "A = 1\n", "pkg/b.py": "B = 1\n", "pkg/x[1].py": "X = 1\n"})
    (repo / "pkg/link.py").symlink_to("a.py")
    commit_all(repo, "base")
    commit = resolve_base(repo, "main").commit
    changed = ["pkg/a.py", "pkg/x[1].py", "pkg/link.py", "pkg/new.py", "pkg/[ab].py"]
    files = BaseFiles(repo, commit, [], None, changed)
    assert files.file("pkg/a.py").read_text(encoding="utf-8") == "A = 1\n"
    assert files.file("pkg/x[1].py").read_text(encoding="utf-8") == "X = 1\n"
    for absent in ("pkg/link.py", "pkg/new.py", "pkg/[ab].py"):
        assert not files.file(absent).is_file(), absent
    few = files.file("pkg/a.py").parent
    assert sorted(p.name for p in few.iterdir()) == ["a.py", "x[1].py"]  # not b.py
    tree = files.tree()
    assert (tree / "pkg/b.py").read_text(encoding="utf-8") == "B = 1\n"
    assert files.file("pkg/a.py") == tree / "pkg/a.py"
    files.close()
    assert not few.exists() and not tree.exists()


@pytest.mark.skipif(not can_fork(), reason="BASE is audited in a forked child on Linux only")
def test_whole_audits_in_parallel_leave_no_export_behind(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a cache folder BASE is exported to a temporary folder; with both sides
    audited at once BASE's audit runs in a forked child, and an export made there was
    in the child's copy of the run's files, never removed (1,068 were left in /tmp)."""
    from gatecheck.config.loader import load_ruleset
    from gatecheck.impact.run import Strategy, run_impact

    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    ruleset = load_ruleset(None)
    audit = _sm120_audit(ruleset, restricted=True)
    edit(repo, "pkg/utils.py", "major in (10, 11, 12)", "major in (10, 11)")
    report = run_impact(
        [repo], "HEAD", audit, ruleset.registry, "sm120", parallel=True, strategy=Strategy.WHOLE
    )
    assert report.issues  # BASE was audited: the narrowing is reported
    assert sorted(p.name for p in temp.iterdir()) == []


# The text prefilters of reach (scope.py) against what module_facts reads: a file whose
# imports name the module (or import it whole) always passes the prefilter.
PREFILTER_SOURCES = [
    ("from a.b.c import x\n", True, False),
    ("from a.b.c import *\n", True, True),
    ("import a.b.c\n", True, True),
    ("import a.b.c.d as e\n", True, True),
    ("import os, \\\n    a.b.c.d\n", True, True),
    ("from a.b import c\n", True, True),
    ("from a.b import (\n    x,\n    c,\n)\n", True, True),
    ("from a . b . c import x\n", True, False),
    ("from a.b.\\\nc import x\n", True, False),
    ("load('a.b.c.Thing')\n", True, True),
    ("from . import c\n", True, True),  # in package a.b
    ("from .c import x\n", True, False),
    ("from ..b.c import *\n", True, True),
    ("from .. import b\n", False, False),  # names a.b, not a.b.c
    ("from a.b.c.sub import x\n", False, False),
    ("from a.b.cd import x\n", False, False),
    ("from xa.b.c import x\n", False, False),
    ("from a.b.other import c_x\n", False, False),
]


@pytest.mark.parametrize(("source", "names", "whole"), PREFILTER_SOURCES)
def test_reach_prefilters_hold_what_module_facts_reads(
    source: str, names: bool, whole: bool
) -> None:
    from gatecheck.impact.scope import ALL, may_import_module, may_import_whole, module_facts

    facts = module_facts(source, "a.b.mod", False)
    assert facts is not None
    imports = [(origin, name) for origin, name, _ in facts.imports if origin == "a.b.c"]
    # Sound: what module_facts reads, the prefilters let through.
    assert bool(imports) <= may_import_module(source, "a.b.c", "a.b")
    assert any(name == ALL for _, name in imports) <= may_import_whole(source, "a.b.c", "a.b")
    # And as precise as the table says.
    assert may_import_module(source, "a.b.c", "a.b") is names
    assert may_import_whole(source, "a.b.c", "a.b") is whole


@pytest.mark.parametrize(
    ("own", "reached"),
    [
        # 40 files constructing their own `Cfg`, 30 calling `m.Cfg(...)`: the search of
        # pkg.mod's `Cfg` reads the 30 that may (call_names.may_reach), under
        # MAX_CONSTRUCTION_FILES, so a changed construction reaches its definition.
        pytest.param(
            "class Cfg:\n    pass\n\n\ndef f():\n    return Cfg()\n", True, id="others-own"
        ),
        # ... while 40 importers of pkg.mod past it make every search give up.
        pytest.param(
            "from pkg.mod import Cfg\n\n\ndef f():\n    return Cfg()\n", False, id="importers"
        ),
    ],
)
def test_a_changed_call_reaches_the_definition_its_search_reads(
    tmp_path: Path, own: str, reached: bool
) -> None:
    from gatecheck.impact.scope import reached_files

    files = {
        "pkg/__init__.py": "",
        "pkg/mod.py": "import dataclasses\n\n\n@dataclasses.dataclass\nclass Cfg:\n    cc: int = 80\n",
        "pkg/run.py": "from pkg.mod import Cfg\n\nX = Cfg(90)\n",
    }
    files.update({f"pkg/dot_{i}.py": "def f(m):\n    return m.Cfg(1)\n" for i in range(30)})
    files.update({f"pkg/own_{i}.py": own for i in range(40)})
    root = write_tree(tmp_path / "proj", files)
    paths = sorted(root.rglob("*.py"))
    run = root / "pkg/run.py"
    found = reached_files(
        paths,
        [root],
        {run: frozenset({"X"})},
        lambda p: p.read_text(),
        {run: frozenset({"Cfg"})},
    )
    assert (root / "pkg/mod.py" in found) is reached
