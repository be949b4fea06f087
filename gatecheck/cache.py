"""The on-disk cache, `.gatecheck_cache/` at the project root: a run's result, reused while
nothing the analysis read has changed.

An entry is keyed by gatecheck's own code (a digest of its source files, so a build from
another commit with the same version number never reads it), the rules (registry included)
by content, the analysis options and the kernel libraries gatecheck can read. It records
every scanned file (path, mtime_ns, size, ctime_ns, inode, sha256), which of them were
parsed into trees, and the result. It is valid when the same files are found and, for each
file whose stat changed, either the content is the same (sha256), or the file was never
parsed and its new text still does not pass the run's text prefilter (so it would still not
be parsed: the result stands). The stat includes ctime and inode, which no `cp -p`, `rsync
-a` or `tar x` restores: a same-size edit with its old mtime is still seen.

Safe by construction, also in a repository nobody vetted (a pull request in CI): the
cache folder is used only when it is a real folder, never a symbolic link (a warning
says so and the run goes on uncached), and every file in it is opened relative to that
folder without following links. An unreadable, corrupt, oversized or foreign entry is
ignored and rebuilt; entries are written to a temporary file and renamed into place, so
concurrent runs never see half an entry (the last writer wins). Only files the cache
wrote (its name pattern, its own first bytes) are ever pruned. Files whose mtime or
ctime is as recent as the entry are always hashed (a same-size edit within the clock's
granularity would not change the stat).
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import errno
import functools
import hashlib
import json
import os
import re
import stat
import time
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gatecheck import __version__, safe_io
from gatecheck.loading.project import read_source

CACHE_DIR = ".gatecheck_cache"
_FORMAT = 4
# Entries written less than this before a file's mtime cannot trust its stat.
_RACY_NS = 2_000_000_000
_TEMP_PREFIX = ".entry-"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_BIG = 2**63  # stat fields and times are below this


@functools.cache
def code_digest() -> str:
    """A digest of gatecheck's own source files: the same version number can be many
    commits (a pre-commit `rev:` sha, an editable install), each answering differently.
    Read once per process (a run's rules and its analysis both ask): the code running
    does not change under it."""
    return package_digest(Path(__file__).resolve().parent, time.time_ns())


def package_digest(package: Path, now_ns: int) -> str:
    """sha256 over the `.py` files under `package`: their stats (name, size, mtime, ctime,
    inode: a write changes the ctime, which no tool sets back), as the cache judges the
    scanned files; their contents when one was changed in the last `_RACY_NS` before
    `now_ns`, where a second write could keep the same stamps (git's racy-index rule).
    Stats are a tenth of reading the files, on every run answered from the cache."""
    # os.walk, not Path.rglob: a third of the time on a run answered from the cache.
    top = str(package)
    # os.walk's folders all start with `top` (relpath, which makes both paths absolute
    # first, was most of this function's time).
    found: list[tuple[str, str]] = []
    for folder, folders, names in os.walk(top):
        folders[:] = [f for f in folders if f != "__pycache__"]  # bytecode: no source
        for name in names:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                found.append((path[len(top) + 1 :], path))
    found.sort()
    rows: list[list[object]] = []
    for rel, path in found:
        try:
            info = os.stat(path)
        except OSError as err:
            rows.append([rel, f"unreadable: {err.strerror}"])
            continue
        if max(info.st_mtime_ns, info.st_ctime_ns) > now_ns - _RACY_NS:
            return _contents_digest(package, [p for _, p in found])
        rows.append([rel, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino])
    return "stat:" + hashlib.sha256(json.dumps(rows).encode("utf-8")).hexdigest()


def _contents_digest(package: Path, paths: list[str]) -> str:
    digest = hashlib.sha256()
    for path in paths:
        digest.update(Path(path).relative_to(package).as_posix().encode("utf-8") + b"\0")
        try:
            digest.update(Path(path).read_bytes())
        except OSError as err:
            digest.update(f"unreadable: {err.strerror}".encode())
        digest.update(b"\0")
    return "content:" + digest.hexdigest()


def cache_key(kind: str, **material: object) -> str:
    """A digest of everything besides file contents that decides the result."""
    data = {
        "format": _FORMAT,
        "version": __version__,
        "code": code_digest(),
        "kind": kind,
        **material,
    }
    text = json.dumps(data, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def content_digest(paths: Iterable[Path]) -> str:
    """sha256 over files' names and contents (rules, a kernel library's tree)."""
    digest = hashlib.sha256()
    for path in sorted(paths):
        digest.update(str(path).encode("utf-8", "surrogateescape") + b"\0")
        try:
            digest.update(safe_io.read_regular(path, safe_io.CONFIG_BYTES))
        except OSError as err:
            digest.update(f"unreadable: {err.strerror}".encode())
        digest.update(b"\0")
    return digest.hexdigest()


def unusable_folder(root: Path) -> str | None:
    """Why `root`'s cache folder must not be used (None: it is a folder, or absent)."""
    folder = root / CACHE_DIR
    try:
        info = folder.lstat()
    except FileNotFoundError:
        return None
    except OSError as err:
        return f"{folder} cannot be read ({err.strerror})"
    if stat.S_ISLNK(info.st_mode):
        return f"{folder} is a symbolic link, never followed"
    if not stat.S_ISDIR(info.st_mode):
        return f"{folder} is not a folder"
    return None


# The digest of a file the run did not read: equal to no text's digest ("t..."/"b...").
_UNHASHED = ""


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


def _count(value: object) -> bool:
    # JSON's integers are exactly int (and its true/false exactly bool, an int subclass).
    return type(value) is int and 0 <= value < _BIG


def _row_ok(row: object) -> bool:
    # Once per scanned file on every run answered from the cache: no generator, no calls
    # but the type tests.
    if type(row) is not list or len(row) != 7:
        return False
    name, mtime_ns, size, ctime_ns, inode, digest, noted = row
    return (
        type(name) is str
        and type(mtime_ns) is int
        and type(size) is int
        and type(ctime_ns) is int
        and type(inode) is int
        and 0 <= mtime_ns < _BIG
        and 0 <= size < _BIG
        and 0 <= ctime_ns < _BIG
        and 0 <= inode < _BIG
        and type(digest) is str
        and type(noted) is bool
    )


def _entry_ok(entry: object) -> bool:
    """The shape and bounds `_validate` relies on; anything else is a foreign entry."""
    return (
        isinstance(entry, dict)
        and isinstance(entry.get("files"), list)
        and all(_row_ok(row) for row in entry["files"])
        and isinstance(entry.get("parsed"), list)
        and all(isinstance(p, str) for p in entry["parsed"])
        and _count(entry.get("written_ns"))
        and "payload" in entry
    )


def _stat_row(info: os.stat_result) -> list[int]:
    return [info.st_mtime_ns, info.st_size, info.st_ctime_ns, info.st_ino]


@dataclass(frozen=True)
class Hit:
    """A stored result still valid, and the files whose text `note` held for."""

    payload: Any
    noted: frozenset[Path]


class RunCache:
    """One entry of the cache: `load` returns the stored result when still valid."""

    # Entries of one kind kept (each option set has its own; the least recent go).
    KEEP = 24

    def __init__(self, root: Path, kind: str, key: str) -> None:
        self.root = root
        self.folder = root / CACHE_DIR
        self.kind = kind
        self.key = key
        self.name = f"{kind}-{key[:24]}.json"
        self.path = self.folder / self.name
        self.started_ns = time.time_ns()

    def _open_folder(self, create: bool) -> int | None:
        """A descriptor of the cache folder, opened without following a link (None: it is
        absent, or not a folder we may use). Every entry is opened relative to it."""
        try:
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(self.folder, 0o777)
            return os.open(self.folder, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC)
        except OSError:
            return None  # absent, a link (ELOOP), a file (ENOTDIR), unwritable root...

    def load(
        self,
        files: Sequence[Path],
        prefilter: Callable[[str], bool],
        note: Callable[[str], bool] = _nothing,
        prepare: Callable[[Any], None] | None = None,
        names: Sequence[str] | None = None,
    ) -> Hit | None:
        """The stored result if still valid. `note` must be the one given to `store`: the
        hit lists the files whose text it holds for (kept per file, so a later run need
        not read the others, e.g. to look for suppression comments). `prepare` sees the
        stored payload before any file is checked (the prefilter may depend on it).
        `names`: `str(f)` of each file, when the caller has them (Discovery.file_names)."""
        folder = self._open_folder(create=False)
        if folder is None:
            return None
        try:
            try:
                fd, _info = safe_io.open_regular(self.name, follow=False, dir_fd=folder)
                try:
                    entry = safe_io.load_json(safe_io.read_fd(fd, self.path, safe_io.CACHE_BYTES))
                finally:
                    os.close(fd)
                if not _entry_ok(entry) or entry.get("format") != _FORMAT:
                    return None
                if prepare is not None and entry.get("key") == self.key:
                    prepare(entry["payload"])
                if names is None:
                    names = [str(p) for p in files]
                hit = self._validate(entry, files, names, prefilter, note, folder)
            except (OSError, ValueError, TypeError, KeyError, IndexError, AttributeError):
                return None  # missing, corrupt or foreign: analyse and rebuild
            if hit is not None:
                with contextlib.suppress(OSError, NotImplementedError):
                    # Recently used: kept when older entries are pruned.
                    os.utime(self.name, dir_fd=folder, follow_symlinks=False)
            return hit
        finally:
            os.close(folder)

    def _validate(
        self,
        entry: dict[str, Any],
        files: Sequence[Path],
        names: Sequence[str],
        prefilter: Callable[[str], bool],
        note: Callable[[str], bool],
        folder: int,
    ) -> Hit | None:
        if entry["format"] != _FORMAT or entry["key"] != self.key:
            return None
        recorded = entry["files"]
        if [row[0] for row in recorded] != list(names):
            return None  # a file added, removed or renamed: module names may resolve anew
        parsed = set(entry["parsed"])
        written = int(entry["written_ns"])
        trusted_before = written - _RACY_NS  # a stamp this recent is racy
        updated = False
        for row, path in zip(recorded, files, strict=True):
            name, mtime_ns, size, ctime_ns, inode, digest, noted = row
            try:
                info = os.stat(name)  # the file's own name (row and names agree)
            except OSError:
                return None
            # _stat_row(info) == row[1:5], field by field: once per scanned file on every
            # run answered from the cache, without the two lists.
            racy = mtime_ns >= trusted_before or ctime_ns >= trusted_before
            if (
                not racy
                and info.st_mtime_ns == mtime_ns
                and info.st_size == size
                and info.st_ctime_ns == ctime_ns
                and info.st_ino == inode
            ):
                continue
            raw = safe_io.read_regular(path, safe_io.SOURCE_BYTES)
            text = _text(path, raw)
            new_digest = _digest(text, raw)
            if new_digest != digest:
                if name in parsed or text is None or prefilter(text):
                    return None
                noted = note(text)
            fresh = [*_stat_row(info), new_digest, bool(noted)]
            # A racy row hashed once is trusted by its stat once the clock has moved on.
            if fresh != row[1:] or racy:
                row[1:] = fresh
                updated = True
        if updated:
            entry["written_ns"] = time.time_ns()
            self._write(entry, folder)
        noted_files = frozenset(p for row, p in zip(recorded, files, strict=True) if row[6])
        return Hit(entry["payload"], noted_files)

    def store(
        self,
        files: Sequence[Path],
        parsed: Iterable[Path],
        payload: Any,
        note: Callable[[str], bool] = _nothing,
        text_of: Callable[[Path], str | None] | None = None,
        names: Sequence[str] | None = None,
        noted: Mapping[Path, bool] | None = None,
    ) -> frozenset[Path] | None:
        """Record the run (best effort: a cache that cannot be written is no error).
        `text_of` may supply the texts the run has read already; `names`: `str(f)` of
        each file, when the caller has them (Discovery.file_names); `noted`: what `note`
        answers for files a scan at the run's start read (loading/prescan.py), which are
        not read again unless the run read them too. Returns the files `note` held for
        (or that could not be read), as `Hit.noted` would list them; None when the files
        could not all be looked at."""
        # Stamped with the run's start: the stats below are taken now, but the texts were
        # read when the run began, so a file written since (a long audit, an editor saving
        # meanwhile) has a stamp inside the racy window and is read again before trusted.
        written = self.started_ns
        racy_since = written - _RACY_NS
        rows = []
        noted_files: set[Path] = set()
        read = {str(p) for p in parsed}
        if names is None:
            names = [str(p) for p in files]
        try:
            for path, name in zip(files, names, strict=True):
                info = os.stat(name)
                text = None if text_of is None else text_of(path)
                if text is None and noted is not None and path in noted and name not in read:
                    # Not read by the run, the scan's answer taken: no digest, which only
                    # the text the scan read could give (one read now may differ from it).
                    # A racy file is then read again by the next run, as below (unhashed).
                    rows.append([name, *_stat_row(info), _UNHASHED, noted[path]])
                    if noted[path]:
                        noted_files.add(path)
                    continue
                raw = None
                if text is None:
                    raw = safe_io.read_regular(path, safe_io.SOURCE_BYTES)
                    text = _text(path, raw)
                # Only a file the run read needs its content's digest: `_validate` keeps
                # the entry for any other file whose text still fails the prefilter,
                # changed or not (an unchanged text failed it when stored). Hashing every
                # file was half the cost of storing a check of sglang (22 MB of text).
                # So does a file written just before the run (an export made for it, a
                # fresh checkout): its stamp is racy, and the next run tells it unchanged
                # by its digest; without one, by the prefilter, which a file the run did
                # not read may pass (an audit of a few files), and the entry was dropped.
                racy = info.st_mtime_ns >= racy_since or info.st_ctime_ns >= racy_since
                digest = _digest(text, raw) if name in read or racy else _UNHASHED
                holds = True if text is None else note(text)  # unreadable: say so, reread
                rows.append([name, *_stat_row(info), digest, holds])
                if holds:
                    noted_files.add(path)
        except OSError:
            return None
        # "format" and "key" first: the first bytes say the file is one of ours (_prune).
        entry = {
            "format": _FORMAT,
            "key": self.key,
            "gatecheck": __version__,
            "written_ns": written,
            "files": rows,
            "parsed": sorted(read),
            "payload": payload,
        }
        folder = self._open_folder(create=True)
        if folder is not None:
            try:
                self._write(entry, folder)
                self._prune(folder)
            finally:
                os.close(folder)
        return frozenset(noted_files)

    def _prune(self, folder: int) -> None:
        """Keep the KEEP most recently used entries of this kind; remove, by name inside
        the folder (never through a link), only files this cache wrote."""
        pattern = re.compile(re.escape(self.kind) + r"-([0-9a-f]{24})\.json")
        entries: list[tuple[int, str]] = []
        stale: list[str] = []
        try:
            with os.scandir(folder) as listing:
                for item in listing:
                    info = item.stat(follow_symlinks=False)
                    if not stat.S_ISREG(info.st_mode):
                        continue
                    found = pattern.fullmatch(item.name)
                    if found and _ours(item.name, found.group(1), folder):
                        entries.append((info.st_mtime_ns, item.name))
                    elif item.name.startswith(_TEMP_PREFIX) and _stale(info, self.started_ns):
                        stale.append(item.name)  # left by a run that was killed
        except OSError:
            return
        entries.sort(reverse=True)
        for name in [name for _mtime, name in entries[self.KEEP :]] + stale:
            with contextlib.suppress(OSError):
                os.unlink(name, dir_fd=folder)  # another run may have pruned it first

    def _write(self, entry: dict[str, Any], folder: int) -> None:
        try:
            # O_EXCL: an existing name (a file, or a link leading anywhere) is left alone.
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
            ignore = os.open(".gitignore", flags, 0o644, dir_fd=folder)
            with os.fdopen(ignore, "w") as out:
                out.write("# Created by gatecheck: the cache is never committed.\n*\n")
        except OSError:
            pass
        try:
            temporary, handle = _temporary(folder)
        except OSError:
            return
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                # dumps, not dump: json.dump encodes in pure Python, 5x slower.
                out.write(json.dumps(entry, separators=(",", ":")))
            # Atomic: a concurrent run reads the old entry or this one, never half of one.
            os.replace(temporary, self.name, src_dir_fd=folder, dst_dir_fd=folder)
        except (OSError, TypeError, ValueError):
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=folder)


def _temporary(folder: int) -> tuple[str, int]:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
    for _attempt in range(100):
        name = _TEMP_PREFIX + os.urandom(8).hex()
        try:
            return name, os.open(name, flags, 0o600, dir_fd=folder)
        except FileExistsError:
            continue
    raise OSError(errno.EEXIST, "no free temporary name")


def _stale(info: os.stat_result, started_ns: int) -> bool:
    return info.st_mtime_ns < started_ns - safe_io.STALE_NS


def _ours(name: str, short_key: str, folder: int) -> bool:
    """An entry this cache wrote starts `{"format":N,"key":"<the key in its name>`."""
    try:
        fd, _info = safe_io.open_regular(name, follow=False, dir_fd=folder)
        try:
            head = os.read(fd, 64)
        finally:
            os.close(fd)
    except OSError:
        return False
    return re.match(rb'\{"format":\d+,"key":"' + short_key.encode(), head) is not None


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
