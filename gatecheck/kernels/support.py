"""Which generations a kernel is built for, read statically from the kernel library's
source: `supported_major_versions=[9, 10]` build flags, `@supported_compute_capability(
[100, 103])` decorators, arch lists, and capability checks in the function that loads the
module -- following calls from the named entry point a few hops into the library."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from astroid import nodes

from gatecheck.config.model import Registry
from gatecheck.discovery import discover
from gatecheck.kernels.locate import KernelSource
from gatecheck.loading.project import Project
from gatecheck.loading.trees import own_nodes
from gatecheck.semantics.admitted import Semantics
from gatecheck.semantics.evaluator import Evaluator
from gatecheck.semantics.values import UNKNOWN, FunctionRef, OneOf, PartialRef, SomeText

MAX_HOPS = 4
_ARCH_KEYWORDS = re.compile(r"^(supported_|target_|cuda_)?(archs?|arch_list|sm_versions?)$")


@dataclass(frozen=True)
class KernelSupport:
    kernel: str
    source: KernelSource | None
    # None: could not tell (no idiom found, or the library is not available).
    generations: frozenset[str] | None
    built_for: str  # "majors 9, 10" / "sm100, sm103" / why it cannot tell
    evidence: tuple[str, ...] = ()
    reached: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        package = self.source.package if self.source else self.kernel.split(".")[0]
        version = f" {self.source.version}" if self.source and self.source.version else ""
        short = self.kernel.rsplit(".", 1)[-1]
        return f"{short} in {package}{version}"


def _gens_for_majors(registry: Registry, majors: set[int]) -> frozenset[str]:
    return frozenset(
        g.name for g in registry.generations if g.vendor == "nvidia" and g.major in majors
    )


def gens_for_arch(registry: Registry, entry: Any) -> frozenset[str]:
    """'90a', 'sm_100a', '12.0', 120, (9, 0) -> generations."""
    nvidia = [g for g in registry.generations if g.vendor == "nvidia"]
    if isinstance(entry, tuple) and len(entry) == 2:
        major, minor = entry
        minor_digits = re.sub(r"\D", "", str(minor)) or "0"
        return frozenset(g.name for g in nvidia if g.capability == (int(major), int(minor_digits)))
    text = str(entry).lower().removeprefix("sm_").removeprefix("sm").removeprefix("compute_")
    family = text.endswith("f")
    match = re.fullmatch(r"(\d+)\.(\d+)[af]?|(\d+)(\d)[af]?", text)
    if not match:
        return frozenset()
    if match.group(1):
        major, minor = int(match.group(1)), int(match.group(2))
    else:
        major, minor = int(match.group(3)), int(match.group(4))
    if family:
        return frozenset(g.name for g in nvidia if g.major == major and g.minor >= minor)
    return frozenset(g.name for g in nvidia if g.capability == (major, minor))


@dataclass(frozen=True)
class Declaration:
    """A kernel declaration without an `if`: the decorator call or the build keyword that
    lists the generations a kernel is declared or built for."""

    node: nodes.NodeNG  # the decorator call, or the keyword argument
    generations: frozenset[str]
    spelled: str  # `supported_compute_capability([100, 103])`, `supported_major_versions=[9]`


def decorator_declarations(
    decorated: nodes.FunctionDef | nodes.ClassDef, evaluator: Evaluator, registry: Registry
) -> Iterator[Declaration]:
    """`@supported_compute_capability([100, 103])` (SM integers, also through a named
    constant list) and `@supported_arch(...)` decorators."""
    if decorated.decorators is None:
        return
    for decorator in decorated.decorators.nodes:
        if not isinstance(decorator, nodes.Call) or not decorator.args:
            continue
        name = decorator.func.as_string().rsplit(".", 1)[-1]
        if "compute_capability" in name or "supported_arch" in name:
            gens = arch_list(decorator.args[0], evaluator, registry, sm_ints=True)
            if gens is not None:
                yield Declaration(decorator, gens, f"{name}({decorator.args[0].as_string()})")


# Methods whose returned SM integer is the least capability their class supports: the
# quantization configs and kernels of vLLM and SGLang (and their plugins) declare it so,
# and the engine raises where `capability < config.get_min_capability()`.
MINIMUM_METHODS = frozenset({"get_min_capability"})


def minimum_declarations(
    func: nodes.FunctionDef, evaluator: Evaluator, registry: Registry
) -> Iterator[Declaration]:
    """`def get_min_capability(cls) -> int: return 80` in a class: each returned SM
    integer declares the generations whose capability (major * 10 + minor, as the engines
    compare it) is at least that; `80 if flag else 100` declares at least 80."""
    if func.name not in MINIMUM_METHODS or not isinstance(func.parent, nodes.ClassDef):
        return
    for returned in own_nodes(func.body, nodes.Return):
        if returned.value is None:
            continue
        values = _declared_ints(returned.value, evaluator)
        if not values:
            continue
        least = min(values)
        gens = frozenset(g.name for g in registry.generations if g.sm_version >= least)
        yield Declaration(returned.value, gens, f"{func.name}() -> {returned.value.as_string()}")


def _declared_ints(node: nodes.NodeNG, evaluator: Evaluator) -> set[int] | None:
    """The SM integers `node` may be: a constant, a few of them, either branch of a test."""
    if isinstance(node, nodes.IfExp):
        body, orelse = _declared_ints(node.body, evaluator), _declared_ints(node.orelse, evaluator)
        return None if body is None or orelse is None else body | orelse
    value = evaluator.value(node)
    options = value.options if isinstance(value, OneOf) else (value,)
    if all(isinstance(v, int) and not isinstance(v, bool) for v in options):
        return set(options)
    return None


def build_declarations(
    call: nodes.Call, evaluator: Evaluator, registry: Registry
) -> Iterator[Declaration]:
    """Build arch lists passed to a call: `supported_major_versions=[9, 10]` (majors) and
    `arch_list=` / `supported_archs=` / `sm_versions=` keywords (arch spellings)."""
    for keyword in call.keywords or []:
        spelled = f"{keyword.arg}={keyword.value.as_string()}"
        if keyword.arg == "supported_major_versions":
            majors = evaluator.value(keyword.value)
            if isinstance(majors, (list, tuple)) and all(isinstance(m, int) for m in majors):
                yield Declaration(keyword, _gens_for_majors(registry, set(majors)), spelled)
        elif keyword.arg and _ARCH_KEYWORDS.match(keyword.arg):
            gens = arch_list(keyword.value, evaluator, registry, sm_ints=False)
            if gens is not None:
                yield Declaration(keyword, gens, spelled)


# A keyword passing nvcc's options (`extra_cuda_cflags=`, `nvcc_flags=`, `cuda_args=`).
_NVCC_KEYWORDS = re.compile(r"^\w*(cuda|nvcc)\w*(flags|args)$")
# `-gencode=arch=compute_90a,code=sm_90a` (also `--generate-code`, `code=[sm_90a,compute_90a]`).
_GENCODE = re.compile(
    r"(?:-gencode|--generate-code)(?:=|\s+)arch=compute_\d+[af]?,code=(\[[^\]]*\]|[\w]+)"
)
# `-arch=sm_90a`, `--gpu-architecture compute_80`: code for that arch and its PTX (nvcc).
_ARCH_OPTION = re.compile(r"(?:^|\s)(?:-arch|--gpu-architecture)(?:=|\s+)(\w+)(?=\s|$)")
_CODE = re.compile(r"^(sm|compute|lto)_(\d)(\d)([af]?)$|^(sm|compute|lto)_(\d{2})(\d)([af]?)$")


def flag_declarations(
    call: nodes.Call, evaluator: Evaluator, registry: Registry
) -> Iterator[Declaration]:
    """nvcc's arch options passed to a build (`extra_cuda_cflags=["-gencode=arch=
    compute_90a,code=sm_90a", "-O3"]`, a module's flag list, `extra_compile_args={"nvcc":
    [...]}`): the generations the code is built for. `sm_XYa` is that part alone, `sm_XYf`
    its family, plain `sm_XY` its major from minor Y up (the binary runs there), plain
    `compute_XY` everything from (X, Y) up (the PTX is compiled at load). Only flag lists
    every entry of which is read (an unknown entry may be another arch option), holding
    one arch option at least, none that builds for any part (`-arch=native`, `all`).
    The audit's rows only: a list of flags is no list a fix extends (declared_list)."""
    for keyword in call.keywords or []:
        entries: list[str] | None = None
        if keyword.arg and _NVCC_KEYWORDS.match(keyword.arg):
            entries = _flag_entries(keyword.value, evaluator)
        elif keyword.arg == "extra_compile_args":
            options = evaluator.value(keyword.value)
            value = options.get("nvcc") if isinstance(options, dict) else None
            entries = _entries(value)
        if not entries:
            continue
        gens = _built_for(" ".join(entries), registry)
        if gens is not None:
            yield Declaration(keyword, gens, f"{keyword.arg}={keyword.value.as_string()}")


def command_declarations(
    call: nodes.Call, evaluator: Evaluator, registry: Registry
) -> Iterator[Declaration]:
    """nvcc run as a command (`subprocess.check_call(["nvcc", *flags, src, "-o", out])`,
    deep_gemm's JIT): the arch options among the command's words. The command is the
    call's first argument, a list whose first word is nvcc; its other words are read as
    they are (a flag list spread into it too), every spread list read whole. Words not
    known (a source or output path) are passed over: an arch option is written as a
    string where the command is."""
    if not call.args:
        return
    command = call.args[0]
    if not isinstance(command, (nodes.List, nodes.Tuple)) or not command.elts:
        return
    head = evaluator.value(command.elts[0])
    if not isinstance(head, str) or head.rsplit("/", 1)[-1] != "nvcc":
        return
    words: list[str] = []
    for element in command.elts[1:]:
        if isinstance(element, nodes.Starred):
            spread = _entries(evaluator.value(element.value))
            if spread is None:
                return  # a spread list not read: it may hold any arch option
            words.extend(spread)
            continue
        value = evaluator.value(element)
        if isinstance(value, str):
            words.append(value)
    gens = _built_for(" ".join(words), registry)
    if gens is not None:
        yield Declaration(command, gens, f"nvcc command {command.as_string()}")


def flag_list_declarations(
    owner: nodes.Module | nodes.ClassDef | nodes.FunctionDef,
    evaluator: Evaluator,
    registry: Registry,
) -> Iterator[Declaration]:
    """A module's, class's or function's list of nvcc flags written out under a name
    (`_SM90A_ARCH_FLAGS = ("-gencode=arch=compute_90a,code=sm_90a",)`; deep_gemm's JIT
    `nvcc_flags = [..., "-gencode=arch=compute_90a,code=sm_90a", ...]` in the function
    that runs nvcc): the generations the code it builds is for, however the list reaches
    the build (through a wrapper class, a function returning it, `load(**kwargs)`, a
    command held in a name). Only a list or tuple display each of whose entries is read,
    as flag_declarations reads them (a string, one of a few, or one that begins with
    another option), one of them an arch option at least. A list grown by `+=` one
    display at a time (`flags += ["-gencode", "arch=compute_80,code=sm_80"]`): each
    display is a declaration of its own, as each `append` is (appended_flag_declarations)."""
    for statement in owner.body:
        if isinstance(statement, nodes.AugAssign) and statement.op != "+=":
            continue
        if not isinstance(statement, (nodes.Assign, nodes.AnnAssign, nodes.AugAssign)):
            continue
        value = statement.value
        if not isinstance(value, (nodes.List, nodes.Tuple)) or not value.elts:
            continue
        if any(isinstance(e, nodes.Starred) for e in value.elts):
            continue
        entries = _entries([evaluator.value(e) for e in value.elts])
        if not entries:
            continue
        gens = _built_for(" ".join(entries), registry)
        if gens is not None:
            targets = (
                statement.targets if isinstance(statement, nodes.Assign) else [statement.target]
            )
            operator = statement.op if isinstance(statement, nodes.AugAssign) else "="
            yield Declaration(
                value, gens, f"{targets[0].as_string()} {operator} {value.as_string()}"
            )


# A list's methods that add the strings they are given (`cc_flag.append("-gencode")`).
_ADDING = frozenset({"append", "extend", "insert"})


def appended_flag_declarations(
    call: nodes.Call, evaluator: Evaluator, registry: Registry
) -> Iterator[Declaration]:
    """An nvcc arch option added to a flag list one call at a time, each under the test
    that picks it (flash-attn's setup.py: `if "90" in cuda_archs(): cc_flag.append(
    "-gencode"); cc_flag.append("arch=compute_90,code=sm_90")`): each is a build
    declaration of its own, for the generations its code runs on. The option is a
    string the call is given (`append`, `insert`, a list `extend`s), a whole option or
    the `arch=compute_XY,code=...` word that follows `-gencode`. Where the list ends up
    is not read: these are the rows of a build whose flags cannot be read whole."""
    func = call.func
    if not isinstance(func, nodes.Attribute) or func.attrname not in _ADDING or not call.args:
        return
    given = call.args[-1]
    words = given.elts if isinstance(given, (nodes.List, nodes.Tuple)) else [given]
    for word in words:
        value = evaluator.value(word)
        if not isinstance(value, str):
            continue
        text = f"-gencode {value}" if value.startswith("arch=compute_") else value
        if not _ARCH_OPTION_HEAD.match(text):
            continue
        gens = _built_for(text, registry)
        if gens is not None:
            yield Declaration(word, gens, f"{call.as_string()}")


def _flag_entries(node: nodes.NodeNG, evaluator: Evaluator) -> list[str] | None:
    """The options a flag expression may hold, read part by part along its `+` joins
    (`xqa_flags + sm90a_nvcc_flags + flag_fp16`, a part set one way or another in
    branches holding every option of each way); None where a part is not read."""
    if isinstance(node, nodes.BinOp) and node.op == "+":
        left = _flag_entries(node.left, evaluator)
        right = None if left is None else _flag_entries(node.right, evaluator)
        return None if left is None or right is None else left + right
    return _entries(evaluator.value(node))


def _entries(value: Any) -> list[str] | None:
    if isinstance(value, OneOf):
        found: list[str] = []
        for option in value.options:
            entries = _entries(option)
            if entries is None:
                return None
            found.extend(entries)
        return found
    if not isinstance(value, (list, tuple)):
        return None
    found = []
    for entry in value:
        if isinstance(entry, OneOf):
            # One of a few strings (`"--ptxas-options=-v" + (",x" if debug else "")`): the
            # list holds one of them, each read as an entry.
            if not all(isinstance(o, str) for o in entry.options):
                return None
            found.extend(entry.options)
        elif isinstance(entry, str):
            found.append(entry)
        elif not _other_option(entry):
            return None
    return found


# A capability range given as bounds (the kernels hub's `CUDAProperties(min_capability=121,
# max_capability=121)`), as `major * 10 + minor`.
_RANGE_BOUNDS = (
    ("min_capability", "max_capability"),
    ("min_compute_capability", "max_compute_capability"),
)


def range_declarations(
    call: nodes.Call, evaluator: Evaluator, registry: Registry
) -> Iterator[Declaration]:
    """A CUDA capability range a call declares with constant bounds (`min_capability=80`,
    `max_capability=121`, either alone): the NVIDIA generations inside it. Not where the
    callee names another platform (`ROCMProperties`: its numbers are not CUDA's), and
    no bound but a whole number from 30 to 199 is read. The audit's rows only."""
    callee = call.func.attrname if isinstance(call.func, nodes.Attribute) else None
    if isinstance(call.func, nodes.Name):
        callee = call.func.name
    if callee is None or any(p in callee.lower() for p in ("rocm", "hip", "xpu", "npu")):
        return
    keywords = {k.arg: k for k in call.keywords or [] if k.arg}
    for low_name, high_name in _RANGE_BOUNDS:
        low, high = keywords.get(low_name), keywords.get(high_name)
        if low is None and high is None:
            continue
        bounds = [None if k is None else evaluator.value(k.value) for k in (low, high)]
        if not all(b is None or _sm_number(b) for b in bounds):
            continue
        least, most = bounds
        gens = frozenset(
            g.name
            for g in registry.generations
            if g.vendor == "nvidia"
            and (least is None or g.sm_version >= least)
            and (most is None or g.sm_version <= most)
        )
        spelled = ", ".join(k.as_string() for k in (low, high) if k is not None)
        yield Declaration(call, gens, spelled)


def _sm_number(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 30 <= value < 200


# How an option that builds for an arch begins (nvcc's spellings).
_ARCH_OPTION_HEAD = re.compile(
    r"^-(-?gencode|-generate-code|arch|-gpu-architecture|code|-gpu-code)"
)


def _other_option(entry: Any) -> bool:
    """An entry not read whole whose known start makes it an option of another kind
    (f"-DTOKENS_PER_PAGE={n}": a define): not an arch option, whatever follows."""
    head = entry.head if isinstance(entry, SomeText) else ""
    return len(head) >= 2 and head.startswith("-") and not _ARCH_OPTION_HEAD.match(head)


def _built_for(flags: str, registry: Registry) -> frozenset[str] | None:
    codes = [c for group in _GENCODE.findall(flags) for c in group.strip("[]").split(",")]
    for arch in _ARCH_OPTION.findall(flags):
        if not _CODE.match(arch):
            return None  # `-arch=native`, `all`, `all-major`: whatever the machine is
        # `-arch=sm_89` is `-gencode arch=compute_89,code=[sm_89,compute_89]`: its PTX too.
        codes.append("compute_" + arch.split("_", 1)[1])
    if not codes:
        return None
    nvidia = [g for g in registry.generations if g.vendor == "nvidia"]
    gens: set[str] = set()
    for code in codes:
        match = _CODE.match(code.strip())
        if match is None:
            return None  # a code not read: the whole list is not known
        kind, major, minor, suffix = [p for p in match.groups() if p is not None]
        least = (int(major), int(minor))
        if suffix == "a":
            gens |= {g.name for g in nvidia if g.capability == least}
        elif suffix == "f" or kind != "compute":
            gens |= {g.name for g in nvidia if g.major == least[0] and g.minor >= least[1]}
        else:
            gens |= {g.name for g in nvidia if g.capability >= least}
    return frozenset(gens)


def arch_list(
    node: nodes.NodeNG, evaluator: Evaluator, registry: Registry, sm_ints: bool
) -> frozenset[str] | None:
    """The generations a literal (or constant) arch list names; None when it is not one."""
    value = evaluator.value(node)
    if not isinstance(value, (list, tuple, set, frozenset)) or value is UNKNOWN:
        return None
    gens: set[str] = set()
    for entry in value:
        if isinstance(entry, int) and sm_ints:
            gens |= {
                g.name
                for g in registry.generations
                if g.vendor == "nvidia" and g.sm_version == entry
            }
        elif isinstance(entry, int):
            gens |= (
                _gens_for_majors(registry, {entry})
                if entry < 20
                else gens_for_arch(registry, str(entry))
            )
        else:
            gens |= gens_for_arch(registry, entry)
    return frozenset(gens)


class KernelReader:
    """A lazily loaded project over one kernel library."""

    def __init__(self, source: KernelSource, registry: Registry) -> None:
        self.source = source
        self.registry = registry
        found = discover([source.root / source.package])
        self.project = Project(found.files, [source.root])
        self.semantics = Semantics(self.project, registry)
        self._evaluator = self.semantics.evaluator(registry.names[0])

    def resolve(self, dotted: str) -> nodes.FunctionDef | None:
        parts = dotted.split(".")
        for split in range(len(parts) - 1, 0, -1):
            module_name = ".".join(parts[:split])
            if not self.project.has_module(module_name):
                continue
            value: Any = self._evaluator.module_attribute(module_name, parts[split])
            for attr in parts[split + 1 :]:
                value = self._evaluator.attribute(value, attr)
            while isinstance(value, PartialRef):
                value = value.func
            if isinstance(value, FunctionRef) and isinstance(value.node, nodes.FunctionDef):
                return value.node
            return None
        return None

    def support(self, dotted: str) -> KernelSupport:
        entry = self.resolve(dotted)
        if entry is None:
            return KernelSupport(
                dotted, self.source, None, f"cannot find `{dotted}` in {self.source.root}"
            )
        allowed: frozenset[str] | None = None
        evidence: list[str] = []
        reached: list[str] = []
        for function in self._reach(entry):
            reached.append(_qualname(function))
            for gens, why in self._restrictions(function):
                allowed = gens if allowed is None else allowed & gens
                evidence.append(why)
        if allowed is None:
            return KernelSupport(
                dotted,
                self.source,
                None,
                "no arch restriction found in its build or loader (cannot tell)",
                (),
                tuple(reached),
            )
        return KernelSupport(
            dotted,
            self.source,
            allowed,
            _describe(self.registry, allowed),
            tuple(evidence),
            tuple(reached),
        )

    def _reach(self, entry: nodes.FunctionDef) -> Iterator[nodes.FunctionDef]:
        """The entry and the library functions it calls, breadth first, a few hops."""
        seen = {id(entry)}
        frontier = [entry]
        for _hop in range(MAX_HOPS):
            following: list[nodes.FunctionDef] = []
            for function in frontier:
                yield function
                for call in function.nodes_of_class(nodes.Call):
                    if call.scope() is not function:
                        continue
                    value = self._evaluator.value(call.func)
                    while isinstance(value, PartialRef):
                        value = value.func
                    if (
                        isinstance(value, FunctionRef)
                        and isinstance(value.node, nodes.FunctionDef)
                        and id(value.node) not in seen
                    ):
                        seen.add(id(value.node))
                        following.append(value.node)
            frontier = following
            if not frontier:
                return

    def _restrictions(self, function: nodes.FunctionDef) -> Iterator[tuple[frozenset[str], str]]:
        where = self._where(function)
        for declared in decorator_declarations(function, self._evaluator, self.registry):
            yield declared.generations, f"@{declared.spelled} at {where(declared.node)}"
        for call in function.nodes_of_class(nodes.Call):
            if call.scope() is not function:
                continue
            for declared in build_declarations(call, self._evaluator, self.registry):
                yield declared.generations, f"{declared.spelled} at {where(declared.node)}"
        loader = self._loader_restriction(function)
        if loader is not None:
            yield loader, f"capability check in {function.name} at {where(function)}"

    def _loader_restriction(self, function: nodes.FunctionDef) -> frozenset[str] | None:
        """A loader that raises unless the device is right: where can it return?"""
        if not any(isinstance(n, nodes.Raise) for n in function.nodes_of_class(nodes.Raise)):
            return None
        completes = self.semantics.per_generation(
            lambda _gen, evaluator: evaluator.can_complete(FunctionRef(function))
        )
        returns = {generation for generation, done in completes.items() if done}
        if not returns or returns == self.registry.all_names():
            return None  # raises always, or never because of the device: no arch check
        return frozenset(returns)

    def _where(self, function: nodes.FunctionDef) -> Any:
        root = function.root()
        path = Path(root.file) if isinstance(root, nodes.Module) and root.file else Path("?")
        try:
            shown = path.relative_to(self.source.root).as_posix()
        except ValueError:
            shown = path.as_posix()

        def where(node: nodes.NodeNG) -> str:
            return f"{shown}:{node.lineno}"

        return where


def _qualname(function: nodes.FunctionDef) -> str:
    root = function.root()
    module = str(root.name) if isinstance(root, nodes.Module) else "?"
    return f"{module}.{function.name}"


def _describe(registry: Registry, gens: frozenset[str]) -> str:
    nvidia = [g for g in registry.generations if g.vendor == "nvidia"]
    majors = sorted({g.major for g in nvidia if g.name in gens})
    whole = all({g.name for g in nvidia if g.major == m} <= gens for m in majors)
    if majors and whole:
        return (
            "majors " + ", ".join(str(m) for m in majors)
            if len(majors) > 1
            else f"major {majors[0]}"
        )
    return ", ".join(registry.ordered(gens)) or "no generation"
