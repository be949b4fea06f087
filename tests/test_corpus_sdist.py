"""scripts/corpus.py: a release published as an sdist only is unpacked like a wheel (its
top folder dropped), and nothing in the archive is written outside the target."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from scripts.corpus import _sdist_name, _unpack_sdist


def _archive(path: Path, members: dict[str, bytes], links: dict[str, str]) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        for name, target in links.items():
            info = tarfile.TarInfo(name)
            info.type = tarfile.SYMTYPE
            info.linkname = target
            archive.addfile(info)
    return path


@pytest.mark.parametrize(
    ("name", "version", "expected"),
    [
        ("flashinfer-python", "0.3.1", "flashinfer_python-0.3.1.tar.gz"),
        ("Foo.Bar", "1.0", "foo_bar-1.0.tar.gz"),
    ],
)
def test_sdist_name(name: str, version: str, expected: str) -> None:
    assert _sdist_name(name, version) == expected


@pytest.mark.parametrize(
    ("only_python", "kept"), [(True, ["pkg/a.py"]), (False, ["data.bin", "pkg/a.py"])]
)
def test_unpacked_without_its_top_folder(
    tmp_path: Path, only_python: bool, kept: list[str]
) -> None:
    archive = _archive(
        tmp_path / "pkg-1.0.tar.gz",
        {"pkg-1.0/pkg/a.py": b"x = 1\n", "pkg-1.0/data.bin": b"\0"},
        {},
    )
    target = tmp_path / "out"
    _unpack_sdist(archive, target, only_python)
    found = sorted(p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file())
    assert found == kept


def test_nothing_written_outside_the_target(tmp_path: Path) -> None:
    # Refused: a member climbing out of the target, and a link (it could point anywhere).
    archive = _archive(
        tmp_path / "pkg-1.0.tar.gz",
        {"pkg-1.0/../../evil.py": b"", "pkg-1.0/ok.py": b""},
        {"pkg-1.0/link.py": "/etc/passwd"},
    )
    target = tmp_path / "deep" / "out"
    _unpack_sdist(archive, target, True)
    assert sorted(p.name for p in tmp_path.rglob("*.py")) == ["ok.py"]
