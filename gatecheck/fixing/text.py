"""Source text as bytes: positions from astroid (line, UTF-8 byte column) to offsets in the
file's raw bytes, and edits applied back to front, keeping the file's encoding, BOM and
line endings. (Writing them is gatecheck/safe_io.py's part.)"""

from __future__ import annotations

import codecs
import functools
import itertools
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
        if b"\r\n" in self.raw:
            return "\r\n"
        return "\r" if b"\r" in self.raw and b"\n" not in self.raw else "\n"

    def line_starts(self) -> tuple[int, ...]:
        return self._line_starts

    @functools.cached_property
    def _line_starts(self) -> tuple[int, ...]:
        # Once per text: every position of a fix asks for it (1,000 gates in a file).
        # Python reads source with universal newlines: CR LF, a lone LF and a lone CR
        # (old Mac files) all end a line, and astroid's line numbers count them so.
        starts = [len(self.bom)]
        raw = self.raw
        for index, byte in enumerate(raw):
            if byte == 0x0A or (byte == 0x0D and raw[index + 1 : index + 2] != b"\n"):
                starts.append(index + 1)
        return tuple(starts)

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
