"""Where a kernel library's source is: a path given with --kernel-source, the scanned
roots, or the active environment's site-packages (found without importing anything)."""

from __future__ import annotations

import importlib.machinery
import re
import stat
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gatecheck.safe_io import CONFIG_BYTES, read_regular

# The kernel libraries every run looks for (a rule can name more).
KNOWN_KERNEL_LIBRARIES = ("flashinfer", "sgl_kernel", "deep_gemm", "flash_attn", "vllm_flash_attn")


@dataclass(frozen=True)
class KernelSource:
    package: str  # top-level import name, e.g. "flashinfer"
    root: Path  # folder holding the package folder
    version: str | None
    origin: str  # "--kernel-source", "scanned roots" or "site-packages"


def _is_file(path: Path) -> bool:
    # Path.is_file() raises for a folder this user may not enter (EACCES): a scanned
    # tree can hold one anywhere, and it holds no package we could read anyway.
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except (OSError, ValueError):
        return False


def _has_package(root: Path, package: str) -> bool:
    return _is_file(root / package / "__init__.py") or _is_file(root / f"{package}.py")


def _candidates(path: Path, package: str) -> list[Path]:
    """`path` itself, or a folder below it (an unpacked wheel or sdist) holding the package."""
    if _has_package(path, package):
        return [path]
    if path.name == package and _is_file(path / "__init__.py"):
        return [path.parent]
    found = [p for p in sorted(path.glob("*/")) if _has_package(p, package)]
    return found


def locate(
    package: str,
    kernel_sources: Sequence[Path] = (),
    scanned_roots: Sequence[Path] = (),
) -> KernelSource | None:
    for given in kernel_sources:
        for root in _candidates(given.resolve(), package):
            return KernelSource(package, root, read_version(root, package), "--kernel-source")
    for scanned in scanned_roots:
        for root in _candidates(scanned.resolve(), package):
            return KernelSource(package, root, read_version(root, package), "scanned roots")
    # PathFinder only looks the name up on sys.path; it imports nothing.
    spec = importlib.machinery.PathFinder.find_spec(package, sys.path)
    if spec is not None and spec.origin and spec.origin not in ("built-in", "frozen"):
        origin = Path(spec.origin)
        root = origin.parent.parent if origin.name == "__init__.py" else origin.parent
        return KernelSource(package, root, read_version(root, package), "site-packages")
    return None


_VERSION_LINE = re.compile(r"^Version:\s*(\S+)", re.MULTILINE)
_NAME_LINE = re.compile(r"^Name:\s*(\S+)", re.MULTILINE)
_DUNDER_VERSION = re.compile(r"""^__version__\s*=\s*["']([^"']+)["']""", re.MULTILINE)


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _read(path: Path) -> str:
    """A metadata file's text, or nothing: regular files only, and capped (a scanned tree
    may hold a FIFO or a huge file under any name)."""
    try:
        return read_regular(path, CONFIG_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return ""


def read_version(root: Path, package: str) -> str | None:
    """From the distribution metadata next to the package, else a literal __version__."""
    for metadata in sorted(root.glob("*.dist-info/METADATA")) + sorted(
        root.glob("*.egg-info/PKG-INFO")
    ):
        text = _read(metadata)
        top_level = metadata.parent / "top_level.txt"
        names = {_normal(n) for n in _NAME_LINE.findall(text)}
        tops = set()
        if _is_file(top_level):
            tops = {line.strip() for line in _read(top_level).splitlines() if line.strip()}
        if package in tops or any(n.startswith(_normal(package)) for n in names):
            found = _VERSION_LINE.search(text)
            if found:
                return found.group(1)
    for candidate in ("_build_meta.py", "version.py", "_version.py", "__init__.py"):
        path = root / package / candidate
        if _is_file(path):
            found = _DUNDER_VERSION.search(_read(path))
            if found:
                return found.group(1)
    return None
