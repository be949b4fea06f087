"""BASE audited in the working tree's process, over the working tree's own trees and memo
(reuse.py says which files' gates can differ; this makes auditing those cheap).

BASE is the working tree with the changed files' BASE contents laid over them (Project
overrides; a file added since is left out, one deleted is put back), so every path is
the working tree's. The trees of the unchanged files are the working tree's: the same
text builds the same tree, and nothing writes to a tree once built. So are its memoised
answers that read no changed module and no search a change can answer differently
(the read log numbers those reads: `dirty_bits`), and its facts about one tree: the
evaluation is deterministic, so BASE would compute the same. A memo entry keyed by a
node of a changed file is never asked for (BASE builds its own tree of it, and the
working tree's stays alive, so no node id is reused). What searches every file's text
at once (the callers' index) is BASE's: the working tree's, with the changed files' entries
read again."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gatecheck.impact.reuse import Change, meets
from gatecheck.loading.project import Project
from gatecheck.loading.readlog import ReadLog
from gatecheck.semantics.call_names import called_name_set
from gatecheck.semantics.callers import INDEXES

if TYPE_CHECKING:
    from gatecheck.semantics.admitted import Semantics

# Facts about one tree (a node's bindings in scope, its nesting, a module's star imports,
# calls and assignments to self): the same on both sides for an unchanged file's tree.
_ONE_TREE = frozenset({"lookup", "too-nested", "star-sources", "calls-by-name", "set_on_self"})
# Facts kept with their reads (semantics/reads.remembered): kept unless they meet a change.
_REMEMBERED = frozenset({"call-sites", "vendor-class", "subclasses"})


@dataclass
class Kept:
    """The working tree's audit, kept for BASE's (run_audit's on_open)."""

    project: Project | None = None
    semantics: Semantics | None = None

    def __call__(self, project: Project, semantics: Semantics) -> None:
        self.project, self.semantics = project, semantics


def dirty_bits(log: ReadLog, changes: Sequence[Change]) -> int:
    """The bits of the reads that can read differently at BASE."""
    modules = {c.module for c in changes}
    bits = 0
    for key, bit in log.numbered():
        if meets((key,), changes, modules):
            bits |= bit
    return bits


def laid_over(
    kept: Kept, changes: Sequence[Change], base_bytes: Mapping[Path, bytes]
) -> Callable[[Project, Semantics], None]:
    """run_audit's on_open for BASE: the project as BASE (over the working tree's paths),
    seeded with the working tree's trees, memo and facts where they hold at BASE."""
    source, semantics_before = kept.project, kept.semantics
    assert source is not None and semantics_before is not None and source.read_log is not None
    log = source.read_log
    changed = {c.path for c in changes}

    def seed(project: Project, semantics: Semantics) -> None:
        # BASE's files: a file added since is not there, one deleted is.
        present = [p for p in project.files if p not in changed or p in base_bytes]
        present += sorted(p for p in base_bytes if p not in set(project.files))
        project.files = tuple(present)
        project.overrides.update(base_bytes)
        # Its reads numbered as the working tree's, so the memo's reads mean the same.
        project.read_log = log.fresh()
        for path, module in source.modules_built().items():
            if path not in changed:
                project.adopt(path, module, source)
        bits = dirty_bits(log, changes)
        semantics.adopt(semantics_before, lambda recorded: not (recorded & bits))
        semantics.adopt_facts(semantics_before, _facts_kept(bits))
        # semantics/callers.py's indexes of the files spelling a call of each name: one
        # pass over every file's text, the same at BASE but for the changed files. Both
        # or neither: callers.py builds both when one is missing.
        indexes = [(key, semantics_before.fact(key), names) for key, names in INDEXES]
        if all(index is not None for _key, index, _names in indexes):
            with project.scanning():
                for key, index, names in indexes:
                    amended = amended_index(index, project.files, project.text_of, changed, names)
                    semantics.put_fact(key, amended)

    return seed


def amended_index(
    index: Mapping[str, tuple[Path, ...]],
    files: Sequence[Path],
    text_of: Callable[[Path], str | None],
    changed: Collection[Path],
    names_in: Callable[[str], Collection[str]] = called_name_set,
) -> dict[str, tuple[Path, ...]]:
    """An index of the files spelling each name (`names_in` of their text: one of
    callers.py's INDEXES) as BASE (`files`, read by `text_of`) would
    build it, from the working tree's: the changed files' entries read again from their
    text at BASE, each list in the order of `files` (callers.py reads them in that
    order)."""
    found: dict[str, list[Path]] = {}
    for name, paths in index.items():
        kept = [p for p in paths if p not in changed]
        if kept:
            found[name] = kept
    touched: set[str] = set()
    for path in files:
        if path not in changed or (text := text_of(path)) is None:
            continue
        for name in set(names_in(text)):
            found.setdefault(name, []).append(path)
            touched.add(name)
    place = {path: n for n, path in enumerate(files)}
    for name in touched:
        found[name].sort(key=place.__getitem__)
    return {name: tuple(paths) for name, paths in found.items()}


def _facts_kept(bits: int) -> Callable[[Any, Any], bool]:
    def kept(key: Any, value: Any) -> bool:
        kind = key[0] if isinstance(key, tuple) and key else None
        if kind in _ONE_TREE:
            return True
        if kind in _REMEMBERED:
            # One computed past a cut held for one of the working tree's questions.
            return not (value[1] & bits) and value[2].cut is None
        return False  # a search over every file's text: BASE's own

    return kept
