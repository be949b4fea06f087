"""A stored file row is trusted by its stat (mtime, size, ctime, inode) only when every
field is as recorded and none is as recent as the entry (the racy window); any other
row sends the cache back to the file's content. Checked by editing the stored row."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import gatecheck.cache
from gatecheck.cache import RunCache

# Row fields: [name, mtime_ns, size, ctime_ns, inode, digest, noted].
FIELDS = {"mtime": 1, "size": 2, "ctime": 3, "inode": 4}
HOUR = 3600 * 10**9


@pytest.mark.parametrize(
    ("changed", "racy", "reread"),
    [
        pytest.param(None, False, False, id="as-recorded"),
        pytest.param("mtime", False, True, id="mtime"),
        pytest.param("size", False, True, id="size"),
        pytest.param("ctime", False, True, id="ctime"),
        pytest.param("inode", False, True, id="inode"),
        pytest.param(None, True, True, id="as-recorded-but-racy"),
    ],
)
def test_a_row_is_trusted_by_its_whole_stat_only(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    changed: str | None,
    racy: bool,
    reread: bool,
) -> None:
    source = tmp_path / "mod.py"
    source.write_text("X = 1\n", encoding="utf-8")
    cache = RunCache(tmp_path, "check", "d" * 64)
    cache.store([source], [source], {"answer": 1})
    entry = json.loads(cache.path.read_text("utf-8"))
    row = entry["files"][0]
    if changed is not None:
        row[FIELDS[changed]] += 1
    # The entry written an hour after the file (its stat trusted), or just as it changed.
    newest = max(row[1], row[3])
    entry["written_ns"] = newest + (0 if racy else HOUR)
    cache.path.write_text(json.dumps(entry), encoding="utf-8")
    read: list[Path] = []
    real = gatecheck.cache.safe_io.read_regular

    def counted(path: Path, *args: object, **kwargs: object) -> bytes:
        read.append(Path(path))
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(gatecheck.cache.safe_io, "read_regular", counted)
    found = cache.load([source], lambda text: False)
    assert found is not None and found.payload == {"answer": 1}  # same content: still valid
    assert (source in read) is reread
