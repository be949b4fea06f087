"""Every file of a run read once for the needles the run will look for, in a forked child
while this process imports the analysis machinery.

A cold `check` reads every file of the project for its text prefilters: the feature's
names (which files can hold a gate), its dashed CLI options (the activation path), the
suppression marker (what the cache notes). On sglang 0.5.9 that is 1,404 files and 20 MB,
about 60 ms; importing astroid and the evaluator takes as long again, and the second core
sat idle through both. The scan runs in a child forked before those imports (no trees
yet: a small process to copy) and sends back, per group of needles, which files hold one,
and which files could not be read. The parent then reads only those files, and a search
for a group the scan answered (Project.files_mentioning) reads none.

The answer is the one the parent would find (the same read_source, the same holds_any):
`scan_texts` is the one function both run, and a child that fails costs only time (the
parent scans). No fork (not POSIX) or a project too small to be worth a process: no scan,
the run reads every file itself as it always did.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from gatecheck import forking
from gatecheck.loading.project import read_source
from gatecheck.textsearch import holds_any, needle_key

# Fewer files than this are read in this process: a fork and a pipe cost more than
# reading them (a file is about 15 us to read and search).
MIN_FORKED_FILES = 300

Key = tuple[str, ...]


@dataclass(frozen=True)
class TextScan:
    """Per group of needles (needle_key), the indices of the files holding one of them,
    in the files' order; and the files that could not be read (read_source failed)."""

    files: tuple[Path, ...]
    holding: Mapping[Key, tuple[int, ...]]
    unreadable: tuple[int, ...]

    def files_holding(self, needles: Iterable[str]) -> tuple[Path, ...] | None:
        """The files holding any of `needles`, in order; None when the scan did not look
        for exactly this group."""
        found = self.holding.get(needle_key(needles))
        return None if found is None else tuple(self.files[i] for i in found)

    def unreadable_files(self) -> tuple[Path, ...]:
        return tuple(self.files[i] for i in self.unreadable)


def scan_texts(
    files: Sequence[Path],
    groups: Iterable[Iterable[str]],
    overrides: Mapping[Path, bytes] | None = None,
) -> TextScan:
    """Each file read as Project.text_of reads it, asked for each group."""
    keys = list(dict.fromkeys(needle_key(g) for g in groups))
    tests = [holds_any(key) for key in keys]
    holding: list[list[int]] = [[] for _ in keys]
    unreadable: list[int] = []
    overrides = overrides or {}
    for index, path in enumerate(files):
        try:
            text = read_source(path, overrides.get(path)).text
        except (OSError, ValueError, SyntaxError, LookupError):
            unreadable.append(index)
            continue
        for found, test in zip(holding, tests, strict=True):
            if test(text):
                found.append(index)
    return TextScan(
        tuple(files),
        {key: tuple(found) for key, found in zip(keys, holding, strict=True)},
        tuple(unreadable),
    )


def start_scan(
    files: Sequence[Path],
    groups: Iterable[Iterable[str]],
    overrides: Mapping[Path, bytes] | None = None,
    *,
    min_files: int | None = None,
) -> PendingScan | None:
    """A scan of `files` for `groups` in a forked child; None (the caller reads the files
    itself, as before) for fewer than `min_files` files (MIN_FORKED_FILES) or when this
    system cannot fork."""
    if len(files) < (MIN_FORKED_FILES if min_files is None else min_files):
        return None
    scan = PendingScan(files, groups, overrides)
    return scan if scan.forked else None


class PendingScan:
    """scan_texts under way in a forked child; `result()` waits for it (and scans in this
    process if there is no child or it failed: the same answer, later)."""

    def __init__(
        self,
        files: Sequence[Path],
        groups: Iterable[Iterable[str]],
        overrides: Mapping[Path, bytes] | None = None,
    ) -> None:
        self._files = tuple(files)
        self._groups = [needle_key(g) for g in groups]
        self._overrides = dict(overrides or {})
        for key in self._groups:
            holds_any(key)  # made here: the child only reads and asks
        self._done: TextScan | None = None
        self._child = forking.start(self._found)
        self.forked = self._child is not None

    def _found(self) -> _Found:
        # Indices only: the parent has the paths (pickling 1,400 of them both ways cost
        # more than the scan saves).
        scan = scan_texts(self._files, self._groups, self._overrides)
        return dict(scan.holding), scan.unreadable

    def result(self) -> TextScan:
        if self._done is None:
            child, self._child = self._child, None
            found = None if child is None else child.result()
            if found is None:  # no child, or it failed: scanned here
                self._done = scan_texts(self._files, self._groups, self._overrides)
            else:
                self._done = TextScan(self._files, *found)
        return self._done


_Found = tuple[dict[Key, tuple[int, ...]], tuple[int, ...]]
