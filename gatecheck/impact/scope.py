"""Which files a change can reach: the changed files, and every file that imports one of
them, again and again (a predicate's body edited in `utils.py` changes the gates of every
module calling it). Gates of the other files read the same code on both sides, so they
are the same: neither side audits them.

Read with the standard library's `ast` (imports only, no resolution), and erring towards
reaching: `import a.b` reaches `a.b`'s submodules too, a string spelling a module's dotted
name reaches it (platform classes named by qualname strings), a file that does not parse
is reached."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from gatecheck.loading.project import ModuleNamer

Reader = Callable[[Path], str | None]


def imported_names(source: str, module: str, is_package: bool) -> frozenset[str] | None:
    """Dotted names the module imports or spells as strings (relative imports made
    absolute); None when it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    package = module if is_package else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            origin = _absolute(node.module, node.level, package)
            if origin is None:
                continue
            names.add(origin)
            names.update(f"{origin}.{alias.name}".lstrip(".") for alias in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
            if 0 < len(text) < 200 and "." in text and text.replace(".", "").isidentifier():
                names.add(text)
    return frozenset(names)


def _absolute(name: str | None, level: int, package: str) -> str | None:
    if level == 0:
        return name
    parts = package.split(".") if package else []
    if level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    return ".".join([*base, *([name] if name else [])])


def reaches(imported: Iterable[str], module: str) -> bool:
    """Whether importing these names can read `module` (itself, a submodule, or a name
    inside it: `from a.b import c` names a.b.c)."""
    prefix = module + "."
    return any(name == module or name.startswith(prefix) for name in imported)


def reached_files(
    files: Sequence[Path], roots: Sequence[Path], changed: Iterable[Path], read: Reader
) -> frozenset[Path]:
    """`files` the changed files reach (changed ones included). `changed` may hold
    files that exist no more (deleted since BASE): they reach their importers too."""
    namer = ModuleNamer(roots)
    names = {path: namer.name(path) for path in files}
    pending = [namer.name(path) for path in changed]
    reached = set(changed) & set(files)
    texts: dict[Path, str | None] = {}
    imports: dict[Path, frozenset[str] | None] = {}
    seen_modules = set(pending)
    while pending:
        module = pending.pop()
        leaf = module.rpartition(".")[2]
        for path in files:
            if path in reached:
                continue
            if path not in texts:
                texts[path] = read(path)
            text = texts[path]
            if text is not None and leaf not in text:
                continue
            if path not in imports:
                imports[path] = (
                    None
                    if text is None
                    else imported_names(text, names[path], path.name == "__init__.py")
                )
            found = imports[path]
            if found is None or reaches(found, module):
                reached.add(path)
                if names[path] not in seen_modules:
                    seen_modules.add(names[path])
                    pending.append(names[path])
    return frozenset(reached)
