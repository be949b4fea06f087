"""Which files a change can reach: the changed files, and every file that imports a name
that may read them, again and again (a predicate's body edited in `utils.py` changes the
gates of every module calling it). Gates of the other files read the same code on both
sides, so they are the same: neither side audits them.

Name by name: of a changed module, the module-level statements that differ (changed_names)
and those reading them; of a module reached through some of its imports, the names it
imported from reached modules and its statements reading them -- not the names it
imported from elsewhere (a package `__init__` re-exporting fifty classes passes on the one
that changed, not the fifty). Read with the standard library's `ast` (no resolution),
erring towards reaching: `import a.b` and `from a import b` take all of `a.b`, a string
spelling a module's dotted name (a class named by its qualname) takes all of it, a module
`__getattr__` passes on every name. A file that does not parse holds no gate for the audit
either: it is compared only when changed.

Calls reach too: a parameter read inside a function takes what the function's callers
pass (semantics/callers.py), so a changed statement calling `name(...)` reaches the files
defining a function or class `name` (changed_calls).
"""

from __future__ import annotations

import ast
import contextlib
import functools
import re
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from gatecheck.loading.project import ModuleNamer
from gatecheck.semantics.call_names import (
    MAX_CALLER_FILES,
    MAX_CONSTRUCTION_FILES,
    MAX_METHOD_CALLER_FILES,
    ImportShape,
    import_shape,
    may_reach,
    reaching_words_in,
    spelled_words,
)

Reader = Callable[[Path], str | None]


ALL = "*"  # every name of a module


@dataclass(frozen=True, eq=False)
class Binding:
    """One statement at module level: the names it binds, the names it reads, and its
    node (whose `ast.dump` -- no positions, comments or layout -- is its shape)."""

    names: frozenset[str]
    reads: frozenset[str]
    node: ast.AST

    @property
    def shape(self) -> str:
        return ast.dump(self.node)

    def calls(self) -> set[str]:
        """The names it calls (`name(...)`, `x.name(...)`)."""
        return _calls_in(self.node)


def _calls_in(node: ast.AST) -> set[str]:
    found: set[str] = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Call):
            func = child.func
            if isinstance(func, ast.Name):
                found.add(func.id)
            elif isinstance(func, ast.Attribute):
                found.add(func.attr)
    return found


@dataclass(frozen=True)
class ModuleFacts:
    """What reach needs of one file: its module-level statements, and each import as
    (module, name or ALL for the whole module, the name bound here or ALL for a star)."""

    bindings: tuple[Binding, ...]
    imports: tuple[tuple[str, str, str], ...]

    def readers(self, names: set[str]) -> set[str]:
        """`names` and every name bound by a statement that reads one of them, again."""
        found = set(names)
        if ALL in found:
            return {ALL}
        grew = True
        while grew:
            grew = False
            for binding in self.bindings:
                if binding.reads & found and not binding.names <= found:
                    found |= binding.names
                    grew = True
        return found


def _parse(source: str) -> ast.Module:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escapes in the analysed code are not ours
        return ast.parse(source)


def module_facts(source: str, module: str, is_package: bool) -> ModuleFacts | None:
    """None: it does not parse."""
    try:
        tree = _parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    package = module if is_package else module.rpartition(".")[0]
    imports: list[tuple[str, str, str]] = []
    bindings = _bindings(tree.body, package, imports)
    return ModuleFacts(tuple(bindings), tuple(imports))


_BLOCKS = (ast.If, ast.Try, ast.With)


def _bindings(
    body: Sequence[ast.stmt], package: str, imports: list[tuple[str, str, str]] | None = None
) -> list[Binding]:
    """Module-level statements; those inside `if`/`try`/`with` blocks count on their own
    (`if _is_cuda: def f(): ...` binds f). One walk of each statement; its imports (also
    those inside functions) go to `imports`."""
    out: list[Binding] = []
    for node in body:
        if isinstance(node, _BLOCKS):
            inner: list[ast.stmt] = [*node.body, *getattr(node, "orelse", [])]
            inner += getattr(node, "finalbody", [])
            for handler in getattr(node, "handlers", []):
                inner += handler.body
            inside = _bindings(inner, package, imports)
            test: ast.AST = (
                node.test if isinstance(node, ast.If) else ast.Name(type(node).__name__, ast.Load())
            )
            _, reads = _walk(test, package, imports)
            # The test decides every name bound inside.
            bound = frozenset(n for b in inside for n in b.names)
            out.append(Binding(bound, frozenset(reads), test))
            out.extend(inside)
            continue
        stored, reads = _walk(node, package, imports)
        out.append(Binding(frozenset(_bound(node, stored)), frozenset(reads), node))
    return out


def _walk(
    node: ast.AST, package: str, imports: list[tuple[str, str, str]] | None
) -> tuple[set[str], set[str]]:
    """Names stored and loaded in `node`; its imports and dotted strings into `imports`."""
    stored: set[str] = set()
    loaded: set[str] = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            (stored if isinstance(child.ctx, ast.Store) else loaded).add(child.id)
        elif imports is None:
            continue
        elif isinstance(child, ast.Import):
            for alias in child.names:
                bound = alias.asname or alias.name.split(".")[0]
                imports.extend((prefix, ALL, bound) for prefix in _prefixes(alias.name))
        elif isinstance(child, ast.ImportFrom):
            origin = _absolute(child.module, child.level, package)
            if origin is None:
                continue
            for alias in child.names:
                if alias.name == "*":
                    imports.append((origin, ALL, ALL))
                    continue
                bound = alias.asname or alias.name
                imports.append((origin, alias.name, bound))
                imports.append((f"{origin}.{alias.name}".lstrip("."), ALL, bound))
        elif isinstance(child, ast.Constant) and isinstance(child.value, str):
            text = child.value
            if 0 < len(text) < 200 and "." in text and text.replace(".", "").isidentifier():
                imports.extend((prefix, ALL, "") for prefix in _prefixes(text))
    return stored, loaded


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)


def _bound(node: ast.stmt, stored: set[str]) -> set[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    return stored


def changed_names(old: str | None, new: str | None) -> frozenset[str]:
    """Module-level names whose statements differ between two versions of a file (ALL
    when one side is missing or does not parse, or a statement binding nothing differs)."""
    if old is None or new is None:
        return frozenset({ALL})
    try:
        before, after = _parse(old), _parse(new)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset({ALL})
    shapes: list[dict[str, list[str]]] = [{}, {}]
    loose: list[list[str]] = [[], []]
    for side, tree in enumerate((before, after)):
        body = [n for n in tree.body if not _is_docstring(n)]
        for binding in _bindings(body, ""):
            if not binding.names:
                loose[side].append(binding.shape)
            for name in binding.names:
                shapes[side].setdefault(name, []).append(binding.shape)
    if sorted(loose[0]) != sorted(loose[1]):
        return frozenset({ALL})
    names = shapes[0].keys() | shapes[1].keys()
    return frozenset(n for n in names if shapes[0].get(n) != shapes[1].get(n))


def changed_calls(old: str | None, new: str | None) -> frozenset[str]:
    """The names called, on either side, where a change can alter what a call passes: in
    each function (at any depth) whose code differs, in each statement of a module or
    class body that differs, and in each module-level statement reading a module-level
    name that changed. Every call of a file missing on one side or that does not parse."""
    trees: list[ast.Module] = []
    for text in (old, new):
        if text is None:
            continue
        with contextlib.suppress(SyntaxError, ValueError, RecursionError, MemoryError):
            trees.append(_parse(text))
    if len(trees) < 2:
        return frozenset(name for tree in trees for name in _calls_in(tree))
    sides = [_pieces(tree) for tree in trees]
    found: set[str] = set()
    for key in sides[0].keys() | sides[1].keys():
        shapes = [side.get(key) for side in sides]
        if shapes[0] is None or shapes[1] is None or shapes[0][0] != shapes[1][0]:
            for shape in shapes:
                if shape is not None:
                    found |= shape[1]
    changed = changed_names(old, new)
    for tree in trees:
        facts = ModuleFacts(tuple(_bindings(tree.body, "")), ())
        for binding in facts.bindings:
            if ALL in changed or binding.reads & changed:
                found |= binding.calls()
    return frozenset(found)


def _pieces(tree: ast.Module) -> dict[tuple[str, int], tuple[str, set[str]]]:
    """Each function (its whole code) and each other statement of a module or class body
    (nested functions and classes left to their own piece), by where it is and which of
    its kind it is: (its shape, the names it calls)."""
    found: dict[tuple[str, int], tuple[str, set[str]]] = {}

    def walk(body: Sequence[ast.stmt], where: str) -> None:
        counts: dict[str, int] = {}
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                key = f"{where}.{node.name}()"
                found[(key, counts.setdefault(key, 0))] = (ast.dump(node), _calls_in(node))
                counts[key] += 1
            elif isinstance(node, ast.ClassDef):
                walk(node.body, f"{where}.{node.name}")
                # Its bases, keywords and decorators: a piece of its own.
                head = ast.ClassDef(node.name, node.bases, node.keywords, [], node.decorator_list)
                key = f"{where}.{node.name}"
                found[(key, counts.setdefault(key, 0))] = (ast.dump(head), _calls_in(head))
                counts[key] += 1
            else:
                key = f"{where}:{type(node).__name__}"
                index = counts.setdefault(key, 0)
                counts[key] += 1
                found[(key, index)] = (ast.dump(node), _calls_in(node))

    walk(tree.body, "")
    return found


def imported_names(source: str, module: str, is_package: bool) -> frozenset[str] | None:
    """The modules it reads names of (relative imports made absolute), for tests and
    tools; None: it does not parse."""
    facts = module_facts(source, module, is_package)
    return None if facts is None else frozenset(m for m, _name, _bound in facts.imports)


def _prefixes(dotted: str) -> list[str]:
    parts = dotted.split(".")
    return [".".join(parts[: n + 1]) for n in range(len(parts))]


def _absolute(name: str | None, level: int, package: str) -> str | None:
    if level == 0:
        return name
    parts = package.split(".") if package else []
    if level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    return ".".join([*base, *([name] if name else [])])


def reaches(imported: Iterable[str], module: str) -> bool:
    """Whether names resolved through these imports can read `module`'s code. Importing
    `a.b.c` alone does not read `a.b`'s body (`a/b/__init__.py`): an import system runs
    it, a resolver looking up `a.b.c`'s names does not."""
    return module in imported


# Past this share of the files reached (or as many read), reach stops and everything
# is compared: parsing is as costly as auditing, so a change that reaches much of the
# tree is cheaper audited whole (sglang 0.5.9: 1,404 files, 11 s cold audit, 21 s to parse
# the 1,296 an edit of quantization/fp8.py led to).
BUDGET_SHARE = 0.15
MIN_BUDGET = 50
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_IMPORTING = (
    r"^[ \t]*(?:from|import)[ \t][^\n]*\b{0}\b"  # on the import's line
    r"|^[ \t]*from[ \t][^\n]*import[ \t]*\([^)]*\b{0}\b"  # inside its parentheses
    r"|^[ \t]*(?:from|import)[ \t][^\n]*\\\n[^\n]*\b{0}\b"  # after a backslash
    r"|[\"'][\w.]*\b{0}\b[\w.]*[\"']"  # a dotted string
)


@functools.lru_cache(maxsize=4096)
def _importing(leaf: str) -> re.Pattern[str]:
    return re.compile(_IMPORTING.format(re.escape(leaf)), re.MULTILINE)


def may_import(text: str, leaf: str) -> bool:
    """Whether a file's text can import a module named `leaf` (or name it in a string)."""
    return _importing(leaf).search(text) is not None


# `from ..a.b import`: its dots, then the dotted name (either may be spaced or continued).
_RELATIVE = re.compile(r"\bfrom[\s\\]+((?:\.[\s\\]*)+)([\w.\s\\]*?)[\s\\]*\bimport\b")
_SPACE = re.compile(r"[\s\\]+")
_GAP = r"[\s\\]*\.[\s\\]*"  # a dot as Python allows it in an import (`a . b`, continued)
_IMPORT_WORD = re.compile(r"\bimport\b")
_FROM_BEFORE = re.compile(r"\bfrom[\s\\]+\Z")
_IMPORT_AFTER = re.compile(r"[\s\\]+import\b")
_STAR_AFTER = re.compile(r"[\s\\]+import[\s\\(]*\*")
_SUB_AFTER = re.compile(_GAP + r"\w")
_STAR = re.compile(r"\bimport[\s\\(]*\*")


@functools.lru_cache(maxsize=4096)
def _dotted(module: str) -> re.Pattern[str]:
    return re.compile(_GAP.join(map(re.escape, module.split("."))))


def _spelled(text: str, module: str) -> Iterator[tuple[int, int]]:
    """Where `module` is spelled as a whole dotted name (not inside a longer one)."""
    first, pattern = module.split(".")[0], _dotted(module)
    at = text.find(first)
    while at != -1:
        found = pattern.match(text, at)
        before = text[at - 1] if at else " "
        if found and not (before.isalnum() or before in "._"):
            after = text[found.end()] if found.end() < len(text) else " "
            if not (after.isalnum() or after == "_"):
                yield at, found.end()
        at = text.find(first, at + 1)


def _in_import(text: str, at: int) -> bool:
    """Whether `import` comes before `at` in its logical line (continuations joined)."""
    start = text.rfind("\n", 0, at) + 1
    while start >= 2 and text[start - 2] == "\\":
        start = text.rfind("\n", 0, start - 2) + 1
    return _IMPORT_WORD.search(text, start, at) is not None


def _quoted(text: str, at: int) -> bool:
    return at > 0 and text[at - 1] in "\"'"


def _from_parent(text: str, module: str) -> bool:
    """`from PARENT import` (module's leaf may be among the names: see may_import)."""
    parent = module.rpartition(".")[0]
    for at, end in _spelled(text, parent) if parent else ():
        if _IMPORT_AFTER.match(text, end) and _FROM_BEFORE.search(text, max(0, at - 64), at):
            return True
    return False


def _relative(text: str, package: str) -> Iterator[str]:
    """The modules the relative imports of the text name, from `package`."""
    for dots, rest in _RELATIVE.findall(text):
        origin = _absolute(_SPACE.sub("", rest) or None, dots.count("."), package)
        if origin is not None:
            yield origin


def may_import_whole(text: str, module: str, package: str) -> bool:
    """Whether the text can import `module` whole (module_facts' ALL: `import m` or
    `import m.sub`, `from parent import m`, `from m import *`, a dotted string "m" or
    "m.sub"), also relative to `package`: a file that does not, and spells none of the
    names touched, passes nothing of it."""
    for at, end in _spelled(text, module):
        if _in_import(text, at) or _quoted(text, at) or _STAR_AFTER.match(text, end):
            return True
    if _from_parent(text, module):
        return True
    parent = module.rpartition(".")[0]
    return any(
        origin == parent or (origin == module and _STAR.search(text))
        for origin in _relative(text, package)
    )


def may_import_module(text: str, module: str, package: str) -> bool:
    """Whether an import of the text (or a dotted string) can name `module` itself, as
    module_facts reads imports: `from m import`, `import m` or `import m.sub`, a string
    "m" or "m.sub", `from PARENT import` (its leaf among the names, see may_import), and
    the same relative to `package` (the file's). `from m.sub import x` names m.sub, not
    m: a file importing other modules of a package passes nothing of this one."""
    for at, end in _spelled(text, module):
        if _SUB_AFTER.match(text, end) is None:  # m itself, not m.sub
            return True
        if _in_import(text, at) or _quoted(text, at):
            return True
    if _from_parent(text, module):
        return True
    parent = module.rpartition(".")[0]
    return any(origin in (module, parent) for origin in _relative(text, package))


@functools.lru_cache(maxsize=4096)
def _calling(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!def )\b{re.escape(name)}\s*\(")


@functools.lru_cache(maxsize=4096)
def _calling_attribute(name: str) -> re.Pattern[str]:
    return re.compile(rf"\.\s*{re.escape(name)}\s*\(")


@functools.lru_cache(maxsize=4096)
def _defining(name: str) -> re.Pattern[str]:
    return re.compile(
        rf"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+{re.escape(name)}\b", re.MULTILINE
    )


def reached_files(
    files: Sequence[Path],
    roots: Sequence[Path],
    changed: Mapping[Path, frozenset[str]],
    read: Reader,
    calls: Mapping[Path, frozenset[str]] | None = None,
) -> frozenset[Path]:
    """`files` the changed files reach (changed ones included), given each changed file's
    changed names (see changed_names) and the calls in its changed statements (see
    changed_calls). `changed` may hold files that exist no more (deleted since BASE):
    they reach their importers too."""
    namer = ModuleNamer(roots)
    names = {path: namer.name(path) for path in files}
    # A module is imported by its second name too (ModuleNamer.alias: `sglang.srt.x`
    # of a checkout's `python/sglang/srt/x.py`); a change to it reaches both importers.
    aliases = {path: alias for path in files if (alias := namer.alias(path)) is not None}
    texts = {path: read(path) for path in files}
    # Which files spell a word: a module's importers spell its last name.
    spelling: dict[str, list[Path]] = {}
    for path, text in texts.items():
        words = set(_WORD.findall(text or ""))
        if text is not None and "from ." in text:
            # `from . import x` names its packages without spelling them.
            words.update(names[path].split("."))
        for word in words:
            spelling.setdefault(word, []).append(path)
    facts: dict[Path, ModuleFacts | None] = {}
    spellers: dict[str, frozenset[Path]] = {}

    def spelled(word: str) -> frozenset[Path]:
        if word not in spellers:
            spellers[word] = frozenset(spelling.get(word, ()))
        return spellers[word]

    def facts_of(path: Path) -> ModuleFacts | None:
        if path not in facts:
            text = texts[path]
            package = path.name == "__init__.py"
            facts[path] = None if text is None else module_facts(text, names[path], package)
        return facts[path]

    # Module -> the names of it a change may have touched (ALL: any).
    touched: dict[str, set[str]] = {}
    reached: set[Path] = set()
    pending: list[str] = []

    def touch(module: str, new: set[str], path: Path | None) -> None:
        current = touched.setdefault(module, set())
        if ALL in current or new <= current:
            return
        current.update(new)
        if path is not None:
            reached.add(path)
        pending.append(module)

    def touch_module(path: Path, new: set[str], reached_path: Path | None) -> None:
        touch(names[path] if path in names else namer.name(path), new, reached_path)
        alias = aliases.get(path) if path in names else namer.alias(path)
        if alias is not None:
            touch(alias, new, reached_path)

    for path, changed_here in changed.items():
        here = facts_of(path) if path in texts else None
        touched_here = set(changed_here) if here is None else here.readers(set(changed_here))
        touch_module(path, touched_here, path if path in texts else None)
        if path in texts:
            reached.add(path)  # its gates are compared, whatever it passes on
    # A changed call reaches the definitions it may call (their parameters' values),
    # unless so many other files call the name that the callers search gives up on it.
    # (A method's or a class's search reads more files than a function's: the largest.)
    # A method's search counts only the files spelling `x.name(` (the calls that can run
    # it), a function's only those that can import it (call_names.may_reach): a name
    # spelled in more files than the bound may still have its callers searched.
    most = max(MAX_CALLER_FILES, MAX_METHOD_CALLER_FILES, MAX_CONSTRUCTION_FILES)
    by_name = {module: path for path, module in names.items()}

    package_words: dict[str, frozenset[str] | None] = {}
    shapes: dict[Path, ImportShape] = {}  # each made once: a text is searched for many names

    def words_of(package: str) -> frozenset[str] | None:
        if package not in package_words:
            path = by_name.get(package)
            text = texts[path] if path is not None and path.name == "__init__.py" else None
            package_words[package] = spelled_words(text)
        return package_words[package]

    def can_call(path: Path, name: str, words: frozenset[str]) -> bool:
        text = texts[path] or ""
        if path not in shapes:
            shapes[path] = import_shape(text)
        return may_reach(text, names[path], name, words, shape=shapes[path])

    for name in sorted({n for called in (calls or {}).values() for n in called}):
        calling, dotted = _calling(name), _calling_attribute(name)
        callers = [
            path
            for path in spelling.get(name, ())
            if path not in changed and calling.search(texts[path] or "")
        ]
        many = len(callers) > most and (
            sum(dotted.search(texts[path] or "") is not None for path in callers)
            > MAX_METHOD_CALLER_FILES
        )
        for path in spelling.get(name, ()):
            text = texts[path]
            if text is None or not _defining(name).search(text):
                continue
            if many:
                reach = reaching_words_in(names[path], name, words_of)
                reaching = [p for p in callers if can_call(p, name, reach)]
                if len(reaching) > most:
                    continue  # every search of a definition here gives up
            found = facts_of(path)
            touch_module(path, {ALL} if found is None else found.readers({name}), path)
    budget = max(MIN_BUDGET, int(len(files) * BUDGET_SHARE))
    # Files whose text can pass a touched name on (they import the module and spell the
    # name, or import it whole): most are reached, and past the budget the answer is the
    # whole tree anyway, so they count before they are parsed (parsing is the cost).
    likely: set[Path] = set()
    while pending:
        if len(reached) > budget or len(facts) > budget:
            # Most of the tree: auditing it all is as cheap as reading what it imports.
            return frozenset(files) | reached
        module = pending.pop()
        names_touched = touched[module]
        if "__getattr__" in names_touched:
            names_touched = {ALL}  # any name may come from its module __getattr__
        leaf = module.rpartition(".")[2]
        importers = []
        for path in spelling.get(leaf, ()):
            text = texts[path] or ""
            package = names[path] if path.name == "__init__.py" else names[path].rpartition(".")[0]
            if path in facts or (
                may_import(text, leaf)
                and may_import_module(text, module, package)
                and (
                    ALL in names_touched
                    or any(path in spelled(name) for name in names_touched)
                    or may_import_whole(text, module, package)
                )
            ):
                importers.append(path)  # else it can pass no name: not parsed
        likely.update(importers)
        if len(reached | likely) > budget:
            return frozenset(files) | reached  # see BUDGET_SHARE
        for path in importers:
            found = facts_of(path)
            if len(reached) > budget or len(facts) > budget:
                return frozenset(files) | reached  # see BUDGET_SHARE
            if found is None:
                continue  # unreadable or not Python: the audit reads no gate in it either
            passed = {
                bound
                for origin, name, bound in found.imports
                if origin == module
                and (ALL in names_touched or name == ALL or name in names_touched)
            }
            if not passed:
                continue
            # What it binds from them, and its statements reading that; a star: everything.
            touch_module(path, {ALL} if ALL in passed else found.readers(passed), path)
    return frozenset(reached)
