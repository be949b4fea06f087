"""Which files' gates can differ between BASE and the working tree, from what the working
tree's audit read for each (run_audit's record_reads, gatecheck/loading/readlog.py).

The audit is deterministic: a file unchanged since BASE whose conditions read no changed
file (no module looked up, found or not, is one added, removed or edited, and no search
over many files' text -- the callers of a name, the files below a folder -- finds a
changed file on either side) has the same gates on both sides. So does a file whose
gates' hop sources lie in such files only: a gate turns into a hop when a function it
calls holds a gate, which is that function's file's answer. Everything else is `dirty`:
BASE audits only those (and the files their hop sources lie in), the working tree's
audit answers for the rest of both sides.

What is read for every file at once (the rule features' gate functions, found by module
name) is the same on both sides unless a module so named is added or removed; a package
`__init__.py` added or removed renames the modules below it. Either way: everything.
Pure functions: no git, no trees."""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from gatecheck.loading.readlog import CALLS, DIR, TEXT, FileReads
from gatecheck.semantics.call_names import called_names


@dataclass(frozen=True)
class Change:
    """One file that differs from BASE, as the working tree places it."""

    path: Path
    module: str
    before: str | None  # its text at BASE (None: absent or unreadable)
    after: str | None  # its text now
    added: bool = False
    deleted: bool = False

    def texts(self) -> tuple[str, ...]:
        return tuple(t for t in (self.before, self.after) if t is not None)

    @functools.cached_property
    def called(self) -> frozenset[str]:
        """The names it spells a call of, on either side."""
        return frozenset(name for text in self.texts() for name in called_names(text))


def _search_meets(key: str, change: Change) -> bool:
    """Whether a search over many files' text can find something else in `change`."""
    if key.startswith(CALLS):
        return key[len(CALLS) :] in change.called
    if key.startswith(TEXT):
        needle = key[len(TEXT) :]
        return any(needle in text for text in change.texts())
    if key.startswith(DIR):
        return str(change.path).startswith(key[len(DIR) :])
    return False


def _is_search(key: str) -> bool:
    return key.startswith((CALLS, TEXT, DIR))


def meets(
    reads: Iterable[str], changes: Sequence[Change], changed_modules: Collection[str]
) -> bool:
    """Whether what was read for a file can read differently after these changes."""
    for key in reads:
        if key in changed_modules:
            return True
        if _is_search(key) and any(_search_meets(key, c) for c in changes):
            return True
    return False


def everything_moves(changes: Sequence[Change], shared: Collection[str]) -> bool:
    """A change that can move any file's answer (see the module's docstring)."""
    for change in changes:
        if not (change.added or change.deleted):
            continue
        if change.path.name == "__init__.py" or change.module in shared:
            return True
    return False


def dirty_files(
    reads: Sequence[FileReads],
    changes: Sequence[Change],
    module_of: Callable[[Path], str],
) -> frozenset[Path]:
    """The files whose gates may differ: the changed ones, those whose reads meet a
    change, and those whose hop sources lie in a dirty file (again and again)."""
    changed_modules = {c.module for c in changes}
    changed_paths = {c.path for c in changes}
    dirty = {
        r.path for r in reads if r.path in changed_paths or meets(r.reads, changes, changed_modules)
    }
    by_module = _by_module(reads, module_of)
    grew = True
    while grew:
        grew = False
        for r in reads:
            if r.path not in dirty and any(by_module.get(k) in dirty for k in r.hops):
                dirty.add(r.path)
                grew = True
    return frozenset(dirty | changed_paths)


def hop_files(
    reads: Iterable[FileReads], of: Collection[Path], files: Mapping[str, Path]
) -> frozenset[Path]:
    """The files (of `files`, by module name) that the hop sources of the gates in `of`
    were looked for in: an audit of `of` must find their conditions too."""
    return frozenset(files[key] for r in reads if r.path in of for key in r.hops if key in files)


def _by_module(reads: Iterable[FileReads], module_of: Callable[[Path], str]) -> dict[str, Path]:
    return {module_of(r.path): r.path for r in reads}
