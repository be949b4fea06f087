"""Files that spell no arch idiom but use a name that carries the device: the audit's
second look. The text prefilter (prefilter.py) admits only files that spell an idiom,
but a project's own predicates and decisions (`is_sm_at_least_89()`,
`deep_gemm_wrapper.ENABLE_JIT_DEEPGEMM`, `self.use_fp8_gemm`) are used in files that
spell none. The names are read off what the semantics found, never guessed from the
names: a function a varying condition is returned from (or decides a return in), a name
a varying condition is assigned to, and a definition made of such names whose own value
varies (a function's returns, a module or class attribute, `self.x = ...`). A file that
spells one of them is audited too, and what it defines is read the same way, round after
round. A file brought in by a name costs time, never a wrong row: its conditions are
evaluated like any other file's.

A value tells generations apart as a condition does: a helper returning the capability as
a number (`def sm(): major, minor = get_device_capability(); return major * 10 + minor`),
or a constant holding it (`SM = sm()`), is tested in a file that spells no idiom (`if
sm() == 90:`). So a definition is followed when its value varies within a vendor, not
only its truth (a number, a tuple, a string, an object whose attributes differ), and the
definitions the searched files make of an arch idiom (`get_device_capability` above) are
read from the first round, as if the idiom were a name found to carry the device. Within
a vendor: the audited one's, or another's (`current_platform.is_fp8_fnuz()` tells gfx942
apart on an sm120 audit too, and its uses are gates, classed as another vendor's). A
value the same on every generation of each vendor (`torch.version.hip is not None`, a
device count, an unknown) brings in no file."""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Collection, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from astroid import nodes

from gatecheck import forking, progress
from gatecheck.audit import workers
from gatecheck.audit.conditions import (
    ArchCondition,
    Role,
    SlotKind,
    function_scope,
    varies,
)
from gatecheck.audit.prefilter import IDIOM_PIECES, mentions_arch
from gatecheck.containment import Containment
from gatecheck.loading.lazy import spelled_nodes
from gatecheck.loading.resolve import absolute_import_name, parameter_names
from gatecheck.loading.trees import own_nodes
from gatecheck.semantics.admitted import Semantics
from gatecheck.semantics.class_writes import ASSIGNED_ATTRIBUTE
from gatecheck.semantics.conventions import identifies
from gatecheck.semantics.dispatch import serves_another_platform
from gatecheck.semantics.module_names import block_statements
from gatecheck.semantics.values import (
    Capability,
    CudaCoreDevice,
    CuteArch,
    DeviceProps,
    EachDevice,
    EnumMember,
    InstanceRef,
    OneOf,
    TritonTarget,
    is_constant,
)
from gatecheck.textsearch import Words

# Rounds of "files spelling a name -> their names": a chain of definitions this deep
# across files is rare; past it, the files the next round would add are left out.
MAX_ROUNDS = 6
# A name defined this many times over is a protocol's (`forward`, `supported`, `apply`):
# a file spelling it calls it on an object of any of those classes, which the semantics
# cannot tell apart by the name, so the name brings in no file.
MAX_DEFINITIONS = 4
# `def NAME` (a function or method) and `.NAME =` (an attribute set on an object): two
# patterns, each scanned on its own (one alternation of both, tried at every position,
# took half as long again: 0.59 s against 0.39 s over sglang 0.5.23's candidates).
_DEFINES = re.compile(r"^([ \t]*)(?:async[ \t]+)?(def|class)[ \t]+(\w+)", re.MULTILINE)
_SETS = re.compile(ASSIGNED_ATTRIBUTE)
# Definitions a worker evaluates at least (one takes 1-2 ms; a fork and what the worker
# sends back, about as much as a hundred): vLLM 0.33.0's first round checks about 2,000.
WORKER_DEFINITIONS = 150
# Text a worker scans at least for the names found (the scan runs at about 25 MB/s).
WORKER_CHARS = 4_000_000


def _defined_names(text: str) -> Iterator[str]:
    """The names the text defines with `def`, less the methods of classes named for a
    platform no generation is (DeepSpeed's `MLU_Accelerator.is_triton_supported`): which
    of those classes' objects the device gets is runtime platform dispatch's to say
    (semantics/dispatch.py), so they make no name a protocol's."""
    classes: list[tuple[int, str]] = []  # the enclosing classes, by indentation
    for match in _DEFINES.finditer(text):
        indent, keyword, name = match.groups()
        depth = len(indent.expandtabs())
        while classes and classes[-1][0] >= depth:
            classes.pop()
        if keyword == "class":
            classes.append((depth, name))
        elif not (classes and serves_another_platform(classes[-1][1])):
            yield name


class Widening:
    """The rounds, as audit.run.discover asks for them: given the conditions found last,
    the modules (built whole) of the files not searched yet that spell a name found to
    carry the device since the last round; `names` is every such name so far."""

    def __init__(
        self,
        semantics: Semantics,
        modules: Iterable[nodes.Module],
        contain: Containment,
        only: Collection[Path] | None = None,
        jobs: int = 1,
    ) -> None:
        self.semantics = semantics
        self.jobs = jobs  # processes a large round's evaluation may be shared by
        self.project = semantics.project
        self.vendors = vendor_groups(semantics)
        self.contain = contain
        self.only = only
        self.modules = list(modules)
        self.searched = {Path(m.file) for m in self.modules if m.file}
        self.defined: list[Definition] = []
        self.names: set[str] = set()
        # Names a module binds only under a device test (_bound_by_device): a file
        # testing whether they exist is searched too.
        self.present: set[str] = set()
        self.rounds = 0
        self._by_path = {Path(m.file): m for m in self.modules if m.file}
        self._read_for: set[str] = set()  # names whose spelling modules were read
        self._checked: set[Definition] = set()
        self._idioms_read = False
        self._known: set[tuple[str, int, frozenset[str]]] = set()  # each read once
        self._counts: Counter[str] = Counter()
        self._parts: PartsMemo = {}  # each function's body read once for the rounds
        # Names found to carry the device but defined too often to be followed (a
        # protocol's): an audit of fewer files may count them under the bound (impact).
        self.protocols: set[str] = set()
        for path in self._by_path:
            self._count(path)

    def __call__(self, found: Sequence[ArchCondition]) -> list[nodes.Module]:
        if self.rounds == MAX_ROUNDS:
            return []
        self.rounds += 1
        names = self._passed_on(self.names | found_names(found, self.vendors))
        # A name that spells an idiom is used only in files the prefilter passed already
        # (every use has a boundary on both sides, see `spelling`).
        new = sorted(n for n in names - self.names if not mentions_arch(n))
        self.names = names
        present = sorted(self._bound_by_device(found) - self.present)
        self.present.update(present)
        if not new and not present:
            return []
        # Read as a scan: the names themselves are what a cache or impact compares.
        words = Words(new) if new else None
        # A name whose existence the device decides is asked for by its spelling
        # (`hasattr(kern, "block_scale")`): only such files are searched for it.
        quoted = Words(present) if present else None
        paths = self._spelling(
            [
                path
                for path in self.project.files
                if path not in self.searched and (self.only is None or path in self.only)
            ],
            words,
            quoted,
        )
        self.searched.update(paths)
        if not paths:
            return []
        progress.stage("building trees of files using device names", len(paths))
        added: list[nodes.Module] = []
        for path in paths:
            if (module := self.project.module_at(path, whole=True)) is not None:
                added.append(module)
                self._by_path[path] = module
                self._count(path)
                # The names looked for before it was searched: read in it now.
                self._define(definitions(module, self._read_for, self._parts))
            progress.advance()
        self.modules.extend(added)
        progress.stage("evaluating conditions", len(added))
        return added

    def _spelling(
        self, paths: Sequence[Path], words: Words | None, quoted: Words | None
    ) -> list[Path]:
        """The paths whose text uses one of `words` or asks for one of `quoted`
        (_searched_for), in order; the texts shared with workers when there is enough
        of them (WORKER_CHARS each: the scan is a pass over every text of the project
        not searched yet, 1.7 s of vLLM 0.33.0's first round)."""
        test = functools.partial(_searched_for, words=words, quoted=quoted)
        answers: dict[int, bool] = {}

        def here(index: int) -> None:
            answers[index] = test(self.project.text_of(paths[index]) or "")

        with self.project.scanning():
            processes = 1
            if self.jobs > 1 and forking.can_fork():
                weights = [len(self.project.text_of(path) or "") for path in paths]
                processes = workers.plan(weights, self.jobs, WORKER_CHARS)
            if processes > 1:
                task = functools.partial(self._spelling_share, paths, test)
                outcomes, _, _ = workers.claimed(
                    self.project, self.semantics, len(paths), processes, task, here
                )
                answers.update(outcomes)
            for index in range(len(paths)):
                if index not in answers:  # one process, or a worker that failed
                    here(index)
        return [path for index, path in enumerate(paths) if answers[index]]

    def _spelling_share(
        self, paths: Sequence[Path], test: Callable[[str], bool], claims: workers.Claims
    ) -> workers.Share[int, bool]:
        """A worker's task: `test` of each text it claims from the back."""
        with self.project.scanning():
            return workers.answered(
                self.project,
                self.semantics,
                claims,
                lambda index: test(self.project.text_of(paths[index]) or ""),
            )

    def _bound_by_device(self, found: Sequence[ArchCondition]) -> set[str]:
        """The names a module binds only under an `if` at its top level (or in a `with`,
        `try` or loop there) whose test varies within a vendor (a `def`, a class, an
        import, an assignment, and the names a star import there copies): whether
        another module finds them (`hasattr(kern, "block_scale")`) depends on the
        device (semantics/module_names.py)."""
        names: set[str] = set()
        for condition in found:
            statement = condition.statement
            if (
                condition.kind is not SlotKind.IF
                or condition.role is Role.VENDOR
                or not isinstance(statement, nodes.If)
                or not _at_module_level(statement)
                or not any(varies(condition.admission, group) for group in self.vendors)
            ):
                continue
            stars: list[str] = []
            names.update(_bound_in(statement, stars))
            for star in stars:  # the names a star import copies: its module's own
                source = self.project.module(self.project.canonical(star))
                if source is not None:
                    names.update(n for n in source.locals if not n.startswith("_"))
        return {n for n in names if _exported(n)}

    def _count(self, path: Path) -> None:
        """How often the searched files define each name as a function or method, or set
        it on an object: read from the text, so that only files spelling a name found to
        carry the device have their trees walked for definitions."""
        with self.project.scanning():
            text = self.project.text_of(path) or ""
        self._counts.update(_defined_names(text))
        self._counts.update(_SETS.findall(text))

    def _passed_on(self, names: set[str]) -> set[str]:
        """`names` and every definition made of one of them whose value varies, to a
        fixpoint (each definition is evaluated once: what it admits does not depend on
        which names are known), less the protocols' names (MAX_DEFINITIONS)."""
        closed = {n for n in names if self._counts[n] <= MAX_DEFINITIONS}
        self.protocols.update(names - closed)
        if not self._idioms_read:
            # Only the files the prefilter passed spell an idiom: read once.
            self._idioms_read = True
            for module in self._by_path.values():
                self._define(idiom_definitions(module, self._parts))
        while True:
            self._read_definitions(closed - self._read_for)
            todo: list[Definition] = []
            for definition in self.defined:
                name = definition.name
                if definition in self._checked or name in closed:
                    continue
                if not (definition.of_idiom or not definition.made_of.isdisjoint(closed)):
                    continue
                if self._counts[name] > MAX_DEFINITIONS:
                    self.protocols.add(name)
                    continue
                todo.append(definition)
            added = self._varying(todo)
            if not added:
                return closed
            closed |= added

    def _varying(self, todo: Sequence[Definition]) -> set[str]:
        """The names of `todo` some definition of which varies, each name's definitions
        evaluated in order until one does (the rest are left unchecked). With workers
        (workers.plan: WORKER_DEFINITIONS each), they evaluate from the back of the list
        while this process does from the front, as the audit's modules are shared
        (run.discover); a worker's answer for a definition this process would not have
        evaluated (its name found varying before it) is dropped, the others' diagnostics
        replayed in order: the answer of one process."""
        added: set[str] = set()

        def here(index: int) -> None:
            definition = todo[index]
            if definition.name not in added:
                self._checked.add(definition)
                if self._varies(definition):
                    added.add(definition.name)

        processes = 1
        if self.jobs > 1 and forking.can_fork():
            processes = workers.plan([1] * len(todo), self.jobs, WORKER_DEFINITIONS)
        if processes == 1:
            for index in range(len(todo)):
                here(index)
            return added
        task = functools.partial(self._varies_share, todo)
        outcomes, unbuildable, front = workers.claimed(
            self.project, self.semantics, len(todo), processes, task, here
        )
        for index in range(front, len(todo)):
            outcome = outcomes.get(index)
            if outcome is None:  # its worker failed: evaluated here
                here(index)
                continue
            definition = todo[index]
            if definition.name in added:
                continue
            self._checked.add(definition)
            workers.replay(self.project, outcome.diagnostics, unbuildable)
            if outcome.varies:
                added.add(definition.name)
        return added

    def _varies_share(
        self, todo: Sequence[Definition], claims: workers.Claims
    ) -> workers.Share[int, workers.VariesOutcome]:
        """A worker's task: whether each definition it claims from the back varies."""

        def answer(index: int) -> workers.VariesOutcome:
            before = len(self.project.diagnostics)
            varies = self._varies(todo[index])
            return workers.VariesOutcome(varies, workers.added(self.project, before))

        return workers.answered(self.project, self.semantics, claims, answer)

    def _read_definitions(self, names: set[str]) -> None:
        """The definitions of the searched modules whose text spells one of `names` (a
        definition made of a name spells it)."""
        if not names:
            return
        self._read_for |= names
        words = Words(names)
        for path, module in self._by_path.items():
            with self.project.scanning():
                text = self.project.text_of(path)
            if text is not None and words.holds_any(text):
                self._define(definitions(module, names, self._parts))

    def _define(self, found: Iterable[Definition]) -> None:
        for definition in found:
            # By its value's id: the trees stay alive as long as this does.
            key = (definition.name, id(definition.values[0]), definition.made_of)
            if key not in self._known:
                self._known.add(key)
                self.defined.append(definition)

    def _varies(self, definition: Definition) -> bool:
        """Whether the definition's truth, else its value, differs between generations
        of one vendor (the audited one's or another's: `is_fp8_fnuz()` on an sm120
        audit tells gfx942 apart, and its uses are gates)."""
        if definition.keyword:
            return self._each_value(definition, self._is_identity)
        return (
            self._each_value(definition, self._truth_varies)
            or self._each_value(definition, self._value_varies)
            or self._each_value(definition, self._answers_by_arguments)
        )

    def _truth_varies(self, value: nodes.NodeNG) -> bool:
        admission = self.semantics.admission(value)
        return any(varies(admission, group) for group in self.vendors)

    def _value_varies(self, value: nodes.NodeNG) -> bool:
        found = self.semantics.values(value, self.semantics.registry.names)
        return any(
            len({key for g in group if (key := generation_value(found[g])) is not None}) > 1
            for group in self.vendors
        )

    def _answers_by_arguments(self, value: nodes.NodeNG) -> bool:
        """Whether `value`, returned by a function, compares a value that differs
        between generations of a vendor with one made of the function's parameters:
        `def check_shared_mem(arch): return max_smem()[0] >=
        Backend.get_shared_memory(arch)` answers by the device once a call gives `arch`
        (`check_shared_mem("ampere")`), though read alone (its callers too many to read,
        or their values many) it is unknown on every generation. Its calls are tested
        where they are made: the files spelling them are searched, and each call is read
        with its own arguments. A value computed from the parameters and the device some
        other way (a kernel's output) is no answer another file tests."""
        function = function_scope(value)
        if not isinstance(value.parent, nodes.Return) or not isinstance(
            function, nodes.FunctionDef
        ):
            return False
        parameters = parameter_names(function, receiver=False)
        if not parameters:
            return False
        carried = _carried(parameters, function_parts(function, self._parts).assigned)
        for compare in own_nodes([value], nodes.Compare):
            operands = [compare.left, *(operand for _, operand in compare.ops)]
            given = [not _names_in(o).isdisjoint(carried) for o in operands]
            for operand, own in zip(operands, given, strict=True):
                # Another operand made of the parameters, this one the device's.
                if sum(given) - own > 0 and self._differs(operand):
                    return True
        return False

    def _differs(self, operand: nodes.NodeNG) -> bool:
        """Whether `operand`'s value differs between generations of a vendor, one of a
        few values (values.OneOf: `[-1]` where the device cannot be asked) by them all."""
        found = self.semantics.values(operand, self.semantics.registry.names)
        return any(
            len({key for g in group if (key := _choice_value(found[g])) is not None}) > 1
            for group in self.vendors
        )

    def _is_identity(self, value: nodes.NodeNG) -> bool:
        """Whether `value` is, on every generation of a vendor, that generation's own
        identity in some form (conventions.identifies), telling two apart."""
        registry = self.semantics.registry
        found = self.semantics.values(value, registry.names)
        return any(
            all(identifies(found[name], registry.get(name)) for name in group)
            and len({generation_value(found[name]) for name in group}) > 1
            for group in self.vendors
        )

    def _each_value(self, definition: Definition, test: Callable[[nodes.NodeNG], bool]) -> bool:
        for value in definition.values:
            root = value.root()
            path = Path(root.file) if isinstance(root, nodes.Module) and root.file else Path()
            # Which files are searched is not a file's read: impact compares the names
            # themselves (impact/run.py), so no file's reads grow by these.
            with self.project.scanning():
                found = self.contain.run(
                    path,
                    int(value.lineno or 1),
                    int(value.col_offset or 0),
                    functools.partial(test, value),
                )
            if found:
                return True
        return False


@dataclass(frozen=True, eq=False)
class Definition:
    """A name a module defines, the expressions that give it its value (a function's
    returned values, an assignment's value) and the names those are made of."""

    name: str
    values: tuple[nodes.NodeNG, ...]
    made_of: frozenset[str]
    of_idiom: bool = False  # made of a name that spells an arch idiom (idiom_definitions)
    # A call's keyword argument (a record's field): followed only where it is given the
    # device's identity (Widening._is_identity); a keyword given any varying value (a
    # vendor's flag, a tuning number) named half of vLLM's files by `enabled=`, `dtype=`.
    keyword: bool = False


def generation_value(value: Any) -> Hashable | None:
    """`value` as generations are told apart by it, None when it is not known: a
    constant, a capability, a device's properties or target, an enum member, a tuple of
    them, a sequence with an item per device by that item, an object by its class and
    its attributes so known. Two generations whose
    keys differ hold different values."""
    if isinstance(
        value, (Capability, DeviceProps, CudaCoreDevice, TritonTarget, CuteArch, EnumMember)
    ):
        return value
    if isinstance(value, tuple) and not isinstance(value, Capability):
        items = tuple(generation_value(v) for v in value)
        return None if None in items else items
    if isinstance(value, EachDevice):
        # An item per device (`[props(i)["max_shared_mem"] for i in range(count)]`):
        # every item is the device's, so the sequence differs where the item does.
        item = generation_value(value.item)
        return None if item is None else ("each device", item)
    if isinstance(value, InstanceRef):
        attributes = {k: generation_value(v) for k, v in value.attrs.items()}
        known = tuple(sorted((k, v) for k, v in attributes.items() if v is not None))
        return ("instance", id(value.cls), repr(known))
    return value if is_constant(value) else None


def vendor_groups(semantics: Semantics) -> tuple[frozenset[str], ...]:
    """Each vendor's generations, in the registry's order."""
    registry = semantics.registry
    vendors = dict.fromkeys(g.vendor for g in registry.generations)
    return tuple(registry.vendor_names(v) for v in vendors)


def found_names(conditions: Iterable[ArchCondition], vendors: Sequence[frozenset[str]]) -> set[str]:
    """The names whose value the conditions show to depend on the generation (within a
    vendor: the audited one's or another's): the function a varying condition is
    returned from, or decides a return in, the device predicate it sits in, and the
    names a varying condition is assigned to."""
    names: set[str] = set()
    for condition in conditions:
        if condition.role is Role.VENDOR or not any(
            varies(condition.admission, group) for group in vendors
        ):
            continue
        statement = condition.statement
        if isinstance(statement, (nodes.Assign, nodes.AnnAssign)) and condition.kind in (
            SlotKind.ASSIGN,
            SlotKind.IFEXP,
        ):
            names.update(_assigned_outside(statement))
            continue
        decides_return = condition.kind is SlotKind.RETURN or (
            condition.kind in (SlotKind.IF, SlotKind.IFEXP) and _returns(condition.statement)
        )
        if decides_return or condition.role is Role.PREDICATE:
            scope = function_scope(condition.statement)
            if isinstance(scope, nodes.FunctionDef):
                names.add(str(scope.name))
    return {n for n in names if _exported(n)}


def definitions(
    module: nodes.Module, names: Collection[str], memo: PartsMemo | None = None
) -> list[Definition]:
    """What `module` defines, made of one of `names`, that another module can read by
    name: a function by what it returns (also through a local a return reads, `ok =
    is_sm90() and x; return ok`), a module or class attribute, an attribute set on an
    object (`self.x = ...`), each with the names its value uses. Only the statements
    whose text spells one of `names` are visited (lazy.spelled_nodes)."""
    words = set(names)
    return [d for d in _definitions(module, words, memo) if not d.made_of.isdisjoint(words)]


def idiom_definitions(module: nodes.Module, memo: PartsMemo | None = None) -> list[Definition]:
    """What `module` defines (as `definitions` reads them) made of a name that spells an
    arch idiom: `major, minor = get_device_capability(); return major * 10 + minor`. Only
    the statements whose text holds a piece of the idiom are visited."""
    found = _definitions(module, set(IDIOM_PIECES), memo)
    return [
        Definition(d.name, d.values, d.made_of, of_idiom=True, keyword=d.keyword)
        for d in found
        if any(_spells_idiom(n) for n in d.made_of)
    ]


@functools.lru_cache(maxsize=4096)
def _spells_idiom(name: str) -> bool:
    return mentions_arch(name)


@dataclass(frozen=True)
class FunctionParts:
    """What a function's own body holds for the definitions it makes, read in one walk:
    its assignments (the names each binds, the names its value reads), for the locals a
    value is carried through before it is returned; its calls' keyword arguments naming
    a field and the names each value reads; its returned values and their names."""

    assigned: tuple[tuple[frozenset[str], frozenset[str]], ...]
    keywords: tuple[tuple[nodes.Keyword, frozenset[str]], ...]
    returns: tuple[tuple[nodes.NodeNG, frozenset[str]], ...]


# Per function, for every reading of its module (Widening keeps one for its rounds).
PartsMemo = dict[nodes.FunctionDef, FunctionParts]


def function_parts(function: nodes.FunctionDef, memo: PartsMemo) -> FunctionParts:
    """`function`'s parts (FunctionParts), read once per memo: one walk of its own
    nodes, each kind in the order a walk for that kind alone finds it (a walk per kind
    for each reading took 5.5 s of vLLM 0.33.0's widening, under a profiler)."""
    if (parts := memo.get(function)) is not None:
        return parts
    assigns: list[nodes.Assign] = []
    annotated: list[nodes.AnnAssign] = []
    keywords: list[nodes.Keyword] = []
    returns: list[nodes.Return] = []
    for node in own_nodes(function.get_children(), _PART_NODES):
        if isinstance(node, nodes.Assign):
            assigns.append(node)
        elif isinstance(node, nodes.AnnAssign):
            annotated.append(node)
        elif isinstance(node, nodes.Keyword):
            keywords.append(node)
        else:
            returns.append(node)
    parts = FunctionParts(
        assigned=tuple(
            (
                frozenset(str(t.name) for t in a.nodes_of_class(nodes.AssignName)),
                _names_in(a.value) | _tests_around(a, function),
            )
            for a in (*assigns, *annotated)
            if a.value is not None
        ),
        keywords=tuple((k, _names_in(k.value)) for k in keywords if _record_field(k)),
        returns=tuple((r.value, _names_in(r.value)) for r in returns if r.value is not None),
    )
    memo[function] = parts
    return parts


_PART_NODES: tuple[type[nodes.NodeNG], ...] = (
    nodes.Assign,
    nodes.AnnAssign,
    nodes.Keyword,
    nodes.Return,
)
_STATEMENTS = (nodes.Return, nodes.Assign, nodes.AnnAssign)


def _definitions(
    module: nodes.Module, words: set[str], memo: PartsMemo | None = None
) -> list[Definition]:
    memo = {} if memo is None else memo
    found: list[Definition] = []
    # Its calls' keyword arguments and the names each value reads: a record made with the
    # device in a field (`Inputs(device_arch=hi * 10 + lo)`, flash-attn-4's heuristics
    # inputs) is read by that field's name (`inputs.device_arch`) wherever it goes. One
    # walk finds them and the statements (each kind in its own walk's order).
    statements: list[nodes.Return | nodes.Assign | nodes.AnnAssign] = []
    for node in spelled_nodes(module, (nodes.Keyword, *_STATEMENTS), words):
        if isinstance(node, nodes.Keyword):
            if _record_field(node):
                made_of = _names_in(node.value)
                found.append(Definition(str(node.arg), (node.value,), made_of, keyword=True))
        else:
            statements.append(node)
    for node in statements:
        if node.value is None:
            continue
        scope = node.scope()
        function = scope if isinstance(scope, nodes.FunctionDef) else None
        if isinstance(node, nodes.Return):
            if function is not None and _exported(str(function.name)):
                found.append(Definition(str(function.name), (node.value,), _names_in(node.value)))
            continue
        made_of = _names_in(node.value)
        for name in _assigned_outside(node, not isinstance(scope, nodes.FunctionDef)):
            found.append(Definition(name, (node.value,), made_of))
        if function is None or not _exported(str(function.name)):
            continue
        parts = function_parts(function, memo)
        local = _carried(
            {str(n.name) for n in node.nodes_of_class(nodes.AssignName)}, parts.assigned
        )
        for keyword, uses in parts.keywords:
            if not local.isdisjoint(uses):
                found.append(
                    Definition(str(keyword.arg), (keyword.value,), uses | made_of, keyword=True)
                )
        for value, uses in parts.returns:
            if not local.isdisjoint(uses):
                found.append(Definition(str(function.name), (value,), uses | made_of))
    return found


def _tests_around(statement: nodes.NodeNG, function: nodes.FunctionDef) -> frozenset[str]:
    """The names the tests of the `if`s and `while`s around `statement` in `function`
    read: a flag set under a device test carries the device (lmdeploy's
    `flash_mla_available`: `use_flash_mla = False`, then `if major >= 9: use_flash_mla =
    True`, `return use_flash_mla`)."""
    found: set[str] = set()
    child, parent = statement, statement.parent
    while parent is not None and parent is not function:
        if isinstance(parent, (nodes.If, nodes.While)) and child is not parent.test:
            found |= _names_in(parent.test)
        child, parent = parent, parent.parent
    return frozenset(found)


def _carried(
    names: set[str], assignments: Sequence[tuple[frozenset[str], frozenset[str]]]
) -> set[str]:
    """`names` and the locals assigned from them, over and over: `cap =
    get_device_capability(); text = f"{cap[0]}.{cap[1]}"; return float(text)` returns
    the device through `text`."""
    carried = set(names)
    grew = True
    while grew:
        grew = False
        for bound, reads in assignments:
            if not bound <= carried and not reads.isdisjoint(carried):
                carried |= bound
                grew = True
    return carried


def _uses_any(text: str, words: Words) -> bool:
    # The names the text holds first (one pass), then a pattern of those few: one
    # pattern of every name found is an alternation re tries at every position (5.7 s
    # over vLLM 0.33.0's 50 MB of text for 146 names).
    held = words.held(text)
    return bool(held) and spelling(held).search(text) is not None


@functools.lru_cache(maxsize=1024)
def spelling(names: Sequence[str]) -> re.Pattern[str]:
    """A pattern for a use of any of the names the way code reaches another module's
    name: an attribute (`config.USE_FP8`, `self.use_fp8`), a call (`backend()`), or an
    import (`from m import NAME`, also a line of a parenthesised import). A word in a
    comment or a message ("we do not support it") is none of these. A name brought in by
    `import *` and used bare is missed."""
    word = "(?:" + "|".join(re.escape(n) for n in sorted(names, key=lambda n: (-len(n), n)))
    word += r")(?!\w)"
    return re.compile(
        rf"\.[ \t]*{word}"
        rf"|(?<![\w.]){word}[ \t]*\("
        rf"|^[ \t]*(?:from|import)\b[^\n#]*(?<![\w.]){word}"
        rf"|^[ \t]*{word}(?:[ \t]+as[ \t]+\w+)?[ \t]*,?[ \t]*\)?[ \t]*$",
        re.MULTILINE,
    )


def _returns(statement: nodes.NodeNG) -> bool:
    """Whether the `if` (or the conditional expression returned) decides what the function
    answers."""
    if isinstance(statement, nodes.Return):
        return isinstance(statement.value, nodes.IfExp)
    if not isinstance(statement, nodes.If):
        return False
    returns = [
        node
        for branch in [*statement.body, *statement.orelse]
        for node in (branch, *own_nodes(branch.get_children(), nodes.Return))
        if isinstance(node, nodes.Return)
    ]
    # `if is_sm90(): return True` / `return "trtllm"`: the answer is the decision. A
    # branch returning a computed value (`return self.forward_fast(x)`) is a fast path,
    # not an answer another file can test.
    return bool(returns) and all(_literal(r.value) for r in returns)


def _literal(value: nodes.NodeNG | None) -> bool:
    if isinstance(value, nodes.Const):
        return True
    if isinstance(value, (nodes.Tuple, nodes.List)):
        return all(_literal(e) for e in value.elts)
    return isinstance(value, nodes.UnaryOp) and _literal(value.operand)


def _assigned_outside(
    statement: nodes.Assign | nodes.AnnAssign, outside_functions: bool | None = None
) -> list[str]:
    """The names an assignment binds that another module can read: module and class
    attributes, and attributes set on an object (a function's locals are its own)."""
    targets = statement.targets if isinstance(statement, nodes.Assign) else [statement.target]
    if outside_functions is None:
        outside_functions = isinstance(statement.scope(), (nodes.Module, nodes.ClassDef))
    names: list[str] = []
    for target in targets:
        for node in target.nodes_of_class((nodes.AssignName, nodes.AssignAttr)):
            if isinstance(node, nodes.AssignAttr):
                names.append(str(node.attrname))
            elif outside_functions:
                names.append(str(node.name))
    return [n for n in names if _exported(n)]


def _record_field(keyword: nodes.Keyword) -> bool:
    """A keyword argument of a call naming what it sets (not `**kwargs`, not a dunder)."""
    return (
        bool(keyword.arg) and _exported(str(keyword.arg)) and isinstance(keyword.parent, nodes.Call)
    )


def _names_in(expression: nodes.NodeNG) -> frozenset[str]:
    found: set[str] = set()
    for node in expression.nodes_of_class((nodes.Name, nodes.Attribute)):
        found.add(str(node.name if isinstance(node, nodes.Name) else node.attrname))
    return frozenset(found)


@functools.lru_cache(maxsize=1024)
def asked_by_spelling(names: Sequence[str]) -> re.Pattern[str]:
    """The names asked for by their spelling: `hasattr(kern, "block_scale")`,
    `getattr(kern, 'block_scale', None)` (a backend's name in a string, `== "deep_gemm"`,
    asks nothing of a module)."""
    alternatives = "|".join(re.escape(n) for n in names)
    return re.compile(rf"""\b(?:has|get)attr\(\s*[\w.]+\s*,\s*(["'])(?:{alternatives})\1""")


def _searched_for(text: str, words: Words | None, quoted: Words | None) -> bool:
    """Whether the text uses one of `words`, or asks for one of `quoted` by its spelling
    (the names the text holds found first, in one pass, as in _uses_any)."""
    if words is not None and _uses_any(text, words):
        return True
    if quoted is None:
        return False
    held = quoted.held(text)
    return bool(held) and asked_by_spelling(held).search(text) is not None


_BLOCKS = (nodes.If, nodes.With, nodes.Try, nodes.ExceptHandler, nodes.For, nodes.While)


def _at_module_level(statement: nodes.If) -> bool:
    """An `if` at a module's top level, or in a block of one (an `if`, a `with`, a `try`,
    a loop) there: not in a function or class."""
    node: nodes.NodeNG = statement
    while isinstance(node.parent, _BLOCKS):
        node = node.parent
    return isinstance(node.parent, nodes.Module)


def _bound_in(statement: nodes.If, stars: list[str]) -> Iterator[str]:
    """The names the `if`'s branches bind at module level (nested blocks included); the
    absolute module name of each star import there is added to `stars`."""
    for inner in block_statements([*statement.body, *statement.orelse]):
        if isinstance(inner, (nodes.FunctionDef, nodes.ClassDef)):
            yield str(inner.name)
        elif isinstance(inner, (nodes.Import, nodes.ImportFrom)):
            for name, alias in inner.names:
                if name == "*" and isinstance(inner, nodes.ImportFrom):
                    stars.append(absolute_import_name(inner))
                else:
                    yield (alias or name).split(".")[0]
        elif isinstance(inner, (nodes.Assign, nodes.AnnAssign)):
            yield from _assigned_outside(inner, outside_functions=True)


def _choice_value(value: Any) -> Hashable | None:
    """generation_value, of each option of a OneOf (None unless all are known)."""
    if isinstance(value, OneOf):
        options = tuple(generation_value(v) for v in value.options)
        return None if None in options else ("one of", options)
    return generation_value(value)


def _exported(name: str) -> bool:
    # Dunders (`__init__`, `__call__`) are spelled by every file.
    return bool(name) and not (name.startswith("__") and name.endswith("__"))
