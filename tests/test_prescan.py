"""The scan of every file a cold `check` makes in a forked child while it imports the
analysis (gatecheck/loading/prescan.py): the answer is the one the run would find reading
the files itself, a child that fails costs only time, and a search the scan answered
reads no file."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from gatecheck import forking
from gatecheck.loading import prescan
from gatecheck.loading.prescan import PendingScan, TextScan, scan_texts, start_scan
from gatecheck.loading.project import Project

needs_fork = pytest.mark.skipif(not forking.can_fork(), reason="no os.fork on this system")

FILES: dict[str, bytes] = {
    "a.py": b"if enable_fusion and major == 9:\n    pass\n",
    "b.py": b"parser.add_argument('--enable-fusion')\n",
    "c.py": b"x = 1  # gatecheck: ignore[GC001]\n",
    "d.py": b"# -*- coding: latin-1 -*-\nname = '\xe9'  # enable_fusion\n",
    "nul.py": b"x = 1\x00\n",
    "wide.py": b"\xff\xfex\x00",
    "plain.py": b"y = 2\n",
}
GROUPS = [["enable_fusion", "fusion_backend"], ["--enable-fusion"], ["gatecheck: ignore"]]


def _write(tmp_path: Path, files: Mapping[str, bytes]) -> list[Path]:
    paths = []
    for name, data in files.items():
        path = tmp_path / name
        path.write_bytes(data)
        paths.append(path)
    return paths


def _names(scan: TextScan, needles: list[str]) -> list[str] | None:
    found = scan.files_holding(needles)
    return None if found is None else [p.name for p in found]


@pytest.mark.parametrize(
    ("needles", "expected"),
    [
        # Decoded as the run decodes (a coding cookie), in the files' order.
        (["enable_fusion", "fusion_backend"], ["a.py", "d.py"]),
        # The same group in another order, or with a needle twice, is the same key.
        (["fusion_backend", "enable_fusion", "enable_fusion"], ["a.py", "d.py"]),
        (["--enable-fusion"], ["b.py"]),
        (["gatecheck: ignore"], ["c.py"]),
        # A group the scan did not look for: no answer (the caller reads the files).
        (["enable_fusion"], None),
    ],
)
def test_scan_answers_each_group(
    tmp_path: Path, needles: list[str], expected: list[str] | None
) -> None:
    scan = scan_texts(_write(tmp_path, FILES), GROUPS)
    assert _names(scan, needles) == expected


def test_unreadable_files_are_the_ones_text_of_cannot_read(tmp_path: Path) -> None:
    files = _write(tmp_path, FILES)
    scan = scan_texts(files, GROUPS)
    project = Project(files, (tmp_path,))
    assert [p.name for p in scan.unreadable_files()] == ["nul.py", "wide.py"]
    assert [p.name for p in files if project.text_of(p) is None] == ["nul.py", "wide.py"]


def test_overrides_are_read_instead_of_the_files(tmp_path: Path) -> None:
    files = _write(tmp_path, FILES)
    scan = scan_texts(files, GROUPS, {files[-1]: b"enable_fusion = True\n"})
    assert _names(scan, GROUPS[0]) == ["a.py", "d.py", "plain.py"]


@needs_fork
def test_forked_scan_is_the_scan_made_here(tmp_path: Path) -> None:
    files = _write(tmp_path, FILES)
    pending = start_scan(files, GROUPS, min_files=1)
    assert pending is not None and pending.forked
    assert pending.result() == scan_texts(files, GROUPS)


@needs_fork
def test_a_child_that_fails_costs_only_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = _write(tmp_path, FILES)
    parent = os.getpid()
    real: Callable[..., TextScan] = prescan.scan_texts

    def dies_in_the_child(*args: object) -> TextScan:
        if os.getpid() != parent:
            raise MemoryError("the child ran out")
        return real(*args)

    monkeypatch.setattr(prescan, "scan_texts", dies_in_the_child)
    pending = PendingScan(files, GROUPS)
    assert pending.forked
    assert pending.result() == real(files, GROUPS)


@pytest.mark.parametrize(
    ("count", "min_files", "started"),
    [(3, 4, False), (4, 4, True), (0, 1, False)],
)
def test_too_few_files_are_read_by_the_run_itself(
    tmp_path: Path, count: int, min_files: int, started: bool
) -> None:
    files = _write(tmp_path, {f"m{i}.py": b"x = 1\n" for i in range(count)})
    pending = start_scan(files, GROUPS, min_files=min_files)
    assert (pending is not None) is (started and forking.can_fork())
    if pending is not None:
        assert pending.result() == scan_texts(files, GROUPS)


def test_an_offered_group_is_answered_without_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = _write(tmp_path, FILES)
    project = Project(files, (tmp_path,))
    project.offer(scan_texts(files, GROUPS))
    # Offered, not searched: a cached run checks changed files only for searched needles.
    assert project.searched_needles() == set()
    read: list[Path] = []
    monkeypatch.setattr(project, "text_of", lambda path: read.append(path))
    assert [p.name for p in project.files_mentioning(["--enable-fusion"])] == ["b.py"]
    assert read == []
    assert project.searched_needles() == {"--enable-fusion"}


def test_a_group_not_offered_is_searched_in_the_files(tmp_path: Path) -> None:
    files = _write(tmp_path, FILES)
    project = Project(files, (tmp_path,))
    project.offer(scan_texts(files, GROUPS))
    assert [p.name for p in project.files_mentioning(["y = "])] == ["plain.py"]


def test_text_held_never_reads(tmp_path: Path) -> None:
    files = _write(tmp_path, FILES)
    project = Project(files, (tmp_path,))
    assert project.text_held(files[0]) is None
    text = project.text_of(files[0])
    assert text is not None and project.text_held(files[0]) == text
