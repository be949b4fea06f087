"""The on-disk cache, `.gatecheck_cache/` at the project root: a run's result, reused while
nothing the analysis read has changed.

An entry is keyed by gatecheck's version, the rules (registry included) by content, the
analysis options and the kernel libraries gatecheck can read. It records every scanned
file (path, mtime_ns, size, sha256), which of them were parsed into trees, and the result.
It is valid when the same files are found and, for each file whose stat changed, either
the content is the same (sha256), or the file was never parsed and its new text still does
not pass the run's text prefilter (so it would still not be parsed: the result stands).

Safe by construction: an unreadable, corrupt or foreign entry is ignored and rebuilt;
entries are written to a temporary file and renamed into place, so concurrent runs never
see half an entry (the last writer wins). Files whose mtime is as recent as the entry are
always hashed (a same-size edit within the clock's granularity would not change the stat).
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import functools
import hashlib
import json
import os
import tempfile
import time
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gatecheck import __version__
from gatecheck.loading.project import read_source

CACHE_DIR = ".gatecheck_cache"
_FORMAT = 3
# Entries written less than this before a file's mtime cannot trust its stat.
_RACY_NS = 2_000_000_000


def cache_key(kind: str, **material: object) -> str:
    """A digest of everything besides file contents that decides the result."""
    data = {"format": _FORMAT, "version": __version__, "kind": kind, **material}
    text = json.dumps(data, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def content_digest(paths: Iterable[Path]) -> str:
    """sha256 over files' names and contents (rules, a kernel library's tree)."""
    digest = hashlib.sha256()
    for path in sorted(paths):
        digest.update(str(path).encode("utf-8", "surrogateescape") + b"\0")
        try:
            digest.update(path.read_bytes())
        except OSError as err:
            digest.update(f"unreadable: {err.strerror}".encode())
        digest.update(b"\0")
    return digest.hexdigest()


def _nothing(text: str) -> bool:
    return False


def _digest(text: str | None, raw: bytes | None) -> str:
    """sha256 of what the analysis reads: the decoded text (an encoding cookie or a BOM
    that changes nothing read changes nothing), else the bytes."""
    if text is not None:
        return "t" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return "b" + hashlib.sha256(raw or b"").hexdigest()


def _text(path: Path, raw: bytes) -> str | None:
    try:
        return read_source(path, raw).text
    except (ValueError, SyntaxError, LookupError):
        return None


@dataclass(frozen=True)
class Hit:
    payload: Any
    noted: frozenset[Path]


class RunCache:
    """One entry of the cache: `load` returns the stored result when still valid."""

    # Entries of one kind kept (each option set has its own; the least recent go).
    KEEP = 24

    def __init__(self, root: Path, kind: str, key: str) -> None:
        self.folder = root / CACHE_DIR
        self.kind = kind
        self.key = key
        self.path = self.folder / f"{kind}-{key[:24]}.json"

    def load(
        self,
        files: Sequence[Path],
        prefilter: Callable[[str], bool],
        note: Callable[[str], bool] = _nothing,
        prepare: Callable[[Any], None] | None = None,
    ) -> Hit | None:
        """The stored result if still valid. `note` must be the one given to `store`: the
        hit lists the files whose text it holds for (kept per file, so a later run need
        not read the others, e.g. to look for suppression comments). `prepare` sees the
        stored payload before any file is checked (the prefilter may depend on it)."""
        try:
            entry = json.loads(self.path.read_text(encoding="utf-8"))
            if prepare is not None and entry.get("key") == self.key:
                prepare(entry["payload"])
            hit = self._validate(entry, files, prefilter, note)
        except (OSError, ValueError, TypeError, KeyError, IndexError, AttributeError):
            return None  # missing, corrupt or foreign: analyse and rebuild
        if hit is not None:
            with contextlib.suppress(OSError):
                os.utime(self.path)  # recently used: kept when older entries are pruned
        return hit

    def _validate(
        self,
        entry: dict[str, Any],
        files: Sequence[Path],
        prefilter: Callable[[str], bool],
        note: Callable[[str], bool],
    ) -> Hit | None:
        if entry["format"] != _FORMAT or entry["key"] != self.key:
            return None
        recorded = entry["files"]
        if [row[0] for row in recorded] != [str(p) for p in files]:
            return None  # a file added, removed or renamed: module names may resolve anew
        parsed = set(entry["parsed"])
        written = int(entry["written_ns"])
        updated = False
        for row, path in zip(recorded, files, strict=True):
            name, mtime_ns, size, digest, noted = row
            try:
                stat = path.stat()
            except OSError:
                return None
            racy = mtime_ns >= written - _RACY_NS
            if (stat.st_mtime_ns, stat.st_size) == (mtime_ns, size) and not racy:
                continue
            raw = path.read_bytes()
            text = _text(path, raw)
            new_digest = _digest(text, raw)
            if new_digest != digest:
                if name in parsed or text is None or prefilter(text):
                    return None
                noted = note(text)
            fresh = [stat.st_mtime_ns, stat.st_size, new_digest, bool(noted)]
            if fresh != row[1:]:
                row[1:] = fresh
                updated = True
        if updated:
            entry["written_ns"] = time.time_ns()
            self._write(entry)
        noted_files = frozenset(p for row, p in zip(recorded, files, strict=True) if row[4])
        return Hit(entry["payload"], noted_files)

    def store(
        self,
        files: Sequence[Path],
        parsed: Iterable[Path],
        payload: Any,
        note: Callable[[str], bool] = _nothing,
        text_of: Callable[[Path], str | None] | None = None,
    ) -> None:
        """Record the run (best effort: a cache that cannot be written is no error).
        `text_of` may supply the texts the run has read already."""
        written = time.time_ns()
        rows = []
        try:
            for path in files:
                stat = path.stat()
                text = None if text_of is None else text_of(path)
                raw = None
                if text is None:
                    raw = path.read_bytes()
                    text = _text(path, raw)
                digest = _digest(text, raw)
                noted = True if text is None else note(text)  # unreadable: say so, reread
                rows.append([str(path), stat.st_mtime_ns, stat.st_size, digest, noted])
        except OSError:
            return
        entry = {
            "format": _FORMAT,
            "key": self.key,
            "gatecheck": __version__,
            "written_ns": written,
            "files": rows,
            "parsed": sorted(str(p) for p in parsed),
            "payload": payload,
        }
        self._write(entry)
        self._prune()

    def _prune(self) -> None:
        try:
            entries = sorted(
                self.folder.glob(f"{self.kind}-*.json"),
                key=lambda p: p.stat().st_mtime_ns,
                reverse=True,
            )
            for stale in entries[self.KEEP :]:
                stale.unlink()
        except OSError:
            pass  # another run pruned it first

    def _write(self, entry: dict[str, Any]) -> None:
        try:
            self.folder.mkdir(exist_ok=True)
            ignore = self.folder / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# Created by gatecheck: the cache is never committed.\n*\n")
            handle, temporary = tempfile.mkstemp(dir=self.folder, prefix=".entry-")
        except OSError:
            return
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(entry, out, separators=(",", ":"))
            # Atomic: a concurrent run reads the old entry or this one, never half of one.
            os.replace(temporary, self.path)
        except (OSError, TypeError, ValueError):
            with contextlib.suppress(OSError):
                os.unlink(temporary)


# -- results as JSON data: frozen dataclasses, enums, paths and sets, by their type hints ---


def to_data(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_data(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (frozenset, set)):
        return sorted(to_data(v) for v in value)
    if isinstance(value, (tuple, list)):
        return [to_data(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): to_data(v) for k, v in value.items()}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"cannot cache a {type(value).__name__}")


@functools.cache
def _hints(kind: type) -> dict[str, Any]:
    return typing.get_type_hints(kind)  # evaluates every annotation: once per class


def from_data(kind: Any, data: Any) -> Any:
    """The inverse of to_data, guided by `kind` (a class or a type hint)."""
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(kind)
        if data is None and type(None) in options:
            return None
        (only,) = [o for o in options if o is not type(None)]
        return from_data(only, data)
    if origin in (frozenset, set):
        (item,) = typing.get_args(kind)
        return origin(from_data(item, v) for v in data)
    if origin is tuple:
        args = typing.get_args(kind)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(from_data(args[0], v) for v in data)
        return tuple(from_data(a, v) for a, v in zip(args, data, strict=True))
    if origin is list:
        (item,) = typing.get_args(kind)
        return [from_data(item, v) for v in data]
    if origin in (dict, Mapping) or kind is dict:
        args = typing.get_args(kind) or (str, Any)
        return {from_data(args[0], k): from_data(args[1], v) for k, v in data.items()}
    if kind is Any or kind is object:
        return data
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        hints = _hints(kind)
        values = {
            f.name: from_data(hints[f.name], data[f.name])
            for f in dataclasses.fields(kind)
            if f.init and f.name in data
        }
        return kind(**values)
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return kind(data)
    if kind is Path:
        return Path(data)
    if kind in (str, int, float, bool):
        if not isinstance(data, kind):
            raise TypeError(f"expected {kind.__name__}, got {type(data).__name__}")
        return data
    raise TypeError(f"cannot restore a {kind!r}")
