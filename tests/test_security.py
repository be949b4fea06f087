"""Security (issue #8): the analysed code is never imported or executed, rule files are
loaded as plain data only, and --fix writes only inside the scanned root, never through a
link leading out of it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gatecheck.cli import cli
from tests.conftest import FAST_THING_RULE, REPO

RULE = FAST_THING_RULE

GATE = """\
import torch
from pkg.utils import is_sm90_supported, is_sm100_supported

class Args:
    enable_fast_thing: bool = False

    def adjust(self):
        if is_sm90_supported() or is_sm100_supported():
            self.enable_fast_thing = True
"""

UTILS = """\
import torch

def _major():
    return torch.cuda.get_device_capability()[0]

def is_sm90_supported():
    return _major() == 9

def is_sm100_supported():
    return _major() == 10

def is_sm120_supported():
    return _major() == 12
"""


def _trap(marker: Path, where: str) -> str:
    """Top-level code that leaves a trace if the module is ever imported or run."""
    return (
        "import os as _os\n"
        f"with open({str(marker)!r}, 'a') as _f:\n"
        f"    _f.write({where!r} + '\\n')\n"
        "_os.system('true')\n"
    )


def _trapped_project(tmp_path: Path) -> tuple[Path, Path, Path]:
    marker = tmp_path / "executed"
    root = tmp_path / "proj"
    files = {
        "pkg/__init__.py": _trap(marker, "pkg/__init__.py"),
        "pkg/utils.py": _trap(marker, "pkg/utils.py") + UTILS,
        "pkg/gate.py": _trap(marker, "pkg/gate.py") + GATE,
        "pkg/__main__.py": _trap(marker, "pkg/__main__.py"),
        "sitecustomize.py": _trap(marker, "sitecustomize.py"),
        "usercustomize.py": _trap(marker, "usercustomize.py"),
        "conftest.py": _trap(marker, "conftest.py"),
        "setup.py": _trap(marker, "setup.py"),
        "torch/__init__.py": _trap(marker, "torch/__init__.py"),
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    rules = tmp_path / "rules.yaml"
    rules.write_text(RULE)
    return root, rules, marker


COMMANDS = [
    pytest.param(["check"], 1, id="check"),
    pytest.param(["check", "--format", "json"], 1, id="check-json"),
    pytest.param(["check", "--diff"], 1, id="check-diff"),
    pytest.param(["check", "--fix"], 0, id="check-fix"),
    pytest.param(["explain", "fast-thing"], 0, id="explain"),
    pytest.param(["audit", "--generation", "sm120"], None, id="audit"),
]


def _args(command: list[str], root: Path, rules: Path) -> list[str]:
    if command[0] == "explain":
        return [*command, str(root), "--rules", str(rules)]
    return [command[0], str(root), "--rules", str(rules), *command[1:]]


@pytest.mark.parametrize(("command", "exit_code"), COMMANDS)
def test_target_code_is_never_executed_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str], exit_code: int | None
) -> None:
    root, rules, marker = _trapped_project(tmp_path)
    # The scanned root on sys.path and as the working directory: even so, nothing is imported.
    monkeypatch.chdir(root)
    monkeypatch.syspath_prepend(str(root))
    modules_before = set(sys.modules)

    result = CliRunner().invoke(cli, _args(command, root, rules))

    if "No such command" in result.output:
        pytest.skip(f"no `{command[0]}` command in this build")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    if exit_code is not None:
        assert result.exit_code == exit_code, result.output
    assert not marker.exists(), marker.read_text()
    assert not {"pkg", "pkg.gate", "pkg.utils", "sitecustomize"} & (
        set(sys.modules) - modules_before
    )


@pytest.mark.parametrize(("command", "exit_code"), COMMANDS)
def test_target_code_is_never_executed_by_the_command(
    tmp_path: Path, command: list[str], exit_code: int | None
) -> None:
    root, rules, marker = _trapped_project(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(REPO)}

    # Run from the scanned root, as a developer would.
    result = subprocess.run(
        [sys.executable, "-P", "-m", "gatecheck", *_args(command, root, rules)],
        capture_output=True,
        text=True,
        cwd=root,
        env=env,
        timeout=120,
    )

    if "No such command" in result.stderr:
        pytest.skip(f"no `{command[0]}` command in this build")
    assert "Traceback" not in result.stderr
    if exit_code is not None:
        assert result.returncode == exit_code, result.stderr
    assert not marker.exists(), marker.read_text()


def test_fix_really_fixed_the_trapped_project(tmp_path: Path) -> None:
    """The no-execution test above is only meaningful if the gate was analysed and fixed."""
    root, rules, marker = _trapped_project(tmp_path)

    result = CliRunner().invoke(cli, ["check", str(root), "--rules", str(rules), "--fix"])

    assert result.exit_code == 0, result.output
    assert "is_sm120_supported()" in (root / "pkg" / "gate.py").read_text()
    assert not marker.exists()


def test_yaml_python_tag_is_rejected_not_run(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    rules = tmp_path / "evil.yaml"
    rules.write_text(
        f"features:\n  - !!python/object/apply:os.system ['touch {marker}']\n"
        f"vocabulary: !!python/object/new:os.system ['touch {marker}']\n"
    )
    root, _rules, _marker = _trapped_project(tmp_path)

    result = CliRunner().invoke(cli, ["check", str(root), "--rules", str(rules)])

    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"{rules}:2:5: unsupported YAML tag '!!python/object/apply:os.system': "
        "rule files hold plain data only",
        f"{rules}:3:13: unsupported YAML tag '!!python/object/new:os.system': "
        "rule files hold plain data only",
    ]
    assert not marker.exists()


# --- --fix stays inside the root ------------------------------------------------------------


def _outside_gate(tmp_path: Path) -> tuple[Path, Path, Path]:
    root, rules, _marker = _trapped_project(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / "gate.py"
    target.write_text(GATE)
    return root, rules, target


@pytest.mark.parametrize("mode", ["--fix", "--diff"])
def test_fix_never_follows_a_file_link_out_of_the_root(tmp_path: Path, mode: str) -> None:
    root, rules, target = _outside_gate(tmp_path)
    (root / "pkg" / "linked_gate.py").symlink_to(target)
    before = target.read_bytes()

    result = CliRunner().invoke(cli, ["check", str(root), "--rules", str(rules), mode])

    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert target.read_bytes() == before
    assert (root / "pkg" / "linked_gate.py").is_symlink()
    assert "linked_gate.py" not in result.stdout  # not read, so neither reported nor fixed


def test_fix_never_follows_a_folder_link_out_of_the_root(tmp_path: Path) -> None:
    root, rules, target = _outside_gate(tmp_path)
    (root / "pkg" / "vendored").symlink_to(target.parent, target_is_directory=True)
    before = target.read_bytes()

    CliRunner().invoke(cli, ["check", str(root), "--rules", str(rules), "--fix"])

    assert target.read_bytes() == before


def test_fix_through_a_link_inside_the_root_rewrites_the_target(tmp_path: Path) -> None:
    """A link to a file in the root is fixed in its target; the link stays a link
    (renaming over it would turn it into a copy and leave the real file unfixed)."""
    root, rules, _marker = _trapped_project(tmp_path)
    gate = root / "pkg" / "gate.py"
    link = root / "pkg" / "a_gate_link.py"  # sorts first: the file is found as the link
    link.symlink_to("gate.py")

    result = CliRunner().invoke(cli, ["check", str(root), "--rules", str(rules), "--fix"])

    assert result.exit_code == 0, result.output
    assert link.is_symlink()
    assert "is_sm120_supported()" in gate.read_text()


def test_write_changes_refuses_a_path_outside_the_roots(tmp_path: Path) -> None:
    """Belt and braces below discovery: a change planned for a file whose real path is
    outside every root is not written."""
    from gatecheck.config.loader import load_ruleset
    from gatecheck.engine import analyse
    from gatecheck.fixing.fixer import plan_fixes, write_changes

    root, rules, target = _outside_gate(tmp_path)
    ruleset = load_ruleset([rules])
    report = plan_fixes(analyse([root], ruleset), ruleset, [root])
    [(path, change)] = list(report.changes.items())
    report.changes = {target: change}  # as if the file had been swapped for a link
    before = target.read_bytes()

    write_changes(report, [root])

    assert target.read_bytes() == before
    assert report.not_written == [(target, "outside the scanned root; not written")]
    assert "is_sm120" not in path.read_text()  # and nothing written in the root either


# --- --fix never loses an edit or a file's metadata (issue #15) ------------------------------

FIXABLE = """\
import torch


class Args:
    enable_fast_thing: bool = False

    def adjust(self):
        major, minor = torch.cuda.get_device_capability()
        if major in (9, 10):
            self.enable_fast_thing = True
"""
FIXED = FIXABLE.replace("(9, 10)", "(9, 10, 12)")
EDIT = "# saved by an editor meanwhile\n"


def _fixable(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "proj"
    root.mkdir(parents=True)
    (root / "gate.py").write_text(FIXABLE)
    (tmp_path / "rules.yaml").write_text(RULE)
    return root, root / "gate.py"


def _planned(tmp_path: Path, root: Path):  # type: ignore[no-untyped-def]
    from gatecheck.config.loader import load_ruleset
    from gatecheck.engine import analyse
    from gatecheck.fixing.fixer import plan_fixes

    ruleset = load_ruleset([tmp_path / "rules.yaml"])
    return plan_fixes(analyse([root], ruleset), ruleset, [root])


def _write(tmp_path: Path, root: Path, force: bool = False) -> tuple[list[Path], list[str]]:
    from gatecheck.fixing.fixer import write_changes

    report = _planned(tmp_path, root)
    write_changes(report, [root], force=force)
    return report.written, [why for _path, why in report.not_written]


def test_an_edit_saved_before_the_swap_is_kept(tmp_path: Path) -> None:
    """Compare-and-swap, first half: the content is hashed again right before the rename."""
    from gatecheck import safe_io

    root, gate = _fixable(tmp_path)
    staged = safe_io.stage(gate, FIXED.encode(), safe_io.digest(FIXABLE.encode()))
    with gate.open("a") as editor:
        editor.write(EDIT)

    with pytest.raises(safe_io.Conflict, match="changed on disk since it was read"):
        staged.commit()
    staged.discard()

    assert gate.read_text() == FIXABLE + EDIT
    assert not list(root.glob(".*.gatecheck"))


def test_an_edit_written_during_the_swap_is_restored(tmp_path: Path) -> None:
    """Second half: a writer that had the file open and wrote right as it was replaced
    wrote into the old file; its content goes back in place, and the fix is reported
    as not written."""
    from gatecheck import safe_io

    _root, gate = _fixable(tmp_path)
    staged = safe_io.stage(gate, FIXED.encode(), safe_io.digest(FIXABLE.encode()))
    old = staged.check_unchanged()
    editor = gate.open("a")  # opened before the swap: writes land in the old file
    staged.swap()
    editor.write(EDIT)
    editor.close()

    with pytest.raises(safe_io.Conflict, match="changed on disk while being written"):
        staged.check_swapped(old)
    os.close(old)

    assert gate.read_text() == FIXABLE + EDIT


@pytest.mark.parametrize("when", ["before the check", "through the old file after the swap"])
def test_an_edit_made_while_the_fix_is_written_is_never_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    """The adversarial case of issue #15 (4 of 5 edits lost): another process edits the
    file while gatecheck's temporary file exists. Its edit must survive, at each point it
    can land: after the temporary file appears and before the compare-and-swap's check,
    or through a descriptor opened on the old file before the swap and written after it.
    The edit is made at that point, not by a racing thread: a thread's timing made this
    test fail under load on a window no compare-and-swap can see (a writer that holds the
    old file open and writes after the last check)."""
    from gatecheck import safe_io
    from gatecheck.fixing.fixer import write_changes

    root, gate = _fixable(tmp_path)
    report = _planned(tmp_path, root)
    check, swap = safe_io.Staged.check_unchanged, safe_io.Staged.swap

    def edit_then_check(staged: safe_io.Staged) -> int:
        assert list(root.glob(".gate.py.*.gatecheck"))  # the temporary file is there
        with gate.open("a") as editor:
            editor.write(EDIT)
        return check(staged)

    def swap_under_an_open_editor(staged: safe_io.Staged) -> None:
        with gate.open("a") as editor:  # opened on the old file
            swap(staged)
            editor.write(EDIT)

    if when == "before the check":
        monkeypatch.setattr(safe_io.Staged, "check_unchanged", edit_then_check)
    else:
        monkeypatch.setattr(safe_io.Staged, "swap", swap_under_an_open_editor)
    write_changes(report, [root])

    assert gate.read_text().endswith(EDIT)
    assert report.written == []
    assert report.not_written
    assert not list(root.glob(".gate.py.*.gatecheck"))  # nothing left behind


def test_fix_keeps_owner_group_and_extended_attributes(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to give the file another owner")
    root, gate = _fixable(tmp_path)
    os.chown(gate, 65534, 65534)
    os.chmod(gate, 0o640)
    try:
        os.setxattr(gate, "user.reviewed", b"yes")
    except OSError as err:
        pytest.skip(f"no user xattrs on this file system: {err.strerror}")

    written, _ = _write(tmp_path, root)

    info = gate.stat()
    assert written == [gate]
    assert gate.read_text() == FIXED
    assert (info.st_uid, info.st_gid, info.st_mode & 0o777) == (65534, 65534, 0o640)
    assert os.getxattr(gate, "user.reviewed") == b"yes"


def test_fix_refuses_a_hard_linked_file_unless_forced(tmp_path: Path) -> None:
    """The twin would keep the old gate: say so, write nothing; --force writes (and the
    twin keeps the old text, as asked)."""
    root, gate = _fixable(tmp_path)
    twin = tmp_path / "twin.py"
    os.link(gate, twin)

    written, reasons = _write(tmp_path, root)

    assert written == []
    assert reasons == [
        "has 2 hard links (the others would keep the old text); "
        "not written (use --force to write it anyway)"
    ]
    assert gate.read_text() == FIXABLE

    written, reasons = _write(tmp_path, root, force=True)

    assert (written, reasons) == ([gate], [])
    assert gate.read_text() == FIXED


def test_fix_refuses_a_read_only_file_unless_forced(tmp_path: Path) -> None:
    """Mode 0444 says "do not edit", even to root (who could): the reason is shown, the
    file kept; with --force it is rewritten and stays 0444."""
    root, gate = _fixable(tmp_path)
    os.chmod(gate, 0o444)

    result = CliRunner().invoke(
        cli, ["check", str(root), "--rules", str(tmp_path / "rules.yaml"), "--fix"]
    )

    assert result.exit_code == 1
    assert "not writable (mode 0444); not written (use --force" in result.stderr
    assert "(0 files written, 1 not)" in result.stderr
    assert gate.read_text() == FIXABLE

    written, _ = _write(tmp_path, root, force=True)

    assert written == [gate]
    assert gate.read_text() == FIXED
    assert gate.stat().st_mode & 0o777 == 0o444


# --- safe_io.read_regular: what may be read at all -----------------------------------------


def _special(tmp_path: Path, kind: str) -> Path:
    path = tmp_path / kind
    if kind == "fifo":
        os.mkfifo(path)  # opened without O_NONBLOCK this would wait for a writer forever
    elif kind == "folder":
        path.mkdir()
    elif kind == "big":
        path.write_bytes(b"x" * 2_000_000)
    elif kind == "link":
        (tmp_path / "target").write_text("x")
        path.symlink_to(tmp_path / "target")
    else:
        return Path("/dev/zero")  # reads forever
    return path


@pytest.mark.parametrize(
    ("kind", "follow", "why"),
    [
        pytest.param("fifo", True, "a FIFO, not a regular file", id="fifo"),
        pytest.param("device", True, "a device, not a regular file", id="dev-zero"),
        pytest.param("folder", True, "a directory, not a regular file", id="folder"),
        pytest.param("big", True, "larger than 1 MiB", id="over-the-cap"),
        pytest.param("link", False, "a symbolic link (not followed)", id="link-not-followed"),
    ],
)
def test_read_regular_refuses(tmp_path: Path, kind: str, follow: bool, why: str) -> None:
    from gatecheck import safe_io

    with pytest.raises(OSError) as raised:
        safe_io.read_regular(_special(tmp_path, kind), 1024 * 1024, follow=follow)
    assert raised.value.strerror == why


def test_read_regular_reads_a_file_and_a_link_when_asked(tmp_path: Path) -> None:
    from gatecheck import safe_io

    assert safe_io.read_regular(_special(tmp_path, "link"), 10) == b"x"
