"""Class attributes assigned from outside the class body: TransformerEngine's
`FlashAttentionUtils.is_installed = False` in the class, set to True by the function
that finds the package (`FlashAttentionUtils.is_installed = True`, or through an alias
of the class). Read from the body alone, `use_fa3 and FlashAttentionUtils.v3_is_installed
and cap == (9, 0)` is false on every generation and the gate is lost; the attribute is
one of the values it is given (logic.either), `setattr(Utils, "is_installed", True)`
included. Only for a flag (True, False or None in the body: is_flag). The same for an
instance attribute its class's methods leave a flag or None (instance_writes: a release
method's `self.w = None`, the tensor a loader's `layer.w = t` or a subclass gives it).

Found by text first: the files that spell the class's name and assign the attribute on
something (`.name =`), each file's assigned names read once; then, in those files, the
assignments whose object is the class (a name, an alias, `cls` in one of its
classmethods)."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from astroid import nodes

from gatecheck.loading.lazy import spelled_nodes
from gatecheck.semantics.values import UNKNOWN, ClassRef, InstanceRef, OneOf

if TYPE_CHECKING:
    from gatecheck.semantics.evaluator import Evaluator

# `.name =` (not `==`): an attribute assigned on something, its name the group.
ASSIGNED_ATTRIBUTE = r"\.(\w+)[ \t]*=(?!=)"
_ASSIGNED = re.compile(ASSIGNED_ATTRIBUTE)


def is_flag(value: object) -> bool:
    """The class-level values looked for elsewhere: True, False or None, a flag or a
    slot filled later (a name, a number or a string is a declaration: searching every
    file for each would cost a second on vLLM 0.33.0, for none found)."""
    return value is None or isinstance(value, bool)


def declares_flag(bindings: Sequence[nodes.NodeNG]) -> bool:
    """Whether one of the bindings (AssignName / AssignAttr) is an assignment of None,
    True or False as spelled: a flag or a slot to be filled, not a computed value."""
    for bound in bindings:
        statement = bound.parent
        if (
            isinstance(statement, (nodes.Assign, nodes.AnnAssign))
            and isinstance(statement.value, nodes.Const)
            and is_flag(statement.value.value)
        ):
            return True
    return False


def writes(ev: Evaluator, cls: nodes.ClassDef, name: str) -> tuple[nodes.NodeNG | None, ...]:
    """The assignments `X.name = ...` in the project whose X is `cls`, and the values of
    `setattr(X, "name", v)` (value_of reads either)."""
    key = ("class-writes", id(cls), name)
    found = ev.facts.get(key)
    if found is None:
        found = ev.facts[key] = tuple(_writes(ev, cls, name))
    return found


def _writes(ev: Evaluator, cls: nodes.ClassDef, name: str) -> list[nodes.NodeNG | None]:
    from gatecheck.semantics.classes import set_by_name

    out: list[nodes.NodeNG | None] = []
    for path in ev.project.files_mentioning([str(cls.name)]):
        if name not in assigned_names(ev, path) and name not in set_by_string(ev, path):
            continue
        module = ev.project.module_at(path)
        if module is None:
            continue
        # Only the statements spelling the name are visited (nor their bodies built).
        for node in spelled_nodes(module, (nodes.AssignAttr, nodes.Call), {name}):
            if isinstance(node, nodes.AssignAttr):
                if node.attrname == name and _is_the_class(ev.eval(node.expr, None), cls):
                    out.append(node)
                continue
            set_by = set_by_name(node)
            if set_by is None or not names_const(set_by[1], name):
                continue
            if _is_the_class(ev.eval(set_by[0], None), cls):
                out.append(set_by[2])
    return out


def names_const(named: nodes.NodeNG | None, name: str) -> bool:
    return isinstance(named, nodes.Const) and named.value == name


def assigned_names(ev: Evaluator, path: Path) -> frozenset[str]:
    key = ("assigned-attributes", path)
    found = ev.facts.get(key)
    if found is None:
        text = ev.project.text_of(path) or ""
        found = ev.facts[key] = frozenset(_ASSIGNED.findall(text))
    return found


def _is_the_class(value: object, cls: nodes.ClassDef) -> bool:
    options = value.options if isinstance(value, OneOf) else (value,)
    return any(isinstance(o, ClassRef) and o.node is cls for o in options)


# A call that sets an attribute by a name in a string: `setattr(obj, "w", v)`, torch's
# `obj.register_buffer("w", t)`; the name's quotes, for the text search.
_NAMED_IN_STRING = (
    r"""(?:setattr|register_buffer|register_parameter)\(\s*(?:[^,()]+,\s*)?["'](\w+)["']"""
)
_SET_BY_STRING = re.compile(_NAMED_IN_STRING)


def instance_writes(
    ev: Evaluator, cls: nodes.ClassDef, name: str, own: Collection[int]
) -> Iterator[nodes.NodeNG | None]:
    """What the project gives `name` on an instance of `cls` (or of a subclass) beyond
    `own` (the ids of the class's own `self.name = ...`): `x.name = v` and `setattr(x,
    "name", v)` / `x.register_buffer("name", v)` whose `x` may be such an instance (an
    unknown parameter, `self` in a subclass's method); the AssignAttr nodes and the
    values the calls pass. Found by text first: the files assigning `.name =` or naming
    it in such a call (writing_files). Yielded one at a time, each file read (built)
    when the first asker reaches it: a join that an unknown value decides stops there
    (lazy_joins.py; sglang 0.5.23's `quant_config` is assigned in 245 files). Which
    writes are the class's is kept in the shared facts, found once for every
    generation. A name set at runtime outside the class's methods (`setattr(layer, key,
    v)`) is not looked for."""
    ev.project.searched_in_index(name)
    sites = _sites(ev, name)
    key = ("instance-writes", id(cls), name)
    chosen: _Chosen | None = ev.facts.get(key)
    if chosen is None:
        chosen = ev.facts[key] = _Chosen()
    at = 0
    while True:
        if at < len(chosen.found):
            yield chosen.found[at]
            at += 1
            continue
        site = sites.at(ev, chosen.looked)
        if site is None:
            return
        receiver, written = site
        # Asked inside classes._written_values' memo entry, a cycle back to this class
        # and name is cut there: no other asker moves `looked` meanwhile.
        if id(written) not in own and _may_be_instance(ev, ev.eval(receiver, None), cls):
            chosen.found.append(written)
        chosen.looked += 1


class _Chosen:
    """The writes of one name found to be one class's so far, and how many of the
    name's sites were looked at."""

    def __init__(self) -> None:
        self.found: list[nodes.NodeNG | None] = []
        self.looked = 0


def value_of(ev: Evaluator, written: nodes.NodeNG | None) -> object:
    """The value an instance_writes entry gives (None: a value not passed by place)."""
    if written is None:
        return UNKNOWN
    if isinstance(written, nodes.AssignAttr):
        return ev.binding_value(written)
    return ev.eval(written, None)


class _Sites:
    """The write sites of one name found so far, and how many of its files were read."""

    def __init__(self, name: str, files: tuple[Path, ...]) -> None:
        self.name = name
        self.files = files
        self.read = 0
        self.found: list[tuple[nodes.NodeNG, nodes.NodeNG | None]] = []

    def at(self, ev: Evaluator, index: int) -> tuple[nodes.NodeNG, nodes.NodeNG | None] | None:
        """The site at `index`, its files read up to it (None: past the last one).
        Reading a file evaluates nothing: no asker comes back here meanwhile."""
        while index >= len(self.found) and self.read < len(self.files):
            self.found.extend(_sites_in(ev, self.files[self.read], self.name))
            self.read += 1
        return self.found[index] if index < len(self.found) else None


def _sites(ev: Evaluator, name: str) -> _Sites:
    sites: _Sites | None = ev.facts.get(("write-sites", name))
    if sites is None:
        sites = ev.facts[("write-sites", name)] = _Sites(name, writing_files(ev, name))
    return sites


def write_sites(ev: Evaluator, name: str) -> Iterator[tuple[nodes.NodeNG, nodes.NodeNG | None]]:
    """Every `x.name = v` (the AssignAttr) and `setattr(x, "name", v)` /
    `x.register_buffer("name", v)` (the value passed, None when not by place) of the
    project with its `x`, in the files' order. Kept per name in the shared facts for
    every class and module that asks (instance_writes, global_writes), each file read
    when an asker first reaches it."""
    ev.project.searched_in_index(name)
    sites = _sites(ev, name)
    index = 0
    while (site := sites.at(ev, index)) is not None:
        yield site
        index += 1


def _sites_in(
    ev: Evaluator, path: Path, name: str
) -> list[tuple[nodes.NodeNG, nodes.NodeNG | None]]:
    from gatecheck.semantics.classes import set_by_name

    module = ev.project.module_at(path)
    if module is None:
        return []
    out: list[tuple[nodes.NodeNG, nodes.NodeNG | None]] = []
    for node in spelled_nodes(module, (nodes.AssignAttr, nodes.Call), {name}):
        if isinstance(node, nodes.AssignAttr):
            if node.attrname == name:
                out.append((node.expr, node))
            continue
        set_by = set_by_name(node)
        if set_by is not None and names_const(set_by[1], name):
            out.append((set_by[0], set_by[2]))
    return out


def writing_files(ev: Evaluator, name: str) -> tuple[Path, ...]:
    """The files that assign `.name =` on something or name it in a `setattr`-like call.
    An index of every file's such names, made on first use: asked for every flag global
    and slot read, a search of every file's text per name cost more than the audit. Read
    as one search per name (Project.searched_in_index, by write_sites), not as a read of
    every file."""
    index: dict[str, tuple[Path, ...]] | None = ev.facts.get(("writing-files",))
    if index is None:
        found: dict[str, list[Path]] = {}
        with ev.project.scanning():
            for path in ev.project.files:
                text = ev.project.text_of(path)
                if text is None:
                    continue
                for written in {*_ASSIGNED.findall(text), *_set_by_string(text)}:
                    found.setdefault(written, []).append(path)
        index = ev.facts[("writing-files",)] = {k: tuple(v) for k, v in found.items()}
    return index.get(name, ())


def set_by_string(ev: Evaluator, path: Path) -> frozenset[str]:
    key = ("set-by-string", path)
    found = ev.facts.get(key)
    if found is None:
        found = ev.facts[key] = frozenset(_set_by_string(ev.project.text_of(path) or ""))
    return found


def _set_by_string(text: str) -> list[str]:
    # Most files spell none of the calls: a scan for the words first (0.4 s -> 0.2 s over
    # sglang 0.5.23's files).
    if "setattr" not in text and "register_" not in text:
        return []
    return _SET_BY_STRING.findall(text)


def _may_be_instance(ev: Evaluator, value: object, cls: nodes.ClassDef) -> bool:
    """Whether `value` may be an instance of `cls` or of a subclass (or such a class,
    whose attribute an instance reads): unknown may be anything."""
    from gatecheck.semantics.classes import mro

    if value is UNKNOWN:
        return True
    if isinstance(value, OneOf):
        return any(_may_be_instance(ev, option, cls) for option in value.options)
    if isinstance(value, (InstanceRef, ClassRef)):
        klass = value.cls if isinstance(value, InstanceRef) else value.node
        return any(k is cls for k in mro(ev, klass))
    return False
