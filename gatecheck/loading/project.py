"""Step 2: load modules. Files are mapped to dotted module names up front (cheap), and
built into astroid trees only when something needs them (lazy), each failure contained
to its own file."""

from __future__ import annotations

import codecs
import gc
import io
import os
import re
import tokenize
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gatecheck import progress
from gatecheck.loading.readlog import DIR, TEXT, ReadLog
from gatecheck.loading.vendored import vendored_package
from gatecheck.safe_io import SOURCE_BYTES, read_regular
from gatecheck.textsearch import holds_any, needle_key

if TYPE_CHECKING:
    from astroid import nodes
    from astroid.exceptions import AstroidSyntaxError

    from gatecheck.loading.prescan import TextScan
    from gatecheck.loading.trees import ProjectBuilder

# A file's astroid tree costs hundreds of bytes per token (a 5 MB one-line list literal:
# ~860 MB), so a file is built only up to this many tokens (names, numbers, operators,
# brackets; a string counts per word). The largest real engine file measured, FlashInfer
# 0.7.4's gated_attention_block/api.py (969 KB), has 210,356; a 5 MB generated table of
# 118,601 rows (tests/test_robustness.py, built in seconds) has 1,423,216; the 5 MB
# one-line list `[1,1,...]` has 5,000,004.
MAX_TOKENS = 2_000_000
# A token is at least one character: only a longer text is counted (no real file is).
_TOKEN = re.compile(r"[\w.]+|\S")


class TooLarge(Exception):
    """A file with more tokens than MAX_TOKENS (not built)."""


def check_size(text: str, bound: int = MAX_TOKENS) -> None:
    """Raise TooLarge when `text` has more tokens than `bound` (one regex pass over a
    text longer than the bound, C speed; astroid would take minutes and gigabytes)."""
    if len(text) <= bound:
        return
    count = sum(1 for _ in _TOKEN.finditer(text))
    if count > bound:
        raise TooLarge(f"too large to analyse: {count:,} tokens, the bound is {bound:,}")


@dataclass(frozen=True)
class FileDiagnostic:
    """A file that could not be analysed, and why (reported, never fatal)."""

    path: Path
    line: int
    column: int
    message: str
    # GC900: a file not analysed; GC901: a condition dropped after its evaluation hit a
    # bound (call depth, recursion, size, steps), so it is not taken for "not a gate".
    code: str = "GC900"


@dataclass(frozen=True)
class SourceFile:
    path: Path
    text: str
    encoding: str
    # The file's bytes, kept only when encoding the text does not give them back: a
    # built file's source lives to the end of the run, and its bytes would be a second
    # copy of it (only a fix reads them).
    kept_raw: bytes | None = None

    @property
    def raw(self) -> bytes:
        return self.text.encode(self.encoding) if self.kept_raw is None else self.kept_raw


# Python source is never UTF-16 or UTF-32 (CPython refuses it too): say so, rather than
# "contains NUL bytes" about every other byte of it.
_WIDE_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)


def _plain_utf8(raw: bytes) -> bool:
    """Whether the file is UTF-8 by default: no byte-order mark, and its first two lines
    (all tokenize.detect_encoding reads) ASCII and never spelling `coding` (PEP 263's
    cookie needs the word), so detect_encoding would answer "utf-8" without error."""
    if raw.startswith(codecs.BOM_UTF8):
        return False
    first = raw.find(b"\n")
    second = raw.find(b"\n", first + 1) if first >= 0 else -1
    head = raw if second < 0 else raw[: second + 1]
    return head.isascii() and b"coding" not in head


def read_source(path: Path, raw: bytes | None = None) -> SourceFile:
    if raw is None:
        # A regular file only (it may have become a FIFO since discovery), and capped.
        raw = read_regular(path, SOURCE_BYTES)
    for bom, encoding in _WIDE_BOMS:
        if raw.startswith(bom):
            raise ValueError(f"{encoding} (byte-order mark) is not supported: save as UTF-8")
    if b"\x00" in raw:
        raise ValueError("file contains NUL bytes")
    if _plain_utf8(raw):
        # What detect_encoding answers for such a file, and a strict UTF-8 decode encodes
        # back to the same bytes: a third of reading every file of a project for the
        # prefilter went to the two steps skipped here.
        return SourceFile(path, raw.decode("utf-8"), "utf-8")
    return declared_source(path, raw)


def declared_source(path: Path, raw: bytes) -> SourceFile:
    """`raw` decoded as PEP 263 says (a BOM, a coding cookie, else UTF-8), with its bytes
    kept when encoding the text does not give them back."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    text = raw.decode(encoding)
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        same = text.encode(encoding) == raw
    except UnicodeError:
        same = False
    return SourceFile(path, text, encoding, None if same else raw)


@contextmanager
def bulk_allocation() -> Iterator[None]:
    """For a whole run: trees are built once and kept to the end, so the cyclic garbage
    collector's repeated passes over them are pure overhead (they double the build time
    of a large project). Objects alive at the start are frozen out of collection and
    the thresholds raised, not disabled: garbage cycles are still collected. Inside
    another (impact's, around its audits) it does nothing: what tells is the heap being
    frozen already (the interpreter's own state: no counter of ours), and the outer one
    unfreezes it at its end. A project that freezes each tree it builds says so itself
    (Project.freeze_built)."""
    if gc.get_freeze_count():
        yield
        return
    saved = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(max(saved[0], 50_000), max(saved[1], 20), max(saved[2], 100))
    try:
        yield
    finally:
        gc.set_threshold(*saved)
        gc.unfreeze()


def module_name_for(path: Path, roots: Iterable[Path] = ()) -> str:
    """Dotted name from the package structure: folders holding __init__.py, and every
    folder below a scanned root (namespace packages have no __init__.py)."""
    return ModuleNamer(roots).name(path)


def _source_folder_of(path: Path, alias: str) -> Path:
    """The source folder a file's second name starts at (ModuleNamer.alias): one folder
    up per dot of the name, and one more for a package's `__init__.py`."""
    ups = alias.count(".") + (1 if path.name == "__init__.py" else 0)
    return path.parents[ups]


# A folder holding one of these is where a distribution's packages are found (SGLang's
# repository keeps its package and pyproject.toml under `python/`; an unpacked wheel
# keeps its packages beside their `*.dist-info`).
PACKAGING_FILES = ("pyproject.toml", "setup.py", "setup.cfg")
METADATA_SUFFIXES = (".dist-info", ".egg-info")
# Folders a packaging file beside them conventionally points at (`package-dir`): the src
# layout, and `python/` (sgl-kernel and Triton keep their package there, the packaging
# file one folder up).
SOURCE_FOLDER_NAMES = ("src", "python")


class ModuleNamer:
    """module_name_for over many files: each folder's answer (its dotted prefix) is
    worked out once, so a tree of N files costs one __init__.py check per folder.

    A file has a second name (`alias`) where a folder around it, below the scanned
    root, is a distribution's source folder: its name from there down. The module
    `python/sglang/srt/utils.py` in a checkout of SGLang is `python.sglang.srt.utils` by
    the folders (a namespace package `python` is what Python would see with the root on
    its path) and `sglang.srt.utils` by how the code imports it. A source folder holds a
    packaging file or a distribution's metadata, or is a `src` or `python` folder beside
    a packaging file; a folder inside a regular package never is (a vendored
    `ops/triton/` subpackage is not the `triton` the code imports), nor is a bare
    namespace folder (`megatron/` of megatron-core: its `core` package is imported as
    `megatron.core` only)."""

    def __init__(self, roots: Iterable[Path] = ()) -> None:
        self.roots = set(roots)
        self._prefixes: dict[Path, tuple[str, ...]] = {}
        self._root_names = {str(root) for root in self.roots}
        self._alias_states: dict[str, tuple[bool, bool, tuple[str, ...] | None]] = {}
        self._source_folders: set[str] = set()

    def name(self, path: Path) -> str:
        path = path if path.is_absolute() else path.resolve()
        parts = self._prefix(path.parent)
        if path.name != "__init__.py":
            parts = (*parts, path.stem)
        return ".".join(parts) or path.stem

    def alias(self, path: Path) -> str | None:
        """The name the code imports the file by, where it differs from `name` (see the
        class): its folders from below the nearest source folder around it."""
        path = path if path.is_absolute() else path.resolve()
        parts = self._alias_prefix(path.parent)
        if parts is None:
            return None
        if path.name != "__init__.py":
            parts = (*parts, path.stem)
        alias = ".".join(parts)
        return None if alias == self.name(path) else alias

    def source_folders(self, files: Iterable[str]) -> list[str]:
        """The source folders the files' second names are taken from, sorted: a run's
        answers depend on them, though they hold no scanned file that says so (a
        pyproject.toml added beside a package renames its modules). `files`: absolute
        names (each folder is looked at once: a cached run asks this on every start)."""
        for folder in {name.rpartition(os.sep)[0] for name in files}:
            self._alias_state(folder)
        return sorted(self._source_folders)

    def _alias_prefix(self, folder: Path) -> tuple[str, ...] | None:
        return self._alias_state(str(folder))[2]

    def _alias_state(self, folder: str) -> tuple[bool, bool, tuple[str, ...] | None]:
        """(whether the folder is a root or below one, whether it is or is inside a
        package, its second name's prefix or None), worked out once per folder from
        its parent's (on names: this runs on every start of a cached run)."""
        state = self._alias_states.get(folder)
        if state is not None:
            return state
        parent, _sep, name = folder.rpartition(os.sep)
        init = os.path.join(folder, "__init__.py")
        if folder in self._root_names:
            state = (True, os.path.isfile(init), None)
        elif not name or not parent:
            state = (False, False, None)  # the top: above every root
        else:
            scanned, in_package, above = self._alias_state(parent)
            if not scanned:
                state = (False, False, None)
            elif os.path.isfile(init):
                state = (True, True, None if above is None else (*above, name))
            elif not in_package and _is_source_folder(Path(folder)):
                self._source_folders.add(folder)
                state = (True, False, ())
            else:
                state = (True, in_package, None if above is None else (*above, name))
        self._alias_states[folder] = state
        return state

    def _prefix(self, folder: Path) -> tuple[str, ...]:
        pending: list[Path] = []
        current = folder
        # Walk up to the first folder already known or outside any package.
        while current not in self._prefixes:
            if not (self._below_root(current) or os.path.isfile(current / "__init__.py")):
                self._prefixes[current] = ()
                break
            pending.append(current)
            if current.parent == current:
                self._prefixes[current] = (current.name,)
                pending.pop()
                break
            current = current.parent
        for below in reversed(pending):
            self._prefixes[below] = (*self._prefixes[below.parent], below.name)
        return self._prefixes[folder]

    def _below_root(self, folder: Path) -> bool:
        return any(folder != root and _is_under(folder, root) for root in self.roots)


def _is_source_folder(folder: Path) -> bool:
    """A folder (not a package, nor inside one) where a distribution's packages are:
    it holds a packaging file or a distribution's metadata, or is `src` or `python`
    beside a packaging file."""
    if _holds_packaging(folder):
        return True
    return folder.name in SOURCE_FOLDER_NAMES and _holds_packaging(folder.parent, metadata=False)


def _holds_packaging(folder: Path, *, metadata: bool = True) -> bool:
    """Whether `folder` holds a packaging file (or, with `metadata`, a `*.dist-info` or
    `*.egg-info` entry)."""
    if any(os.path.isfile(folder / name) for name in PACKAGING_FILES):
        return True
    if not metadata:
        return False
    try:
        with os.scandir(folder) as entries:
            return any(entry.name.endswith(METADATA_SUFFIXES) for entry in entries)
    except OSError:
        return False


def _is_under(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True


def __getattr__(name: str) -> Any:
    # `lookup` and friends moved to loading/trees.py (they need astroid, which a run
    # answered from the cache never imports); importers that still name them here get
    # them from there, on first use.
    if name in ("lookup", "bound_in_scopes", "ensure_builtins"):
        from gatecheck.loading import trees

        return getattr(trees, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Project:
    """The scanned code base: module index plus lazily built astroid trees."""

    def __init__(
        self,
        files: Sequence[Path],
        roots: Iterable[Path] = (),
        overrides: Mapping[Path, bytes] | None = None,
    ) -> None:
        # In-memory contents that replace files on disk (a fix being verified).
        self.overrides = dict(overrides or {})
        # Made on the first build (a run answered from the cache builds nothing, and
        # does not even import astroid).
        self._builder: ProjectBuilder | None = None
        self.roots = tuple(roots)
        self.files = tuple(files)
        self._namer = ModuleNamer(self.roots)
        self._index: tuple[dict[str, Path], dict[Path, str], dict[str, str]] | None = None
        # Top-level names a vendored package of the project answers (loading/vendored.py):
        # the name -> the package's own name, or None.
        self._vendored: dict[str, str | None] = {}
        self._packages: list[str] | None = None
        self._modules: dict[Path, nodes.Module | None] = {}
        self._sources: dict[Path, SourceFile] = {}
        self._texts: dict[Path, str | None] = {}
        self._mentioning: dict[tuple[str, ...], tuple[Path, ...]] = {}
        # Needles looked up in an index of every file's text (searched_in_index).
        self._indexed: set[str] = set()
        self._offered: TextScan | None = None
        self.diagnostics: list[FileDiagnostic] = []
        # Files a worker process built (for this run's `parsed`), and those it could not.
        self._built_elsewhere: set[Path] = set()
        # What each evaluated file's conditions read (impact asks; see readlog.py).
        self.read_log: ReadLog | None = None
        # Each tree built is frozen out of the collector's way (gc.freeze): set by a run
        # inside bulk_allocation, whose end unfreezes them; off, the trees are collected
        # as any garbage is (a library caller keeping no project leaks none).
        self.freeze_built = False

    def _note(self, key: str) -> None:
        if self.read_log is not None:
            self.read_log.note(key)

    # -- index -------------------------------------------------------------------------
    def _names(self) -> tuple[dict[str, Path], dict[Path, str], dict[str, str]]:
        # Worked out on first use: a run answered from the cache never asks.
        if self._index is None:
            by_name: dict[str, Path] = {}
            name_of: dict[Path, str] = {}
            for file in self.files:
                name = self._namer.name(file)
                name_of[file] = name
                by_name.setdefault(name, file)
            canonical: dict[str, str] = {}
            # Second names (ModuleNamer.alias), by the source folder they start at.
            groups: dict[Path, list[tuple[Path, str]]] = {}
            for file in self.files:
                alias = self._namer.alias(file)
                if alias is not None:
                    groups.setdefault(_source_folder_of(file, alias), []).append((file, alias))
            for members in groups.values():
                if not any(alias in by_name for _, alias in members):
                    # No second name of the folder is taken: the names the code imports
                    # its modules by become their own (values, reports and what a run
                    # read spell `sglang.srt.utils`, not `python.sglang.srt.utils`); the
                    # names from the folders stay a way to reach them. All or none: a
                    # relative import resolves against the importer's own name.
                    for file, alias in members:
                        by_name[alias] = file
                        canonical[name_of[file]] = alias
                        name_of[file] = alias
                    continue
                # Some are taken (a copy of the package beside the source folder): the
                # others are second names only, where no file has them as its own.
                for file, alias in members:
                    if alias not in by_name:
                        by_name[alias] = file
                        canonical[alias] = name_of[file]
            self._index = (by_name, name_of, canonical)
        return self._index

    @property
    def _by_name(self) -> dict[str, Path]:
        return self._names()[0]

    @property
    def _name_of(self) -> dict[Path, str]:
        return self._names()[1]

    def canonical(self, name: str) -> str:
        """A module's own name for `name`, which may be its second name (ModuleNamer.alias)
        or a vendored copy's (loading/vendored.py): one module, one name in values and in
        what a run read."""
        own = self._names()[2].get(name)
        if own is not None:
            return own
        return self._vendored_name(name) or name

    def _vendored_name(self, name: str) -> str | None:
        """`triton_kernels.target_info` -> `vllm.third_party.triton_kernels.target_info`
        where `triton_kernels` is no module of the project and its one package so named is
        a vendored copy importing itself by that name; else None."""
        by_name = self._by_name
        top, _dot, rest = name.partition(".")
        if not top or top in by_name:
            return None
        if top not in self._vendored:
            if self._packages is None:
                self._packages = sorted(
                    n for n, path in by_name.items() if path.name == "__init__.py" and "." in n
                )
            with self.scanning():  # noted as the package's folder below
                self._vendored[top] = vendored_package(top, self._packages, by_name, self.text_of)
        package = self._vendored[top]
        if package is None:
            return None
        self._note(f"{DIR}{by_name[package].parent}{os.sep}")
        return f"{package}.{rest}" if rest else package

    def has_module(self, name: str) -> bool:
        if self.read_log is not None:
            self.read_log.note(self.canonical(name))
        return name in self._by_name

    def path_of(self, name: str) -> Path | None:
        if self.read_log is not None:
            self.read_log.note(self.canonical(name))
        return self._by_name.get(name)

    def name_of(self, path: Path) -> str:
        return self._name_of.get(path) or self._namer.name(path)

    def is_package(self, name: str) -> bool:
        if self.read_log is not None:
            self.read_log.note(self.canonical(name))
        path = self._by_name.get(name)
        return path is not None and path.name == "__init__.py"

    # -- loading -----------------------------------------------------------------------
    def module(self, name: str) -> nodes.Module | None:
        if self.read_log is not None:  # found or not: a module added or removed is read too
            self.read_log.note(self.canonical(name))
        path = self._by_name.get(name)
        return None if path is None else self.module_at(path)

    def module_at(self, path: Path, *, whole: bool = False) -> nodes.Module | None:
        """The tree of `path`, built on first use. `whole`: its function bodies built at
        once, for a module the caller walks through (else each body is built when first
        read: loading/lazy.py); the first call decides."""
        if self.read_log is not None:
            self.read_log.note(self.name_of(path))
        if path in self._modules:
            return self._modules[path]
        from astroid.exceptions import AstroidBuildingError, AstroidSyntaxError

        from gatecheck.loading.trees import ProjectBuilder

        module: nodes.Module | None = None
        try:
            source = read_source(path, self.overrides.get(path))
            self._sources[path] = source
            if self._texts.get(path) == source.text:
                del self._texts[path]  # text_of answers from the source: one copy kept
            name = self.name_of(path)
            check_size(source.text)
            if self._builder is None:
                self._builder = ProjectBuilder()
            module = self._builder.string_build(source.text, name, str(path), whole=whole)
            # Modules belong to this project, not to astroid's process-wide cache.
            self._builder.manager.astroid_cache.pop(name, None)
        except TooLarge as err:
            self._diagnose(path, 1, 0, str(err))
        except AstroidSyntaxError as err:
            line, col = _error_position(err)
            self._diagnose(path, line, col, _syntax_message(err.error or err))
        except UnicodeDecodeError as err:
            line, col = _byte_position(err.object, err.start)
            byte = err.object[err.start : err.start + 1].hex()
            message = f"cannot decode as {err.encoding}: byte 0x{byte} ({err.reason})"
            self._diagnose(path, line, col, message)
        except (SyntaxError, LookupError) as err:
            self._diagnose(path, 1, 0, f"cannot decode: {_first_line(err)}")
        except ValueError as err:
            self._diagnose(path, 1, 0, f"cannot read: {err}")
        except OSError as err:
            self._diagnose(path, 1, 0, f"unreadable: {err.strerror or err}")
        except RecursionError:
            self._diagnose(path, 1, 0, "too deeply nested to analyse")
        except AstroidBuildingError as err:
            self._diagnose(path, 1, 0, f"cannot build: {_first_line(err)}")
        self._modules[path] = module
        if module is not None and self.freeze_built:
            # The new tree lives to the end: out of the collector's way now. Without
            # collecting the young garbage first: that pass walked the whole new tree
            # to find almost nothing (sglang 0.5.9: 492 objects over 498 builds, 0.4 s;
            # 0.5.23: 1,656 over 2,428, 4 s), and what it leaves is kept to the end at
            # no measurable cost (the same peak RSS). The collector's own passes still
            # run between builds.
            gc.freeze()
        progress.parsed(path)
        return module

    def text_of(self, path: Path) -> str | None:
        """Decoded text for cheap prefilters, read once; None when unreadable (the
        diagnostic comes when the module is built)."""
        if self.read_log is not None:
            self.read_log.note(self.name_of(path))
        if path in self._texts:
            return self._texts[path]
        source = self._sources.get(path)
        if source is not None:
            return source.text
        try:
            text: str | None = read_source(path, self.overrides.get(path)).text
        except (OSError, ValueError, SyntaxError, LookupError):
            text = None
        self._texts[path] = text
        return text

    def files_mentioning(self, needles: Iterable[str]) -> tuple[Path, ...]:
        """Files whose text holds any of the needles (a cheap prefilter), remembered: a
        search repeated for every gate would make a large project quadratic."""
        key = needle_key(needles)
        log = self.read_log
        if log is not None:
            for needle in key:
                log.note(f"{TEXT}{needle}")
        found = self._mentioning.get(key)
        if found is None and self._offered is not None:
            found = self._offered.files_holding(key)
            if found is not None:
                self._mentioning[key] = found
        if found is None:
            with self.scanning():
                found = self._search(key)
            self._mentioning[key] = found
        return found

    def _search(self, key: tuple[str, ...]) -> tuple[Path, ...]:
        """The files holding a needle of `key`, in the project's order. The needles an
        earlier search covers are looked for in its files only; the others (a feature's
        dashed CLI options after its flags were searched) in every file, with the longer
        core they share among themselves."""
        within, covered = self._within(key)
        rest = tuple(n for n in key if n not in covered)
        holds_covered = holds_any(covered)
        if not rest:
            return tuple(
                path
                for path in within
                if (text := self.text_of(path)) is not None and holds_covered(text)
            )
        holds_rest = holds_any(rest)
        inside = frozenset(within) if covered else frozenset()
        return tuple(
            path
            for path in self.files
            if (text := self.text_of(path)) is not None
            and (holds_rest(text) or (path in inside and holds_covered(text)))
        )

    def remember_mentioning(self, needles: Iterable[str], found: Iterable[Path]) -> None:
        """What a scan made elsewhere found (the files holding any of the needles), as
        files_mentioning would: a later search for needles that each contain one of these
        scans only those files."""
        self._mentioning.setdefault(needle_key(needles), tuple(found))

    def offer(self, scan: TextScan) -> None:
        """A scan of every file made for this run (loading/prescan.py): a search for one
        of its groups takes its answer instead of reading the files. Offered, not yet
        searched: only a group asked for counts among searched_needles."""
        self._offered = scan

    def text_held(self, path: Path) -> str | None:
        """The text of `path` if this project has read it, without reading it now."""
        source = self._sources.get(path)
        return source.text if source is not None else self._texts.get(path)

    def _within(self, key: tuple[str, ...]) -> tuple[Sequence[Path], tuple[str, ...]]:
        """An earlier search's files and the needles of `key` only those files can hold: a
        text holding a needle that contains a needle searched before holds that one too.
        The search covering the most needles, then the one with the fewest files; every
        file and every needle when none covers any."""
        best: Sequence[Path] = self.files
        covered: tuple[str, ...] = key
        most = 0
        for earlier, found in self._mentioning.items():
            these = tuple(n for n in key if any(e in n for e in earlier))
            if len(these) > most or (these and len(these) == most and len(found) < len(best)):
                best, covered, most = found, these, len(these)
        return best, covered

    def files_below(self, folder: str) -> tuple[Path, ...]:
        """The files whose path starts with `folder`, for a scan of them (noted as one
        key: any file below, added or removed too, may change what it finds)."""
        self._note(f"{DIR}{folder}")
        return tuple(path for path in self.files if str(path).startswith(folder))

    @contextmanager
    def scanning(self) -> Iterator[None]:
        """Reads inside note nothing: a scan of many files that noted its own key."""
        if self.read_log is None:
            yield
            return
        with self.read_log.muted():
            yield

    def searched_needles(self) -> set[str]:
        """Every needle files_mentioning was asked for, or looked up in an index
        (searched_in_index): a file that comes to hold one may change what a run found
        (the cache checks changed files for them)."""
        return {needle for key in self._mentioning for needle in key} | self._indexed

    def searched_in_index(self, needle: str) -> None:
        """A name looked up in an index the caller made of every file's text in one pass
        (read under `scanning`: semantics.mutations, the files spelling a name where it
        may be changed): noted as a search for `needle` is, since a file that comes to
        hold it may change the answer."""
        self._note(f"{TEXT}{needle}")
        self._indexed.add(needle)

    def source(self, path: Path) -> SourceFile | None:
        if self.read_log is not None:
            self.read_log.note(self.name_of(path))
        if path not in self._sources:
            self.module_at(path)
        return self._sources.get(path)

    def modules_built(self) -> dict[Path, nodes.Module]:
        return {path: module for path, module in self._modules.items() if module is not None}

    def adopt(self, path: Path, module: nodes.Module, other: Project) -> None:
        """The tree `other` built of the same text (nothing writes to a tree once built),
        instead of building it again (impact/overlay.py)."""
        self._modules[path] = module
        if path in other._sources:
            self._sources[path] = other._sources[path]
        if path in other._texts:
            self._texts[path] = other._texts[path]

    def loaded_modules(self) -> list[nodes.Module]:
        return [m for m in self._modules.values() if m is not None]

    def parsed_paths(self) -> set[Path]:
        """The files whose trees this run built, here or in a worker (audit/workers.py)."""
        here = {Path(m.file) for m in self.loaded_modules() if m.file}
        return here | self._built_elsewhere

    # -- what a worker process built (audit/workers.py) ---------------------------------
    def tried_paths(self) -> frozenset[Path]:
        return frozenset(self._modules)

    def tried_since(self, before: frozenset[Path]) -> tuple[frozenset[Path], frozenset[Path]]:
        """The files built, and those that failed to build, since `before`."""
        built = frozenset(p for p, m in self._modules.items() if m is not None and p not in before)
        failed = frozenset(p for p, m in self._modules.items() if m is None and p not in before)
        return built, failed

    def built_elsewhere(self, built: Iterable[Path]) -> None:
        """A worker built these files: they count as parsed."""
        self._built_elsewhere.update(built)

    def unbuildable_elsewhere(self, path: Path) -> bool:
        """A worker could not build `path` and said why: whether this process has said it
        too (tried it); from now on it does not try."""
        tried = path in self._modules
        self._modules.setdefault(path, None)
        return tried

    def _diagnose(self, path: Path, line: int, col: int, message: str) -> None:
        self.diagnostics.append(FileDiagnostic(path, line, col, message))


def _first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return text[0] if text else type(err).__name__


def _byte_position(raw: bytes, offset: int) -> tuple[int, int]:
    """(line, 0-based byte column) of a byte offset, for undecodable bytes."""
    return raw.count(b"\n", 0, offset) + 1, offset - (raw.rfind(b"\n", 0, offset) + 1)


def _syntax_message(cause: BaseException) -> str:
    # astroid's own first line ("Parsing Python code failed:") says nothing: use CPython's.
    if isinstance(cause, SyntaxError) and cause.msg:
        return f"syntax error: {cause.msg.strip().splitlines()[0]}"
    if isinstance(cause, (MemoryError, RecursionError)):
        return "too deeply nested to parse"  # CPython's parser gives up on such nesting
    return f"syntax error: {_first_line(cause)}"


def _error_position(err: AstroidSyntaxError) -> tuple[int, int]:
    cause = err.error
    if isinstance(cause, SyntaxError):
        return cause.lineno or 1, max((cause.offset or 1) - 1, 0)
    return 1, 0
