"""The on-disk cache (.gatecheck_cache/): the same answers as a fresh run, reused only while
nothing the analysis read has changed, and never trusted when damaged."""

from __future__ import annotations

import io
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

import gatecheck.audit
import gatecheck.cache
import gatecheck.engine
from gatecheck.cache import CACHE_DIR, RunCache, from_data, to_data
from gatecheck.cli import cli
from gatecheck.cli.common import _ProgressBar
from gatecheck.findings import Finding
from gatecheck.progress import listening
from tests.conftest import FIXTURES

COMMUNICATOR = "sglang/srt/layers/communicator.py"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The seed fixture copied into a folder outside git (the cache lives in the cwd)."""
    root = tmp_path / "proj"
    shutil.copytree(FIXTURES / "seed_alias", root)
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def fresh_runs(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Records every analysis that actually ran (a cache hit runs none)."""
    runs: list[str] = []
    analyse, run_audit = gatecheck.engine.analyse, gatecheck.audit.run_audit

    def counted_analyse(*args: object, **kwargs: object) -> object:
        runs.append("check")
        return analyse(*args, **kwargs)  # type: ignore[arg-type]

    def counted_audit(*args: object, **kwargs: object) -> object:
        runs.append("audit")
        return run_audit(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(gatecheck.engine, "analyse", counted_analyse)
    monkeypatch.setattr(gatecheck.audit, "run_audit", counted_audit)
    yield runs


def _check(*args: str) -> str:
    result = CliRunner().invoke(cli, ["check", ".", *args])
    assert result.exit_code in (0, 1), result.output
    return result.output


def _audit(*args: str) -> str:
    result = CliRunner().invoke(cli, ["audit", ".", "--generation", "sm120", *args])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("output_format", ["json", "text", "concise", "markdown", "github"])
def test_check_from_cache_is_the_fresh_report(
    project: Path, fresh_runs: list[str], output_format: str
) -> None:
    cold = _check("--format", output_format)
    warm = _check("--format", output_format)
    assert warm == cold
    assert _check("--format", output_format, "--no-cache") == cold
    assert fresh_runs == ["check", "check"]  # the warm run analysed nothing
    assert (project / CACHE_DIR / ".gitignore").read_text().splitlines()[-1] == "*"


@pytest.mark.parametrize("output_format", ["json", "text", "markdown", "html"])
def test_audit_from_cache_is_the_fresh_report(
    project: Path, fresh_runs: list[str], output_format: str
) -> None:
    cold = _audit("--format", output_format)
    assert _audit("--format", output_format) == cold
    assert _audit("--format", output_format, "--no-cache") == cold
    assert fresh_runs == ["audit", "audit"]


def test_touched_file_with_same_content_keeps_the_cache(
    project: Path, fresh_runs: list[str]
) -> None:
    cold = _check("--format", "json")
    os.utime(project / COMMUNICATOR, ns=(1, 1))
    assert _check("--format", "json") == cold
    assert fresh_runs == ["check"]


def test_changed_file_never_parsed_and_still_not_matching_keeps_the_cache(
    project: Path, fresh_runs: list[str]
) -> None:
    cold = _check("--format", "json")
    unrelated = project / "sglang" / "__init__.py"
    unrelated.write_text(unrelated.read_text() + "\nVERSION = '0.5.10'\n")
    assert _check("--format", "json") == cold
    _audit()
    unrelated.write_text(unrelated.read_text() + "\nNOTE = 1\n")  # no arch idiom either
    _audit()
    assert fresh_runs == ["check", "audit"]


def test_suppression_comments_are_read_from_changed_files_not_only_parsed_ones(
    project: Path, fresh_runs: list[str]
) -> None:
    _check()
    unrelated = project / "sglang" / "__init__.py"
    unrelated.write_text(unrelated.read_text() + "\nX = 1  # gatecheck: ignore[GC001] moved\n")
    warm = _check("--format", "json")
    assert fresh_runs == ["check"]  # still answered from the cache...
    assert "GC102" in warm  # ...yet the new comment is reported as suppressing nothing
    assert warm == _check("--format", "json", "--no-cache")


def test_a_cold_run_reads_suppressions_from_the_files_its_store_marked(
    project: Path, fresh_runs: list[str]
) -> None:
    # The cold run scans for suppression comments only the files storing it found the
    # marker in: an unused one in a file no gate is in is still reported (GC102).
    unrelated = project / "sglang" / "__init__.py"
    unrelated.write_text(unrelated.read_text() + "\nX = 1  # gatecheck: ignore[GC001] moved\n")
    uncached = _check("--format", "json", "--no-cache")
    assert "GC102" in uncached
    cold = _check("--format", "json")
    assert fresh_runs == ["check", "check"]
    assert cold == uncached
    assert _check("--format", "json") == uncached  # and from the entry
    assert fresh_runs == ["check", "check"]


def test_changed_file_that_now_holds_a_name_the_run_searched_for_is_analysed(
    project: Path, fresh_runs: list[str]
) -> None:
    # Activation paths search every file for the feature's CLI option (and for callers):
    # a file that comes to spell one changes the report although it matches no flag.
    cold = _check("--format", "json")
    unrelated = project / "sglang" / "__init__.py"
    unrelated.write_text(
        "import argparse\n"
        "parser = argparse.ArgumentParser()\n"
        'parser.add_argument("--enable-flashinfer-allreduce-fusion", action="store_true")\n'
    )
    warm = _check("--format", "json")
    assert fresh_runs == ["check", "check"]
    assert warm != cold
    assert warm == _check("--format", "json", "--no-cache")


def test_changed_file_that_now_matches_the_prefilter_is_analysed(
    project: Path, fresh_runs: list[str]
) -> None:
    _check()
    unrelated = project / "sglang" / "__init__.py"
    unrelated.write_text("enable_flashinfer_allreduce_fusion = False\n")
    _check()
    assert fresh_runs == ["check", "check"]


def test_changed_parsed_file_is_analysed(project: Path, fresh_runs: list[str]) -> None:
    before = json.loads(_check("--format", "json"))
    source = project / COMMUNICATOR
    source.write_text(
        source.read_text().replace(
            "(_is_sm90_supported or _is_sm100_supported)",
            "(_is_sm90_supported or _is_sm100_supported or _is_sm120_supported)",
        )
    )
    after = json.loads(_check("--format", "json"))
    assert fresh_runs == ["check", "check"]
    assert len(after["findings"]) == len(before["findings"]) - 1


def test_added_file_is_analysed(project: Path, fresh_runs: list[str]) -> None:
    _check()
    (project / "sglang" / "extra.py").write_text("x = 1\n")
    _check()
    assert fresh_runs == ["check", "check"]


def test_other_rules_or_options_have_their_own_entry(
    project: Path, fresh_runs: list[str], tmp_path: Path
) -> None:
    _check()
    _check("--generation", "sm120")
    rules = tmp_path / "rules.yaml"
    rules.write_text(
        "features:\n  - id: fusion\n    description: d\n"
        "    flags: [enable_flashinfer_allreduce_fusion]\n    require: [sm90, sm120]\n"
    )
    _check("--rules", str(rules))
    rules.write_text(rules.read_text().replace("[sm90, sm120]", "[sm90]"))
    _check("--rules", str(rules))
    _check("--generation", "sm120")
    assert fresh_runs == ["check"] * 4


def test_corrupt_or_foreign_entries_are_ignored_and_rebuilt(
    project: Path, fresh_runs: list[str]
) -> None:
    cold = _check("--format", "json")
    (entry,) = (project / CACHE_DIR).glob("check-*.json")
    for damage in ("{not json", "[]", json.dumps({"format": 1, "key": "x"}), ""):
        entry.write_text(damage)
        assert _check("--format", "json") == cold
    data = json.loads(entry.read_text())
    data["payload"]["findings"][0]["rule"] = "not a rule"
    entry.write_text(json.dumps(data))
    assert _check("--format", "json") == cold
    assert _check("--format", "json") == cold
    assert fresh_runs == ["check"] * 6


def test_fix_and_diff_always_analyse_afresh(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _check()
    consulted: list[Path] = []
    load = RunCache.load

    def recording_load(self: RunCache, *args: object, **kwargs: object) -> object:
        if self.kind != "rules":  # rules are cached by content, whatever the run
            consulted.append(self.path)
        return load(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(RunCache, "load", recording_load)
    CliRunner().invoke(cli, ["check", ".", "--diff"])
    CliRunner().invoke(cli, ["check", ".", "--format", "sarif"])
    CliRunner().invoke(cli, ["check", ".", "--sarif-output", "out.sarif"])
    assert consulted == []
    assert CliRunner().invoke(cli, ["check", ".", "--fix"]).exit_code == 0
    assert consulted == []
    assert json.loads(_check("--format", "json"))["findings"] == []


def test_unwritable_cache_folder_is_no_error(project: Path, fresh_runs: list[str]) -> None:
    (project / CACHE_DIR).write_text("a file where the folder should be")
    cold = _check("--format", "json")
    assert _check("--format", "json") == cold
    assert fresh_runs == ["check", "check"]


def test_rules_come_back_the_same_from_the_cache(project: Path, tmp_path: Path) -> None:
    from gatecheck import resources
    from gatecheck.cli.common import load_rules
    from gatecheck.config.loader import load_ruleset

    # Rule files given by path (the shipped ones, unedited, come from config/shipped.py).
    rules = tmp_path / "my-rules.yaml"
    shipped_rules = resources.shipped_rules_dir() / "sglang.yaml"
    rules.write_bytes(shipped_rules.read_bytes())
    loaded = load_ruleset([rules])
    assert load_rules((rules,), cache_root=project) == loaded  # stores
    assert list((project / CACHE_DIR).glob("rules-*.json"))
    assert load_rules((rules,), cache_root=project) == loaded  # reads


def test_the_shipped_rules_need_no_cache_entry(project: Path) -> None:
    from gatecheck.cli.common import load_rules
    from gatecheck.config.loader import load_ruleset

    assert load_rules((), cache_root=project) == load_ruleset(None)
    assert not list((project / CACHE_DIR).glob("rules-*.json"))


def test_old_entries_are_pruned(tmp_path: Path) -> None:
    for index in range(RunCache.KEEP + 5):
        RunCache(tmp_path, "check", f"{index:02d}".ljust(64, "0")).store([], [], {"n": index})
    assert len(list((tmp_path / CACHE_DIR).glob("check-*.json"))) == RunCache.KEEP


def test_findings_survive_the_round_trip(project: Path) -> None:
    from gatecheck.config.loader import load_ruleset
    from gatecheck.engine import analyse

    findings = analyse([project], load_ruleset(None)).findings
    assert findings
    restored = [from_data(Finding, json.loads(json.dumps(to_data(f)))) for f in findings]
    assert restored == list(findings)


def test_progress_events_of_an_audit(project: Path) -> None:
    from gatecheck.audit import run_audit
    from gatecheck.config.loader import load_ruleset

    events: list[tuple[str, object]] = []

    class Recorder:
        def stage(self, description: str, total: int | None) -> None:
            events.append(("stage", description))

        def advance(self, steps: int = 1) -> None:
            events.append(("advance", steps))

        def parsed(self, path: Path) -> None:
            events.append(("parsed", path.name))

    with listening(Recorder()):
        run_audit([project], load_ruleset(None), "sm120")
    stages = [what for kind, what in events if kind == "stage"]
    assert stages == [
        "reading files",
        "building trees",
        "evaluating conditions",
        "classifying gates",
    ]
    assert ("parsed", "communicator.py") in events


def test_progress_bar_draws_only_once_a_scan_takes_a_while() -> None:
    def bar(delay: float) -> Callable[[], str]:
        out = io.StringIO()
        progress = _ProgressBar("auditing", Console(file=out, force_terminal=True, width=80))
        progress.DELAY = delay
        progress.stage("building trees", 3)
        progress.advance()
        progress.close()
        return out.getvalue

    assert "building trees" in bar(0.0)()
    assert bar(60.0)() == ""


def test_no_progress_bar_without_a_terminal_or_with_quiet(project: Path) -> None:
    # CliRunner's stderr is no terminal: nothing but the report.
    result = CliRunner().invoke(cli, ["audit", ".", "--generation", "sm120", "--format", "json"])
    json.loads(result.output)
    quiet = CliRunner().invoke(cli, ["check", ".", "-q", "--format", "json", "--no-cache"])
    json.loads(quiet.output)


# --- untrusted repositories: links, foreign files, damaged entries (issue #15) ----------------


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["check", ".", *args])
    return result.exit_code, result.stdout, result.stderr


def _listing(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_a_linked_cache_folder_is_never_used(project: Path, tmp_path: Path) -> None:
    """A committed `.gatecheck_cache -> ../elsewhere` (a malicious pull request) made the
    cache write there and prune files it never wrote: now the link is refused with a
    warning, nothing is written or removed through it, and the run goes on uncached."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for index in range(30):
        (elsewhere / f"check-{index:024x}.json").write_text(f"precious {index}\n")
    before = _listing(elsewhere)
    (project / CACHE_DIR).symlink_to(elsewhere, target_is_directory=True)

    runs = [_run("--format", "json") for _ in range(2)]

    assert _listing(elsewhere) == before
    for code, stdout, stderr in runs:
        assert code == 1
        assert stdout == _run("--format", "json", "--no-cache")[1]
        assert f"warning: {project / CACHE_DIR} is a symbolic link, never followed" in stderr
        assert "running without the cache" in stderr


def test_a_dangling_gitignore_link_in_the_cache_folder_is_not_written_through(
    project: Path, tmp_path: Path
) -> None:
    (project / CACHE_DIR).mkdir()
    outside = tmp_path / "created-outside"
    (project / CACHE_DIR / ".gitignore").symlink_to(outside)

    _check()

    assert not outside.exists()
    assert (project / CACHE_DIR / ".gitignore").is_symlink()
    assert list((project / CACHE_DIR).glob("check-*.json"))  # the cache itself works


def test_only_entries_the_cache_wrote_are_pruned(tmp_path: Path) -> None:
    """Files that look like entries by name but were not written by the cache (other
    content, or links leading anywhere) survive pruning; our own old entries go."""
    folder = tmp_path / CACHE_DIR
    folder.mkdir()
    outside = tmp_path / "outside.json"
    outside.write_text("keep me\n")
    foreign = [folder / f"check-{index:024x}.json" for index in range(30)]
    for path in foreign:
        path.write_text("not an entry\n")
        os.utime(path, (1, 1))  # the least recently used, were they ours
    (folder / f"check-{'f' * 24}.json").symlink_to(outside)

    for index in range(RunCache.KEEP + 5):
        RunCache(tmp_path, "check", f"{index + 100:x}".ljust(64, "0")).store([], [], {"n": index})

    assert all(path.read_text() == "not an entry\n" for path in foreign)
    assert outside.read_text() == "keep me\n"
    assert (folder / f"check-{'f' * 24}.json").is_symlink()
    ours = [p for p in folder.glob("check-*.json") if p.read_bytes().startswith(b'{"format"')]
    assert len(ours) == RunCache.KEEP


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda text: "[" * 100_000 + "]" * 100_000, id="deeply-nested"),
        pytest.param(
            lambda text: text.replace('"written_ns":', '"written_ns":1e999,"x":', 1),
            id="overflowing-number",
        ),
        pytest.param(
            lambda text: text.replace('"gate_count":', '"gate_count":1e999,"x":'), id="inf-payload"
        ),
        pytest.param(
            lambda text: text.replace('"written_ns":', '"written_ns":Infinity,"x":'), id="infinity"
        ),
        pytest.param(lambda text: text.replace('"files":[[', '"files":[[1.5,', 1), id="wrong-row"),
    ],
)
def test_damaged_entries_are_rebuilt_not_fatal(
    project: Path, fresh_runs: list[str], damage: Callable[[str], str]
) -> None:
    cold = _check("--format", "json")
    for entry in (project / CACHE_DIR).glob("*-*.json"):  # check and rules entries alike
        entry.write_text(damage(entry.read_text()))

    assert _check("--format", "json") == cold
    assert _check("--format", "json") == cold
    assert fresh_runs == ["check", "check"]


def test_a_fifo_or_device_in_place_of_an_entry_does_not_block(project: Path) -> None:
    """Run in a subprocess: a blocking read would hang the test run, not fail it."""
    import subprocess
    import sys

    _check()
    for index, entry in enumerate(sorted((project / CACHE_DIR).glob("*-*.json"))):
        entry.unlink()
        if index % 2:
            entry.symlink_to("/dev/zero")
        else:
            os.mkfifo(entry)

    result = subprocess.run(
        [sys.executable, "-m", "gatecheck", "check", ".", "--format", "json"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert result.returncode == 1, result.stderr
    assert json.loads(result.stdout)["findings"]


def test_a_same_size_edit_with_its_old_mtime_restored_is_seen(
    project: Path, fresh_runs: list[str]
) -> None:
    """`cp -p`, `rsync -a` and `tar x` restore mtimes: with the same size, only ctime and
    inode (which nothing restores) tell that the content is new."""
    old = 1_600_000_000_000_000_000
    for path in project.rglob("*.py"):
        os.utime(path, ns=(old, old))
    cold = _check("--format", "json")
    # As if the entry had been written well after the checkout: the stat alone is trusted.
    (entry,) = (project / CACHE_DIR).glob("check-*.json")
    data = json.loads(entry.read_text())
    data["written_ns"] += 60_000_000_000
    entry.write_text(json.dumps(data, separators=(",", ":")))

    source = project / COMMUNICATOR
    text = source.read_text()
    edited = text.replace(
        "_is_sm90_supported or _is_sm100_supported", "_is_sm90_supported or _is_sm120_supported"
    )
    assert edited != text and len(edited) == len(text)
    source.write_text(edited)
    os.utime(source, ns=(old, old))

    warm = _check("--format", "json")

    assert fresh_runs == ["check", "check"]
    assert warm != cold
    assert warm == _check("--format", "json", "--no-cache")


def test_stale_temporary_entries_of_killed_runs_are_removed(tmp_path: Path) -> None:
    folder = tmp_path / CACHE_DIR
    folder.mkdir()
    stale, young = folder / ".entry-0123456789abcdef", folder / ".entry-fedcba9876543210"
    for path in (stale, young):
        path.write_text('{"format":4,"key":"half')
    os.utime(stale, (1, 1))

    RunCache(tmp_path, "check", "a" * 64).store([], [], {})

    assert not stale.exists()
    assert young.exists()  # perhaps a concurrent run, writing right now


def test_the_key_follows_gatecheck_s_own_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same version number can be many commits (a pre-commit `rev:` sha, an editable
    install): an entry written by other code must not be read."""
    import gatecheck.cache as cache_module

    package = tmp_path / "gatecheck"
    package.mkdir()
    (package / "cache.py").write_text("# one build\n", encoding="utf-8")
    monkeypatch.setattr(cache_module, "__file__", str(package / "cache.py"))
    cache_module.code_digest.cache_clear()  # read once per process: this is a new one
    before = cache_module.cache_key("check", rules="r")
    assert cache_module.cache_key("check", rules="r") == before
    (package / "engine.py").write_text("# the next commit\n", encoding="utf-8")
    cache_module.code_digest.cache_clear()  # the next commit runs in its own process
    assert cache_module.cache_key("check", rules="r") != before
    cache_module.code_digest.cache_clear()  # the other tests' process: the real package


CALLER_TREE = {
    "pkg/__init__.py": "",
    "pkg/dev.py": "import torch\n\n\ndef major():\n    return torch.cuda.get_device_capability()[0]\n",
    "pkg/mod.py": (
        "from pkg.dev import major\n\n\n"
        "def _pick(arch):\n    if arch in [100, 110]:\n        return 1\n\n\n"
        "def run():\n    return _pick(major() * 10)\n"
    ),
    "pkg/other.py": "VALUE = 1\n",
}


@pytest.mark.parametrize(
    "edit, invalidates",
    [
        # A new caller of `_pick` in a file that spells no arch idiom and was never built:
        # the parameter no longer has one device-derived value, so the answer changes.
        ("from pkg.mod import _pick\n\n\ndef go():\n    return _pick(7)\n", True),
        ("VALUE = 2\n", False),  # the same file changed without calling it: still a hit
    ],
    ids=["new-caller", "unrelated-edit"],
)
def test_a_file_that_comes_to_call_a_followed_function_invalidates_the_audit(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fresh_runs: list[str],
    edit: str,
    invalidates: bool,
) -> None:
    """The audit reads a parameter from its callers (semantics/callers.py), found through a
    text index of every file; a cached report must not outlive a file that starts calling."""
    root = tmp_path / "callers"
    for name, text in CALLER_TREE.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    monkeypatch.chdir(root)
    before = _audit("--format", "json")
    (root / "pkg" / "other.py").write_text(edit)
    warm = _audit("--format", "json")
    assert warm == _audit("--format", "json", "--no-cache")
    assert fresh_runs == (["audit", "audit", "audit"] if invalidates else ["audit", "audit"])
    assert (warm != before) is invalidates


@pytest.mark.parametrize(
    ("edit", "hit"),
    [
        pytest.param(None, True, id="untouched"),
        pytest.param("touch", True, id="touched-unread"),
        pytest.param("X = 2\n", True, id="edited-unread-still-irrelevant"),
        pytest.param("X = 'needle'\n", False, id="edited-unread-now-relevant"),
    ],
)
def test_only_read_files_are_hashed(tmp_path: Path, edit: str | None, hit: bool) -> None:
    """A stored entry carries the content digest of the files the run read only; an
    unread file is judged by the prefilter on its current text, so a changed but still
    irrelevant one keeps the entry and a now relevant one does not."""
    read, unread = tmp_path / "read.py", tmp_path / "unread.py"
    read.write_text("needle = 1\n", encoding="utf-8")
    unread.write_text("X = 1\n", encoding="utf-8")
    files = [read, unread]
    cache = RunCache(tmp_path, "check", "c" * 64)
    cache.started_ns += LATER  # a run long after the files were written: no stamp is racy
    cache.store(files, [read], {"answer": 42})
    rows = {Path(r[0]).name: r for r in json.loads(cache.path.read_text("utf-8"))["files"]}
    assert rows["read.py"][5].startswith("t") and rows["unread.py"][5] == ""
    if edit == "touch":
        os.utime(unread, ns=(1, 1))
    elif edit is not None:
        unread.write_text(edit, encoding="utf-8")
    found = cache.load(files, lambda text: "needle" in text)
    assert (found is not None and found.payload == {"answer": 42}) is hit


LATER = 10**9 * 3600  # a run an hour after the files were written: their stats are trusted


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    package = tmp_path / "gatecheck"
    for rel, text in files.items():
        (package / rel).parent.mkdir(parents=True, exist_ok=True)
        (package / rel).write_text(text, encoding="utf-8")
    return package


@pytest.mark.parametrize(
    ("change", "later"),
    [
        ("rewrite, same size", False),
        ("rewrite, same size", True),
        ("new module", False),
        ("new module", True),
        ("module removed", True),
        ("module renamed", True),
        ("not python", True),
        ("mtime set back", True),
    ],
)
def test_package_digest_follows_every_change(tmp_path: Path, change: str, later: bool) -> None:
    """Read by stats once the files are older than the racy window, by contents before;
    either way an edit moves the digest (a file that is not Python does not)."""
    import gatecheck.cache as cache_module

    package = _package(tmp_path, {"cache.py": "x = 1\n", "sub/engine.py": "y = 2\n"})

    def digest() -> str:
        now = time.time_ns() + (LATER if later else 0)
        return cache_module.package_digest(package, now)

    before = digest()
    assert before.startswith("stat:" if later else "content:")
    assert digest() == before
    engine = package / "sub" / "engine.py"
    if change == "rewrite, same size":
        old = engine.stat()
        engine.write_text("y = 3\n", encoding="utf-8")
        os.utime(engine, ns=(old.st_atime_ns, old.st_mtime_ns))  # ctime still moves
    elif change == "new module":
        (package / "extra.py").write_text("", encoding="utf-8")
    elif change == "module removed":
        engine.unlink()
    elif change == "module renamed":
        engine.rename(package / "sub" / "engine2.py")
    elif change == "not python":
        (package / "notes.txt").write_text("hello\n", encoding="utf-8")
        assert digest() == before
        return
    elif change == "mtime set back":
        os.utime(engine, ns=(1, 1))
    assert digest() != before


def test_package_digest_reads_contents_while_racy(tmp_path: Path) -> None:
    """A file written within the racy window may be written again with the same stamps:
    its contents decide, not its stats."""
    import gatecheck.cache as cache_module

    package = _package(tmp_path, {"cache.py": "x = 1\n"})
    now = time.time_ns()
    first = cache_module.package_digest(package, now)
    assert first.startswith("content:")
    assert cache_module.package_digest(package, now + LATER).startswith("stat:")


def test_a_file_written_while_a_long_run_went_on_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run read the file's old text; the file was written a second into the run,
    which took longer than the racy window. The entry must not trust the stat it took
    when storing (that is the new file's): it was made from the old text."""
    gate = tmp_path / "gate.py"
    gate.write_text("needle = 1\n", encoding="utf-8")
    cache = RunCache(tmp_path, "check", "c" * 64)
    read_by_the_run = gate.read_text(encoding="utf-8")
    gate.write_text("needle = 2\n", encoding="utf-8")
    second = cache.started_ns + 10**9
    os.utime(gate, ns=(second, second))
    stored_at = cache.started_ns + 10 * 10**9
    monkeypatch.setattr(gatecheck.cache.time, "time_ns", lambda: stored_at)
    cache.store([gate], [gate], {"answer": 1}, text_of=lambda _path: read_by_the_run)
    monkeypatch.undo()
    assert cache.load([gate], lambda text: "needle" in text) is None


def test_files_written_just_before_the_run_keep_its_entry(tmp_path: Path) -> None:
    """An export made for the run (impact's BASE) or a fresh checkout: every stamp is
    racy when the entry is stored, so the next run reads the files again. One the run did
    not read, whose text passes the prefilter (an audit of a few of the files), must be
    told unchanged by its digest, not taken for a change that drops the entry."""
    gate, other = tmp_path / "gate.py", tmp_path / "other.py"
    gate.write_text("needle = 1\n", encoding="utf-8")
    other.write_text("needle = 2\n", encoding="utf-8")
    cache = RunCache(tmp_path, "audit", "a" * 64)
    cache.store([gate, other], [gate], {"answer": 1})
    hit = cache.load([gate, other], lambda text: "needle" in text)
    assert hit is not None and hit.payload == {"answer": 1}
    other.write_text("needle = 3\n", encoding="utf-8")  # a real change is still seen
    assert cache.load([gate, other], lambda text: "needle" in text) is None


def test_noted_by_a_scan_are_not_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check's forked scan (loading/prescan.py) answered the marker for every file it
    read: those the run did not read are stored from its answer, unread and unhashed; a
    file the run read is hashed, and one the scan did not answer is read as before."""
    read, marked, plain, unscanned = (tmp_path / f"{n}.py" for n in ("read", "m", "p", "u"))
    read.write_text("needle = 1\n", encoding="utf-8")
    marked.write_text("x = 1  # MARK\n", encoding="utf-8")
    plain.write_text("y = 2\n", encoding="utf-8")
    unscanned.write_text("z = 3  # MARK\n", encoding="utf-8")
    files = [read, marked, plain, unscanned]
    opened: list[str] = []
    real_read = gatecheck.cache.safe_io.read_regular

    def counted(path: Path, limit: int) -> bytes:
        opened.append(path.name)
        return real_read(path, limit)

    monkeypatch.setattr(gatecheck.cache.safe_io, "read_regular", counted)
    cache = RunCache(tmp_path, "check", "c" * 64)
    noted = cache.store(
        files,
        [read],
        {"answer": 7},
        lambda text: "MARK" in text,
        text_of=lambda _path: None,
        noted={read: False, marked: True, plain: False},
    )
    monkeypatch.undo()
    assert opened == ["read.py", "u.py"]
    assert noted == frozenset({marked, unscanned})
    rows = {Path(r[0]).name: r for r in json.loads(cache.path.read_text("utf-8"))["files"]}
    assert [rows[n][5][:1] for n in ("read.py", "m.py", "p.py")] == ["t", "", ""]
    assert [rows[n][6] for n in ("read.py", "m.py", "p.py", "u.py")] == [False, True, False, True]
    hit = cache.load(files, lambda text: "needle" in text, lambda text: "MARK" in text)
    assert hit is not None and hit.payload == {"answer": 7}
    assert hit.noted == frozenset({marked, unscanned})
