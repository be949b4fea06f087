"""`impact` reusing the working tree's audit for BASE (gatecheck/impact/reuse.py): mini git
repositories where a change the changed file's importers never spell still changes their
gates -- a predicate body two modules away, a module deleted or added, a caller changed --
and every way of auditing (both sides whole, the files reached by imports, BASE only where
the working tree's reads meet the change) gives the same report. Then the reads as a table."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path

import pytest

from gatecheck.audit import run_audit
from gatecheck.audit.report import AuditReport
from gatecheck.config.loader import load_ruleset
from gatecheck.containment import is_internal_error
from gatecheck.impact.overlay import amended_index
from gatecheck.impact.reuse import Change, dirty_files, everything_moves, hop_files, meets
from gatecheck.impact.run import (
    OnOpen,
    Strategy,
    base_knows_more,
    run_impact,
    uses_unknown_name,
)
from gatecheck.loading.readlog import FileReads
from gatecheck.semantics.call_names import attribute_called_name_set, called_name_set
from tests.conftest import write_tree
from tests.test_impact import commit_all, git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

DEVICE = "import torch\n\n\ndef major():\n    return torch.cuda.get_device_capability()[0]\n"
UTILS = "from pkg.dev import major\n\n\ndef is_blackwell():\n    return major() in (10, 11, 12)\n"
# A predicate calling a predicate: what uses it reads utils.py without spelling it.
MID = (
    "from pkg.utils import is_blackwell\n\n\n"
    "def is_blackwell_family():\n    return is_blackwell()\n"
)
USER = (
    "from pkg.mid import is_blackwell_family\n\n\n"
    "def run():\n    if is_blackwell_family():\n        return 1\n    return 0\n"
)
# A gate no change below reaches: reuse must leave it out of BASE's audit.
UNRELATED = "from pkg.dev import major\n\nOLD = major() >= 8  # sm80\n"
COMMON = {
    "pkg/__init__.py": "",
    "pkg/dev.py": DEVICE,
    "pkg/utils.py": UTILS,
    "pkg/mid.py": MID,
    "pkg/unrelated.py": UNRELATED,
}
# Named for no generation: unresolved, no naming convention answers for it.
FAST = "from pkg.dev import major\n\n\ndef fast_ok():\n    return major() == 9\n"
FAST_USER = (
    "from pkg.arch import fast_ok\n\n\n"
    "def run():  # sm90 only\n    if fast_ok():\n        return 1\n    return 0\n"
)
# `from pkg import device`: pkg binds no `device`, so a module pkg/device.py is it, else
# the name pkg's star import gives (the legacy module).
LEGACY_DEVICE = "from pkg.dev import major\n\n\ndef is_new():\n    return major() >= 9\n"
NEW_DEVICE = "from pkg.dev import major\n\n\ndef is_new():\n    return major() >= 10\n"
DEVICE_USER = (
    "from pkg import device\n\n\n"
    "def run():  # sm90 and newer\n    if device.is_new():\n        return 1\n    return 0\n"
)
KERNEL = (
    "from pkg.dev import major\n\n\n"
    "def _pick(arch):\n    if arch in [100, 110]:\n        return 1\n    return 0\n\n\n"
    "def run():\n    return _pick(major() * 10)\n"
)

# A caller of KERNEL's _pick with the next major's arch: the parameter is then the
# device's or the next one's, and the gate admits the majors below 10 and 11 too.
CALLER = (
    "from pkg.dev import major\nfrom pkg.kern import _pick\n\n\n"
    "def go():\n    return _pick(major() * 10 + 10)\n"
)

# A gate function (holds a gate, named for no generation): a call of it is a hop.
POLICY = (
    "from pkg.dev import major\n\n\n"
    "def use_fast():\n    if major() >= 9:  # sm90\n        return True\n    return False\n"
)
POLICY_USER = (
    "from pkg.policy import use_fast\n\n\n"
    "def run():  # sm90\n    if use_fast():\n        return 1\n    return 0\n"
)
# A gate binding and a flag set under a deciding if: their readers are hops too.
BOUND = "from pkg.dev import major\n\nFAST_PATH = major() >= 9  # sm90\n"
FLAGGED = (
    "from pkg.dev import major\n\nuse_fast = False\nif major() >= 9:  # sm90\n    use_fast = True\n"
)


def _reader(name: str) -> str:
    return (
        f"from pkg.policy import {name}\n\n\n"
        f"def run():  # sm90\n    if {name}:\n        return 1\n    return 0\n"
    )


# A project's own predicate that spells no idiom, and a file using it that spells none
# either: only the audit's widening (audit/widening.py) searches that file.
OWN_PREDICATE = (
    "import torch\n\n\n"
    "def is_sm_at_least_89():\n    return torch.cuda.get_device_capability() >= (8, 9)\n"
)
OWN_PREDICATE_USER = (
    "from pkg.ao_utils import is_sm_at_least_89\n\n\n"
    "def run():\n    if is_sm_at_least_89():\n        return 1\n    return 0\n"
)

# (files at BASE, files written (None: deleted) after, issues expected: (rule, qualname)).
SCENARIOS = [
    pytest.param(
        {"pkg/ao_utils.py": OWN_PREDICATE, "pkg/quant.py": OWN_PREDICATE_USER},
        {"pkg/ao_utils.py": "def is_sm_at_least_89():\n    return True\n"},
        [("impact-removed-gate", "pkg.quant.run")],
        # BASE searches quant.py, the working tree does not: reuse audits BASE whole.
        id="a-device-name-only-base-knows",
    ),
    pytest.param(
        {"pkg/a.py": USER, "pkg/b.py": USER},
        {"pkg/utils.py": UTILS.replace("in (10, 11, 12)", "== 10")},
        [("impact-narrowed", "pkg.a.run"), ("impact-narrowed", "pkg.b.run")],
        id="predicate-body-two-modules-away",  # b.py takes a.py's memoised answer
    ),
    pytest.param(
        {"pkg/arch.py": FAST, "pkg/model.py": FAST_USER},
        {"pkg/arch.py": None},
        # arch.py uses `major()`, a capability value: searched, its return is the gate and
        # model.py's call a hop of it (audit/widening.py).
        [("impact-removed-gate", "pkg.arch.fast_ok")],
        id="deleted-module",
    ),
    pytest.param(
        {
            "pkg/__init__.py": "from pkg.legacy import *\n",
            "pkg/legacy.py": "import pkg.legacy_device as device\n",
            "pkg/legacy_device.py": LEGACY_DEVICE,
            "pkg/model.py": DEVICE_USER,
        },
        {"pkg/device.py": NEW_DEVICE},
        # The new device.py uses `major()`, a capability value: searched, its return is a
        # new gate and model.py's call, which it shadows, a hop of it (audit/widening.py).
        [("impact-new-gate", "pkg.device.is_new")],
        id="added-module-shadows-a-name",
    ),
    pytest.param(
        {"pkg/kern.py": KERNEL, "pkg/caller.py": "X = 1\n"},
        {"pkg/caller.py": CALLER},
        [("impact-widened", "pkg.kern._pick")],
        id="changed-caller",  # the parameter's callers no longer agree on the device's
    ),
    pytest.param(
        {
            "pkg/kern.py": KERNEL,
            "pkg/caller.py": CALLER,
        },
        {"pkg/caller.py": "X = 1\n"},
        [("impact-narrowed", "pkg.kern._pick")],
        # BASE's callers index (the working tree's, amended) lists the caller again.
        id="removed-caller",
    ),
    pytest.param(
        {"pkg/policy.py": POLICY, "pkg/model.py": POLICY_USER},
        {"pkg/model.py": POLICY_USER.replace("return 0", "return 2")},
        [],
        # BASE's model.py alone would read `use_fast()` as a gate: policy.py's conditions
        # are found too (the hop source's file, read through a memoised import).
        id="hop-source-in-an-unchanged-file",
    ),
    # The same through a name: what the hop sources were asked of (audit/hops.py) is the
    # gate binding's file, and the deciding if's.
    pytest.param(
        {"pkg/policy.py": BOUND, "pkg/model.py": _reader("FAST_PATH")},
        {"pkg/model.py": _reader("FAST_PATH").replace("return 0", "return 2")},
        [],
        id="gate-binding-in-an-unchanged-file",
    ),
    pytest.param(
        {"pkg/policy.py": FLAGGED, "pkg/model.py": _reader("use_fast")},
        {"pkg/model.py": _reader("use_fast").replace("return 0", "return 2")},
        [],
        id="flag-decided-in-an-unchanged-file",
    ),
    pytest.param(
        {"pkg/a.py": USER},
        {"pkg/sub/__init__.py": "", "pkg/sub/x.py": UNRELATED},
        [("impact-new-gate", "pkg.sub.x")],
        id="added-package-audits-everything",
    ),
]


def _repo(tmp_path: Path, base: Mapping[str, str], after: Mapping[str, str | None]) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write_tree(repo, {**COMMON, **base})
    commit_all(repo, "base")
    for rel, text in after.items():
        if text is None:
            (repo / rel).unlink()
        else:
            write_tree(repo, {rel: text})
    return repo


def _impact(
    repo: Path,
    strategy: Strategy,
    speculate: bool | None = False,
    reports: list[tuple[bool, AuditReport]] | None = None,
) -> tuple[list[tuple[object, ...]], int, list[Path]]:
    """(the issues, the unchanged count, every file BASE's audits were asked for);
    `reports`: each audit's report, after whether it ran over the working tree's facts."""
    ruleset = load_ruleset(None)
    asked: list[Path] = []

    def audit(
        targets: Sequence[Path],
        only: Sequence[Path] | None,
        *,
        record_reads: bool = False,
        on_open: OnOpen | None = None,
        laid_over: bool = False,
    ) -> AuditReport:
        if laid_over or "impact-" in str(targets[0]):  # BASE's
            asked.extend(only or [Path("<everything>")])
        report = run_audit(
            list(targets),
            ruleset,
            "sm120",
            only=only,
            record_reads=record_reads,
            on_open=on_open,
        )
        if reports is not None:
            reports.append((laid_over, report))
        return report

    report = run_impact(
        [repo], "main", audit, ruleset.registry, "sm120", strategy=strategy, speculate=speculate
    )
    issues = [
        (
            i.kind.rule_id,
            i.change.gate.found.qualname,
            i.message,
            str(i.change.gate.path.relative_to(repo)),
            i.change.gate.found.line,
            i.generations,
        )
        for i in report.issues
    ]
    return issues, report.unchanged, asked


@pytest.mark.parametrize(("base", "after", "expected"), SCENARIOS)
def test_reuse_answers_as_both_sides_whole(
    tmp_path: Path,
    base: Mapping[str, str],
    after: Mapping[str, str | None],
    expected: list[tuple[str, str]],
) -> None:
    repo = _repo(tmp_path, base, after)
    whole, whole_unchanged, _ = _impact(repo, Strategy.WHOLE)
    assert sorted((rule, qualname) for rule, qualname, *_ in whole) == expected
    reused, reused_unchanged, asked = _impact(repo, Strategy.REUSE)
    assert reused == whole
    assert reused_unchanged == whole_unchanged
    reached, reached_unchanged, _ = _impact(repo, Strategy.REACH)
    assert reached == whole
    # The reused audit started while reach decides, abandoned or not: the same again.
    speculated, speculated_unchanged, _ = _impact(repo, Strategy.AUTO, speculate=True)
    assert speculated == whole
    assert speculated_unchanged in (reused_unchanged, reached_unchanged)  # what it counts
    if Path("<everything>") not in asked:
        assert all(p.name != "unrelated.py" for p in asked), asked  # BASE audited less


def test_bases_audit_searches_callers_over_the_amended_indexes(tmp_path: Path) -> None:
    """BASE's audit over the working tree's facts (overlay.py) searches `_pick`'s callers:
    with the index of `name(` amended and that of `x.name(` left out, every such search
    raised (KeyError), and BASE was audited whole to make up for what it then missed."""
    repo = _repo(tmp_path, {"pkg/kern.py": KERNEL, "pkg/caller.py": CALLER}, {})
    write_tree(repo, {"pkg/kern.py": KERNEL.replace("[100, 110]", "[100, 110, 120]")})
    reports: list[tuple[bool, AuditReport]] = []
    _impact(repo, Strategy.REUSE, reports=reports)
    assert [laid_over for laid_over, _ in reports] == [False, True]  # not BASE whole again
    assert not [d for _, r in reports for d in r.diagnostics if is_internal_error(d)]


def test_reuse_leaves_unread_files_to_the_working_tree(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"pkg/a.py": USER}, {"pkg/utils.py": UTILS.replace("12)", "12, 13)")})
    _, _, asked = _impact(repo, Strategy.REUSE)
    # mid.py holds no gate of its own, only a predicate's body (its `return is_blackwell()`
    # a predicate definition, counted), which reads utils.py: read again; unrelated.py,
    # whose gate reads nothing changed, is not.
    assert {p.name for p in asked} == {"a.py", "mid.py", "utils.py"}


def test_cached_reads_answer_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI's audit goes through the cache, reads included: a second run reads them back."""
    import json

    from click.testing import CliRunner

    from gatecheck.cli import cli
    from gatecheck.impact import run as impact_run

    repo = _repo(
        tmp_path,
        {"pkg/a.py": USER, "pkg/b.py": USER},
        {"pkg/utils.py": UTILS.replace("in (10, 11, 12)", "== 10")},
    )
    monkeypatch.chdir(repo)
    # Reuse even on a tree this small (the CLI takes it past scope.py's budget).
    monkeypatch.setattr(impact_run, "reached_files", lambda files, *args: frozenset(files))
    args = ["impact", "main", "--format", "json", "--allow-narrowing"]
    first = CliRunner().invoke(cli, args)
    second = CliRunner().invoke(cli, args)
    assert first.exit_code == second.exit_code == 0, first.output
    issues = json.loads(first.stdout)["issues"]
    assert [i["rule"] for i in issues] == ["impact-narrowed"] * 2
    assert json.loads(second.stdout)["issues"] == issues


# -- the reads as a table ------------------------------------------------------------------


def _change(path: str, before: str | None, after: str | None, **flags: bool) -> Change:
    return Change(Path(path), path.removesuffix(".py").replace("/", "."), before, after, **flags)


@pytest.mark.parametrize(
    ("reads", "change", "expected"),
    [
        pytest.param({"pkg.utils"}, _change("pkg/utils.py", "A", "B"), True, id="module-read"),
        pytest.param({"pkg.other"}, _change("pkg/utils.py", "A", "B"), False, id="module-unread"),
        pytest.param(
            {"calls:_pick"},
            _change("pkg/c.py", None, "_pick(9)\n", added=True),
            True,
            id="a-new-caller",
        ),
        pytest.param(
            {"calls:_pick"}, _change("pkg/c.py", "_pick(9)\n", None, deleted=True), True, id="gone"
        ),
        pytest.param(
            {"calls:_pick"}, _change("pkg/c.py", "x = 1\n", "y = _pick\n"), False, id="no-call"
        ),
        pytest.param({"text:sm_100"}, _change("pkg/c.py", "", "sm_100"), True, id="text-search"),
        pytest.param({"dir:/r/pkg/"}, _change("/r/pkg/x/c.py", "", ""), True, id="folder-scan"),
        pytest.param({"dir:/r/pkg/"}, _change("/r/other/c.py", "", ""), False, id="other-folder"),
    ],
)
def test_meets(reads: set[str], change: Change, expected: bool) -> None:
    assert meets(reads, [change], {change.module}) is expected


def test_dirty_follows_hop_sources() -> None:
    """c.py's gate turns into a hop by b.py's answer, b.py's by a.py's: an edit of a.py can
    change c.py's row though c.py reads nothing of a.py itself."""
    reads = [
        FileReads(Path("a.py"), frozenset({"dev"})),
        FileReads(Path("b.py"), frozenset({"b"}), frozenset({"a"})),
        FileReads(Path("c.py"), frozenset({"c"}), frozenset({"b"})),
        FileReads(Path("d.py"), frozenset({"d"})),
    ]
    changes = [_change("dev.py", "A", "B")]
    dirty = dirty_files(reads, changes, lambda p: p.stem)
    assert dirty == {Path("a.py"), Path("b.py"), Path("c.py"), Path("dev.py")}
    files = {"a": Path("a.py"), "b": Path("b.py")}
    assert hop_files(reads, {Path("c.py")}, files) == {Path("b.py")}


@pytest.mark.parametrize(
    ("change", "shared", "expected"),
    [
        pytest.param(_change("pkg/__init__.py", None, "", added=True), set(), True, id="package"),
        pytest.param(_change("pkg/g.py", "", None, deleted=True), {"pkg.g"}, True, id="rule-fn"),
        pytest.param(_change("pkg/g.py", "", None, deleted=True), set(), False, id="plain"),
        pytest.param(_change("pkg/__init__.py", "", "x = 1\n"), set(), False, id="edited-init"),
    ],
)
def test_everything_moves(change: Change, shared: set[str], expected: bool) -> None:
    assert everything_moves([change], shared) is expected


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        pytest.param(
            "def go():\n    return _pick(9)\n",
            "def go():\n    return _pick(10)\n",
            {"_pick"},
            id="arg",
        ),
        pytest.param(
            "A = 9\n\ndef go():\n    return _pick(A)\n",
            "A = 10\n\ndef go():\n    return _pick(A)\n",
            {"_pick"},
            id="a-name-the-call-reads",
        ),
        pytest.param(
            "def a():\n    f(1)\n\ndef b():\n    g(1)\n",
            "def a():\n    f(1)\n\ndef b():\n    g(2)\n",
            {"g"},
            id="only-the-changed-statement",
        ),
        pytest.param(None, "x.h(1)\n", {"h"}, id="added-file"),
        pytest.param("def a():\n    f(1)\n", "def a():\n    f(1)  # same\n", set(), id="layout"),
    ],
)
def test_changed_calls(old: str | None, new: str, expected: set[str]) -> None:
    from gatecheck.impact.scope import changed_calls

    assert changed_calls(old, new) == expected


def test_changed_calls_of_one_method_only() -> None:
    """An edited method passes on its own calls, not its class's other methods'."""
    from gatecheck.impact.scope import changed_calls

    old = "class A:\n    def f(self):\n        g(1)\n\n    def h(self):\n        k(1)\n"
    assert changed_calls(old, old.replace("g(1)", "g(2)")) == {"g"}


def _index(
    files: Sequence[Path],
    texts: Mapping[Path, str],
    names_in: Callable[[str], Collection[str]] = called_name_set,
) -> dict[str, tuple[Path, ...]]:
    """A callers' index as semantics/callers.py builds it: name -> files, in order."""
    found: dict[str, list[Path]] = {}
    for path in files:
        for name in set(names_in(texts[path])):
            found.setdefault(name, []).append(path)
    return {name: tuple(paths) for name, paths in found.items()}


A, B, C, D = (Path(f"{n}.py") for n in "abcd")


@pytest.mark.parametrize(
    ("now", "base", "base_files"),
    [
        # b.py (between two callers) starts calling f: at BASE it stays in its place.
        ({A: "f()", B: "g()", C: "f()"}, {B: "f()\ng()"}, [A, B, C]),
        ({A: "f()", B: "f(); h()", C: "f()"}, {B: "x = 1"}, [A, B, C]),  # stops calling
        ({A: "f()", D: "f()"}, {}, [A]),  # d.py added since BASE
        ({A: "g()", C: "g()"}, {B: "f()"}, [A, C, B]),  # b.py deleted since: put back last
        ({A: "x.f()", B: "f()"}, {B: "y.f(); k[g](1)"}, [A, B]),  # `x.name(`, a launch
    ],
)
def test_amended_callers_index_is_bases_own(
    now: dict[Path, str], base: dict[Path, str], base_files: list[Path]
) -> None:
    now_files = sorted(now)
    changed = set(base) | (set(now) - set(base_files)) | (set(base_files) - set(now))
    base_texts = {p: base.get(p, now.get(p, "")) for p in base_files}
    amended = amended_index(_index(now_files, now), base_files, base_texts.__getitem__, changed)
    assert amended == _index(base_files, base_texts)
    # The index of `x.name(` too, which the callers search of a method reads.
    dotted = attribute_called_name_set
    amended = amended_index(
        _index(now_files, now, dotted), base_files, base_texts.__getitem__, changed, dotted
    )
    assert amended == _index(base_files, base_texts, dotted)


@pytest.mark.parametrize(
    ("base", "tree", "expected"),
    [
        pytest.param({"major"}, set(), True, id="a-name-only-base-knows"),
        pytest.param({"major"}, {"major"}, False, id="both-know-it"),
        pytest.param(set(), {"major"}, False, id="only-the-tree-knows-it"),
        # A wrapper named as the idiom: the prefilter searches its users anyway.
        pytest.param({"get_device_capability"}, set(), False, id="a-name-spelling-an-idiom"),
        pytest.param(
            {"get_device_capability", "device_cc"}, set(), True, id="and-one-that-does-not"
        ),
        # A protocol's method the tree's audit would not follow (defined in more files than
        # MAX_DEFINITIONS), counted under the bound by BASE's audit of a few files.
        pytest.param(
            {"get_attn_backend_cls_str"},
            set(),
            False,
            id="a-name-the-tree-found-too-often-defined",
        ),
    ],
)
def test_base_knows_more(base: set[str], tree: set[str], expected: bool) -> None:
    protocols = {"get_attn_backend_cls_str"}
    assert base_knows_more(base, tree, protocols) is expected


# (the file's text at BASE, the names only the working tree knows, those of them asked
# for by their spelling, expected)
UNKNOWN_NAMES = [
    pytest.param("from pkg.hw import device_cc\n", {"device_cc"}, set(), True, id="imported"),
    pytest.param("x = hw.device_cc()\n", {"device_cc"}, set(), True, id="called"),
    pytest.param(
        "if hasattr(kern, 'block_scale'):\n    pass\n",
        {"block_scale"},
        {"block_scale"},
        True,
        id="a-quoted-name-asked-for",
    ),
    # A name bound under a device test is searched for only where it is asked for by its
    # spelling: a plain use of it brings in no file (`import deep_gemm`).
    pytest.param(
        "import deep_gemm\n", {"deep_gemm"}, {"deep_gemm"}, False, id="a-quoted-name-used"
    ),
    pytest.param("y = 1\n", {"device_cc"}, set(), False, id="not-used"),
    # A file the prefilter passes is searched anyway.
    pytest.param(
        "import torch\ncap = torch.cuda.get_device_capability()\nz = hw.device_cc()\n",
        {"device_cc"},
        set(),
        False,
        id="a-file-spelling-an-idiom",
    ),
]


@pytest.mark.parametrize(("text", "names", "quoted", "expected"), UNKNOWN_NAMES)
def test_uses_unknown_name(text: str, names: set[str], quoted: set[str], expected: bool) -> None:
    path = Path("/nowhere/pkg/user.py")
    assert uses_unknown_name([path], names, quoted, {path: text.encode()}) is expected
