"""A package vendored inside the scanned tree that imports itself by its own top-level
name: vLLM ships `vllm/third_party/triton_kernels/`, whose modules say `from
triton_kernels.target_info import cuda_capability_geq`; FlashInfer's CuTe DSL kernels
under `moe_ep/kernel_src/.../src/moe_hopper_fp8/` say `from moe_hopper_fp8.epilogue_fp8
import ...`. Such an import names the copy beside it (or the same code installed on its
own): read as the vendored package's module, not as an unknown library.

A name is read so only where nothing else can be meant: no module of the project has the
top-level name, exactly one package of the project (below the top) is named so, and its
own modules' absolute imports of that name mostly import what the package itself defines
(a `def`, `class` or assignment at a module's top level, a name it imports from another
library, or a submodule). A package named
like a library it wraps is not a copy of it: vLLM's `compressed_tensors` quantization
package imports `TransformScheme` from the `compressed_tensors` library, and
TransformerEngine's `jax` package `PartitionSpec` from `jax.sharding`, neither defined
in the package of that name; those imports stay the library's."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

# `from NAME[.sub...] import a, b as c` at a statement's start, its names up to the line's
# end or, parenthesized, to the closing parenthesis.
_FROM_IMPORT = r"^[ \t]*from[ \t]+({top}(?:\.\w+)*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*)"
# Any `from MODULE import ...` at a statement's start.
_ANY_FROM_IMPORT = re.compile(
    r"^[ \t]*from[ \t]+([\w.]+)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*)", re.MULTILINE
)
# What a module defines at its top level: `def NAME`, `class NAME`, `NAME =`, `NAME: T =`.
_DEFINES = re.compile(
    r"^(?:(?:async[ \t]+)?def[ \t]+(\w+)|class[ \t]+(\w+)|(\w+)[ \t]*(?::[^=\n]*)?=(?!=))",
    re.MULTILINE,
)


def vendored_package(
    top: str,
    packages: Iterable[str],
    modules: Mapping[str, Path],
    text_of: Callable[[Path], str | None],
) -> str | None:
    """The dotted name of the one package of the project that is a vendored copy of
    `top` (see the module), or None. `packages`: the project's packages by dotted name;
    `modules`: every module's dotted name -> its file."""
    named = [p for p in packages if p.rpartition(".")[2] == top and "." in p]
    if len(named) != 1:
        return None
    package = named[0]
    pattern = re.compile(_FROM_IMPORT.format(top=re.escape(top)), re.MULTILINE)
    defined: dict[str, set[str]] = {}
    own = own_imports = 0
    for name, path in modules.items():
        if not (name == package or name.startswith(package + ".")):
            continue
        text = text_of(path)
        if text is None:
            continue
        for match in pattern.finditer(text):
            rest = match.group(1)[len(top) :]
            target = package + rest
            if target not in modules:
                continue
            names = _imported_names(match.group(2))
            own_imports += 1
            if names and all(
                f"{target}.{n}" in modules or n in _defined(top, target, modules, text_of, defined)
                for n in names
            ):
                own += 1
    return package if own > own_imports - own else None


def _imported_names(spelled: str) -> list[str]:
    """`a, b as c` (or `(a,\n b)`) -> ['a', 'b']; a star import names nothing."""
    names = []
    for part in spelled.strip().strip("()").split(","):
        name = part.split("#", 1)[0].strip().split(" as ", 1)[0].strip()
        if name == "*":
            return []
        if name:
            names.append(name)
    return names


def _defined(
    top: str,
    module: str,
    modules: Mapping[str, Path],
    text_of: Callable[[Path], str | None],
    seen: dict[str, set[str]],
) -> set[str]:
    """The names `module` binds at its top level: its own definitions, and what it
    imports from libraries other than `top` (vLLM's vendored `target_info` re-exports
    Triton's `cuda_capability_geq`; a name taken from `top` itself would be the
    library's, as TransformerEngine's `jax.sharding` takes `PartitionSpec`)."""
    found = seen.get(module)
    if found is None:
        text = text_of(modules[module]) or ""
        found = {next(g for g in m.groups() if g) for m in _DEFINES.finditer(text)}
        for match in _ANY_FROM_IMPORT.finditer(text):
            source = match.group(1)
            if source.partition(".")[0] != top:
                found.update(_imported_names(match.group(2)))
        seen[module] = found
    return found
