"""Source text as bytes: positions from astroid (line, UTF-8 byte column) to offsets in the
file's raw bytes, edits applied back to front, and atomic writes that keep the file's
encoding, BOM, line endings and mode."""

from __future__ import annotations

import codecs
import itertools
import os
import stat
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gatecheck.findings import Edit
from gatecheck.loading.project import SourceFile


class OverlappingEdits(ValueError):
    pass


@dataclass(frozen=True)
class RawText:
    """A file's raw bytes with a line index; astroid positions are into the decoded text
    without BOM, with columns counted in UTF-8 bytes."""

    path: Path
    raw: bytes
    encoding: str

    @property
    def bom(self) -> bytes:
        return codecs.BOM_UTF8 if self.raw.startswith(codecs.BOM_UTF8) else b""

    @property
    def newline(self) -> str:
        return "\r\n" if b"\r\n" in self.raw else "\n"

    def line_starts(self) -> list[int]:
        starts = [len(self.bom)]
        for index, byte in enumerate(self.raw):
            if byte == 0x0A:
                starts.append(index + 1)
        return starts

    def line_bytes(self, line: int) -> bytes:
        starts = self.line_starts()
        start = starts[line - 1]
        end = starts[line] if line < len(starts) else len(self.raw)
        return self.raw[start:end]

    def line_text(self, line: int) -> str:
        return self.line_bytes(line).decode(self.encoding).rstrip("\r\n")

    def offset(self, line: int, utf8_column: int) -> int:
        """Byte offset into raw of astroid's (line, col_offset)."""
        start = self.line_starts()[line - 1]
        if self.encoding.lower().replace("_", "-") in ("utf-8", "utf-8-sig"):
            return start + utf8_column
        # Other encodings: the column counts UTF-8 bytes of the decoded line.
        text = self.line_bytes(line).decode(self.encoding)
        prefix = text.encode("utf-8")[:utf8_column].decode("utf-8", errors="ignore")
        return start + len(prefix.encode(self.encoding))

    def encode(self, text: str) -> bytes:
        return text.encode(self.encoding.replace("-sig", ""))


def raw_text(source: SourceFile) -> RawText:
    return RawText(source.path, source.raw, source.encoding)


def apply_edits(raw: bytes, edits: Sequence[Edit], encoding: str) -> bytes:
    """Apply edits back to front so earlier offsets stay valid; overlaps are refused."""
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    for before, after in itertools.pairwise(ordered):
        if after.start < before.end or (after.start == before.end == after.end == before.start):
            raise OverlappingEdits(f"edits overlap at byte {after.start}")
    out = raw
    codec = encoding.replace("-sig", "")
    for edit in reversed(ordered):
        out = out[: edit.start] + edit.text.encode(codec) + out[edit.end :]
    return out


def write_atomic(path: Path, data: bytes) -> None:
    """Temp file in the same folder, then rename: never a half-written file. Keeps mode."""
    # Through a link, rewrite its target: renaming over the link would turn it into a copy
    # and leave the real file unfixed. (write_changes checks the target is inside a root.)
    path = path.resolve()
    mode = stat.S_IMODE(path.stat().st_mode)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".gatecheck", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
