"""File I/O for untrusted trees: read only regular files, never more than a cap, and
replace files all-or-nothing with a compare-and-swap on their content.

A repository gatecheck scans may come from anyone (a pull request in CI). A FIFO or a
device where a file is expected would block a read forever or never end; a link may
point anywhere. Everything here fails with an OSError (its `strerror` says why), so
callers keep their one `except OSError` for every way a file cannot be used.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import math
import os
import re
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Caps by what a file is for: far above any real one, far below what hurts.
CONFIG_BYTES = 16 * 1024 * 1024  # rule files, pyproject.toml, baselines
SOURCE_BYTES = 64 * 1024 * 1024  # one Python file
CACHE_BYTES = 512 * 1024 * 1024  # one cache entry

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_CHUNK = 1024 * 1024


def refusal(path: Path | str, why: str) -> OSError:
    return OSError(errno.EINVAL, why, str(path))


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def open_regular(
    path: Path | str, *, follow: bool = True, dir_fd: int | None = None
) -> tuple[int, os.stat_result]:
    """A read-only descriptor of a regular file. O_NONBLOCK: opening a FIFO never waits
    for a writer (it is refused by its type right after); a regular file's reads ignore
    the flag, so it is left on (read_fd clears it if a file system says otherwise)."""
    flags = os.O_RDONLY | _NONBLOCK | _CLOEXEC | (0 if follow else _NOFOLLOW)
    try:
        fd = os.open(path, flags, dir_fd=dir_fd)
    except OSError as err:
        if err.errno == errno.ELOOP and not follow:
            raise refusal(path, "a symbolic link (not followed)") from err
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = _kind(info.st_mode)
            raise refusal(path, kind if kind.startswith("not") else f"{kind}, not a regular file")
    except BaseException:
        os.close(fd)
        raise
    return fd, info


def read_fd(fd: int, path: Path | str, limit: int, size_hint: int | None = None) -> bytes:
    """At most `limit` bytes, to the end of the file. `size_hint` (the file's size when
    opened) is asked for at once, plus one byte: exactly that many bytes back means the
    end was reached, and no second read is needed to find it (one system call of the
    six a file took, on each of the 1,404 files a check of sglang reads). A shorter or
    longer answer (an interrupted read, a file changing) reads on to the end."""
    chunks: list[bytes] = []
    size = 0
    want = min(_CHUNK, limit + 1) if size_hint is None else min(size_hint + 1, limit + 1)
    while True:
        try:
            chunk = os.read(fd, want)
        except BlockingIOError:  # a file system that honours O_NONBLOCK on a file
            os.set_blocking(fd, True)
            continue
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            raise refusal(path, f"larger than {limit // (1024 * 1024)} MiB")
        if size_hint is not None and size == size_hint:
            return chunk
        size_hint = None  # read on to the end
        want = min(_CHUNK, limit + 1 - size)


def read_regular(
    path: Path | str, limit: int = CONFIG_BYTES, *, follow: bool = True, dir_fd: int | None = None
) -> bytes:
    """The bytes of a regular file of at most `limit` bytes."""
    fd, info = open_regular(path, follow=follow, dir_fd=dir_fd)
    try:
        if info.st_size > limit:
            raise refusal(path, f"larger than {limit // (1024 * 1024)} MiB")
        return read_fd(fd, path, limit, info.st_size)
    finally:
        os.close(fd)


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number out of range: {text}")
    return value


def _no_constant(name: str) -> object:
    raise ValueError(f"not JSON: {name}")


def load_json(data: bytes) -> Any:
    """Strict JSON of a file gatecheck may not have written: no NaN or Infinity, no float
    that overflows; too deep a nesting is a ValueError, not a RecursionError."""
    try:
        return json.loads(data, parse_float=_finite, parse_constant=_no_constant)
    except RecursionError as err:
        raise ValueError("nested too deeply") from err


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --- replacing files: stage every temporary file first, then swap each one in -------------

TEMP_SUFFIX = ".gatecheck"
# `.NAME.XXXXXXXX.gatecheck`, as `staged_temp` names them (8 random characters).
_TEMP_NAME = re.compile(r"\..+\.[A-Za-z0-9_]{8}" + re.escape(TEMP_SUFFIX))
# A temporary file not touched for this long before a run began belongs to a dead run.
STALE_NS = 60 * 1_000_000_000


class Conflict(OSError):
    """The file changed between the read and the swap: the other edit is kept."""


@dataclass
class Staged:
    """A new content written next to its target, not yet in place."""

    target: Path
    temporary: Path
    expected: str  # sha256 of the content the new one was made from
    data: bytes

    def discard(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.temporary)

    def check_unchanged(self) -> int:
        """Right before the swap: the target still holds what was read. Returns an open
        descriptor of it, for `check_swapped`."""
        fd, _info = open_regular(self.target, follow=False)
        try:
            current = read_fd(fd, self.target, SOURCE_BYTES)
        except BaseException:
            os.close(fd)
            raise
        if digest(current) != self.expected:
            os.close(fd)
            raise Conflict(errno.EAGAIN, "changed on disk since it was read", str(self.target))
        return fd

    def swap(self) -> None:
        os.replace(self.temporary, self.target)

    def check_swapped(self, old: int) -> None:
        """Right after: nobody wrote into the old file between the check and the swap (a
        writer that had it open). If someone did, their content goes back in place."""
        os.lseek(old, 0, os.SEEK_SET)
        content = read_fd(old, self.target, SOURCE_BYTES)
        if digest(content) == self.expected:
            return
        restore = stage(self.target, content, digest(self.data), keep_from=old)
        restore.swap()
        raise Conflict(errno.EAGAIN, "changed on disk while being written", str(self.target))

    def commit(self) -> None:
        """Compare-and-swap: in place only if the target is unchanged, before and after."""
        old = self.check_unchanged()
        try:
            self.swap()
            self.check_swapped(old)
        finally:
            os.close(old)


def stage(target: Path, data: bytes, expected: str, *, keep_from: int | None = None) -> Staged:
    """Write `data` to a new temporary file beside `target`, flushed to disk, with the
    target's mode, owner and group (where this process may set them) and its extended
    attributes. Nothing is in place yet: `Staged.commit` does that."""
    source = (
        os.fstat(keep_from) if keep_from is not None else os.stat(target, follow_symlinks=False)
    )
    temporary = staged_temp(target)
    try:
        with open(temporary, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
            _copy_metadata(handle.fileno(), target, source)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    return Staged(target, temporary, expected, data)


def write_whole(target: Path, data: bytes) -> None:
    """Replace or create `target` all or nothing, for files gatecheck owns the content
    of (a baseline): no compare-and-swap. Through a link, its target is written."""
    target = target.resolve() if target.is_symlink() else target
    if target.exists():
        staged = stage(target, data, "")
    else:
        umask = os.umask(0)
        os.umask(umask)
        temporary = staged_temp(target)
        staged = Staged(target, temporary, "", data)
        try:
            with open(temporary, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
                os.fchmod(handle.fileno(), 0o666 & ~umask)
        except BaseException:
            staged.discard()
            raise
    try:
        staged.swap()
    except BaseException:
        staged.discard()
        raise


def staged_temp(target: Path) -> Path:
    """A new, private (0600) temporary file in the target's folder, never through a link."""
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789_"
    for _attempt in range(100):
        token = "".join(alphabet[b % len(alphabet)] for b in os.urandom(8))
        temporary = target.parent / f".{target.name}.{token}{TEMP_SUFFIX}"
        try:
            fd = os.open(
                temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o600
            )
        except FileExistsError:
            continue
        os.close(fd)
        return temporary
    raise OSError(errno.EEXIST, "no free temporary name", str(target.parent))


def _copy_metadata(fd: int, target: Path, source: os.stat_result) -> None:
    # Owner first: chown may clear set-id bits that the chmod then puts back.
    with contextlib.suppress(OSError):
        os.fchown(fd, source.st_uid, source.st_gid)
    os.fchmod(fd, stat.S_IMODE(source.st_mode))
    if not hasattr(os, "listxattr"):
        return
    try:
        names = os.listxattr(target, follow_symlinks=False)
    except OSError:
        return
    for name in names:
        # Some (security.*, system.*) only privileged processes may set: best effort.
        with contextlib.suppress(OSError):
            os.setxattr(fd, name, os.getxattr(target, name, follow_symlinks=False))


def unwritable(path: Path, info: os.stat_result) -> str | None:
    """Why rewriting this file would be wrong without being asked to (None: it is fine)."""
    if info.st_nlink > 1:
        return f"has {info.st_nlink} hard links (the others would keep the old text)"
    if not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(
        path, os.W_OK
    ):
        return f"not writable (mode {stat.S_IMODE(info.st_mode):04o})"
    return None


def stale_temporaries(folder: Path, started_ns: int) -> Iterator[Path]:
    """Our own temporary files in `folder` that a killed run left: our name pattern, a
    regular file (never a link), untouched since well before this run began."""
    try:
        with os.scandir(folder) as listing:
            entries = list(listing)
    except OSError:
        return
    for entry in entries:
        if not _TEMP_NAME.fullmatch(entry.name):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) and info.st_mtime_ns < started_ns - STALE_NS:
            yield Path(entry.path)


def remove_stale_temporaries(folder: Path, started_ns: int | None = None) -> list[Path]:
    removed: list[Path] = []
    for path in stale_temporaries(folder, time.time_ns() if started_ns is None else started_ns):
        with contextlib.suppress(OSError):
            os.unlink(path)
            removed.append(path)
    return removed
