"""The class of `self`, where the device chooses it: an attribute each class of a family
sets at class level, read through `self` in a method.

quack's GEMMs tag each class with its architecture (`arch = 90` on GemmSm90, `arch =
100` on GemmSm100, `arch = 120` on GemmSm120), and code shared by all of them tests the
tag: `if const_expr(self.arch < 100):` in a mixin's method. flash-attn's CuTe forward
kernels do the same (`arch: int = 80` on the base, `arch = 90` on the Hopper class,
`arch = 100` on the Blackwell one). Which class `self` is an instance of is decided
where one is made: `{9: GemmActSm90, 10: GemmActSm100, 12: GemmActSm120}[cap[0]]` (a
table keyed by the device), `cls = Sm90Kernel` in a branch then `cls(...)`, or
`FlashAttentionForwardSm90(...)` called in the branch of `if compute_capability == 9:`.
Read as a class-level value through an instance, the tag is otherwise unknown (the
instance may hold anything: classes.class_attribute).

So `self.<name>` in a plain method of class C reads, on each generation, the value of
each class `self` may be (C and its subclasses, subclasses.py) that the project makes
there, when:
- the tag's classes (those below the first class of C's order that binds `name`, or
  below C where none does) give it two or more constant values at class level (one
  value for all tells no class apart), and nothing sets it on an instance (`self.arch
  = arch`, a dataclass field) or on a class from elsewhere;
- each reference to one of C's classes is a base, an isinstance test, an annotation, a
  call by its name, or sits in a table, list or conditional expression that is looked
  up in place or assigned to a name only looked up or called (any other use: unknown);
- at least one is chosen so, or called in a branch (made by name alone, as before).

A class called by its name is made where the branches of its function holding the call
may be taken (each test read on the generation); one in a table or assignment where the
expression choosing it (the lookup, the name where it is called) gives it, every one it
names where that is unknown, none where the lookup raises (no key for this device).
Where no class `self` may be is made, the method does not run: the read raises (no
value, as a missing key's lookup does: diverging.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from astroid import nodes

from gatecheck.loading.resolve import decorator_names
from gatecheck.semantics import class_writes, expressions, subclasses
from gatecheck.semantics.logic import either
from gatecheck.semantics.reads import remembered
from gatecheck.semantics.values import (
    UNKNOWN,
    ClassRef,
    OneOf,
    truth,
)

if TYPE_CHECKING:
    from gatecheck.semantics.evaluator import Evaluator

# Past this many references to the family's classes, the search gives up (a registry).
_MAX_SITES = 64


@dataclass(frozen=True)
class _Family:
    """The classes `self` may be an instance of that give the attribute, with its value
    in each; where each is made by its name (the call, in whatever branches hold it);
    and the expressions choosing one (each with the classes it may give: those named in
    its table or assignment)."""

    values: tuple[tuple[nodes.ClassDef, Any], ...]
    calls: tuple[tuple[nodes.Call, int], ...]
    choosers: tuple[tuple[nodes.NodeNG, frozenset[int]], ...]


def tag_value(ev: Evaluator, cls: nodes.ClassDef, name: str, reader: nodes.NodeNG) -> Any:
    """The value of `self.<name>` read by `reader` in a method of `cls` on this
    generation, when the family chooses its class (see the module); None when the shape
    does not apply (the caller's reading stands)."""
    if not _reads_self(reader, cls):
        return None
    key = ("instance-classes", id(cls), name)
    family: _Family | None = remembered(ev, key, lambda: _family(ev, cls, name), None)
    if family is None:
        return None
    # The evaluator's own memo (per generation, traced for the others: replay.py).
    made: tuple[int, ...] = ev.memoized(("instance-classes-made", id(cls), name), _made, family)
    values = [family.values[i][1] for i in made]
    if not values:
        # No class of the family is made here: the method never runs.
        ev.raising.append(reader)
        return UNKNOWN
    return either(values)


def _made(ev: Evaluator, family: _Family) -> tuple[int, ...]:
    """The family's classes made on this generation, by position in `family.values` (a
    plain value, the same wherever it is computed)."""
    made: set[int] = set()
    for call, klass in family.calls:
        if klass not in made and _reached(ev, call):
            made.add(klass)
    for chooser, named in family.choosers:
        if not named <= made:
            made |= _chosen(ev, chooser, named)
    return tuple(i for i, (klass, _) in enumerate(family.values) if id(klass) in made)


def _reached(ev: Evaluator, node: nodes.NodeNG) -> bool:
    """Whether the branches of its function that hold `node` may be taken on this
    generation (each `if` or conditional expression around it, its test read here)."""
    for test, taken in _branches(node):
        value, _raised = _quietly(ev, test)
        if truth(value) is (not taken):
            return False
    return True


def _branches(node: nodes.NodeNG) -> Iterator[tuple[nodes.NodeNG, bool]]:
    """The tests of the `if`s and conditional expressions of its function around
    `node`, each with the side `node` is on (True: the body)."""
    while node.parent is not None and not isinstance(
        node.parent, (nodes.FunctionDef, nodes.Module, nodes.ClassDef, nodes.Lambda)
    ):
        parent = node.parent
        if isinstance(parent, (nodes.If, nodes.IfExp)) and node is not parent.test:
            yield (
                parent.test,
                (node in parent.body if isinstance(parent, nodes.If) else node is parent.body),
            )
        node = parent


def _quietly(ev: Evaluator, node: nodes.NodeNG) -> tuple[Any, bool]:
    """`node`'s value on this generation and whether reading it raised, the raise not
    noted for the condition being read (it is not this expression's)."""
    before = len(ev.raising)
    try:
        value = ev.eval(node, None)
        return value, len(ev.raising) > before
    finally:
        del ev.raising[before:]


def _reads_self(reader: nodes.NodeNG, cls: nodes.ClassDef) -> bool:
    """`reader` is `self.<name>` with `self` the first parameter of a plain method of
    `cls` (not a static or class method)."""
    if not isinstance(reader, nodes.Attribute) or not isinstance(reader.expr, nodes.Name):
        return False
    method = reader.scope()
    while isinstance(method, (nodes.Lambda, nodes.ComprehensionScope)):
        method = method.parent.scope()
    if not isinstance(method, nodes.FunctionDef) or method.parent is not cls:
        return False
    if {"staticmethod", "classmethod"} & set(decorator_names(method)):
        return False
    positional = [*method.args.posonlyargs, *method.args.args]
    return bool(positional) and positional[0].name == reader.expr.name


def _family(ev: Evaluator, cls: nodes.ClassDef, name: str) -> _Family | None:
    from gatecheck.semantics.classes import mro

    # The tag's classes: below the last class of `cls`'s order that binds it at class
    # level (the base the others set it anew over), or below `cls` (a mixin binding
    # none). Looked for only where that base's value and the class's own are constants,
    # or where the mixin's module defines a class of it that has one: a search for the subclasses of
    # a mixin of hundreds (transformers' GenerationMixin reading `self.config`) costs
    # seconds and finds instance attributes.
    root = None
    for holder in mro(ev, cls):
        if name in holder.locals:
            root = holder
    if root is None:
        if not _tagged_in_its_module(ev, cls, name):
            return None
        root = cls
    elif any(_class_level(ev, k, name) in (_NOT_A_TAG, _ABSENT) for k in (cls, root)):
        return None
    tagged = _tag_values(ev, (root, *subclasses.subclasses(ev, root)), name)
    if tagged is None or len({repr(v) for _, v in tagged}) < 2:
        return None  # one value for them all tells no class apart
    below = {id(cls)} | {id(k) for k in subclasses.subclasses(ev, cls)}
    values = [(k, v) for k, v in tagged if id(k) in below]
    named = {str(k.name): k for k, _ in values}
    calls: list[tuple[nodes.Call, int]] = []
    choosers: list[tuple[nodes.NodeNG, frozenset[int]]] = []
    sites = 0
    chosen = False
    for module in _modules_naming(ev, tuple(named)):
        for ref in module.nodes_of_class(nodes.Name):
            klass = named.get(str(ref.name))
            if klass is None or not _refers_to(ev, ref, klass):
                continue
            sites += 1
            if sites > _MAX_SITES:
                return None
            use = _use(ref)
            if use is _NOT_MADE:
                continue
            if use is _MADE_HERE:
                assert isinstance(ref.parent, nodes.Call)
                calls.append((ref.parent, id(klass)))
                chosen = chosen or any(True for _ in _branches(ref.parent))
                continue
            found = _consumers(use) if isinstance(use, nodes.NodeNG) else []
            if not found:
                return None  # passed on, stored, returned: made who knows where
            choosers.extend((c, frozenset(_named_in(ev, use, named))) for c in found)
            chosen = True
    if not chosen:
        return None  # made by name only, in no branch: as before
    return _Family(tuple(values), tuple(calls), tuple(dict.fromkeys(choosers)))


def _tag_values(
    ev: Evaluator, members: tuple[nodes.ClassDef, ...], name: str
) -> list[tuple[nodes.ClassDef, Any]] | None:
    """Each member's class-level constant for `name` (those with one); None where one
    binds it otherwise, or anything sets it on an instance or the class."""
    from gatecheck.semantics.classes import mro

    values: list[tuple[nodes.ClassDef, Any]] = []
    for klass in members:
        for holder in mro(ev, klass):
            if name in holder.instance_attrs or class_writes.writes(ev, holder, name):
                return None  # set on an instance or the class from elsewhere
        value = _class_level(ev, klass, name)
        if value is _NOT_A_TAG:
            return None
        if value is not _ABSENT:
            values.append((klass, value))
    return values


def _tagged_in_its_module(ev: Evaluator, cls: nodes.ClassDef, name: str) -> bool:
    """Whether a class of `cls`'s own module that has `cls` among its bases gives
    `name` a constant at class level (quack's `class GemmActSm90(GemmActMixin,
    GemmSm90)` beside the mixin)."""
    from gatecheck.semantics.classes import mro

    module = cls.root()
    for statement in getattr(module, "body", ()):
        if not isinstance(statement, nodes.ClassDef) or statement is cls:
            continue
        if not any(base.as_string().rsplit(".", 1)[-1] == cls.name for base in statement.bases):
            continue
        if not any(k is cls for k in mro(ev, statement)):
            continue
        if _class_level(ev, statement, name) not in (_NOT_A_TAG, _ABSENT):
            return True
    return False


_ABSENT = object()
_NOT_A_TAG = object()
_NOT_MADE = object()
_MADE_HERE = object()


def _class_level(ev: Evaluator, klass: nodes.ClassDef, name: str) -> Any:
    """The constant `klass` gives `name` at class level (its own or a base's), _ABSENT
    where no class of its order binds it, _NOT_A_TAG where one binds it otherwise."""
    from gatecheck.semantics.classes import mro

    for holder in mro(ev, klass):
        bound = holder.locals.get(name)
        if not bound:
            continue
        node = bound[-1]
        statement = node.parent
        if not isinstance(node, nodes.AssignName) or statement.parent is not holder:
            return _NOT_A_TAG
        if isinstance(statement, nodes.AnnAssign):
            # `arch: int = 80`: a class attribute, unless a dataclass makes it a field.
            if statement.value is None or any("dataclass" in d for d in decorator_names(holder)):
                return _NOT_A_TAG
        elif not isinstance(statement, nodes.Assign):
            return _NOT_A_TAG
        if not _spelled_as_scalar(statement.value):
            # A table or a call is no tag, and reading one may mean searching the
            # project for what changes it (mutations.py): not read.
            return _NOT_A_TAG
        value = ev.binding_value(node)
        return value if _scalar(value) else _NOT_A_TAG
    return _ABSENT


def _spelled_as_scalar(node: nodes.NodeNG | None) -> bool:
    """A literal, a name or attribute (a constant's), or arithmetic or a tuple of them."""
    if isinstance(node, (nodes.Const, nodes.Name, nodes.Attribute)):
        return True
    if isinstance(node, nodes.Tuple):
        return all(_spelled_as_scalar(e) for e in node.elts)
    if isinstance(node, nodes.UnaryOp):
        return _spelled_as_scalar(node.operand)
    if isinstance(node, nodes.BinOp):
        return _spelled_as_scalar(node.left) and _spelled_as_scalar(node.right)
    return False


def _scalar(value: Any) -> bool:
    """A tag's kind of value: a number, a string, a flag or None, or a tuple of them
    (not a table or a list, which a class keeps as its defaults)."""
    if isinstance(value, tuple):
        return all(_scalar(v) for v in value)
    return value is None or isinstance(value, (bool, int, float, str))


def _modules_naming(ev: Evaluator, names: tuple[str, ...]) -> Iterator[nodes.Module]:
    for path in ev.project.files_mentioning(names):
        module = ev.project.module_at(path)
        if module is not None:
            yield module


def _refers_to(ev: Evaluator, ref: nodes.Name, klass: nodes.ClassDef) -> bool:
    value = ev.eval(ref, None)
    return isinstance(value, ClassRef) and value.node is klass


def _use(ref: nodes.Name) -> Any:
    """What a reference to a class does with it: _NOT_MADE (a base, an isinstance
    test, an annotation, an import), _MADE_HERE (called by its name), or the
    expression that carries it to where one is chosen (the outermost table, list or
    conditional holding it, or the name itself)."""
    parent = ref.parent
    if isinstance(parent, nodes.ClassDef) or _in_annotation(ref):
        return _NOT_MADE
    if isinstance(parent, nodes.Call):
        if parent.func is ref:
            return _MADE_HERE
        callee = parent.func
        if isinstance(callee, nodes.Name) and callee.name in ("isinstance", "issubclass"):
            return _NOT_MADE
    node: nodes.NodeNG = ref
    while isinstance(node.parent, (nodes.Dict, nodes.List, nodes.Tuple, nodes.IfExp)):
        if isinstance(node.parent, nodes.Dict) and not any(v is node for _, v in node.parent.items):
            return None  # a key: not what the table gives
        if isinstance(node.parent, nodes.IfExp) and node.parent.test is node:
            return None
        node = node.parent
    return node


def _in_annotation(node: nodes.NodeNG) -> bool:
    child, parent = node, node.parent
    while parent is not None and not isinstance(parent, (nodes.Module, nodes.ClassDef)):
        if isinstance(parent, nodes.AnnAssign) and parent.annotation is child:
            return True
        if isinstance(parent, nodes.Arguments) and child in (
            *parent.annotations,
            *parent.posonlyargs_annotations,
            *parent.kwonlyargs_annotations,
        ):
            return True
        if isinstance(parent, nodes.FunctionDef) and parent.returns is child:
            return True
        child, parent = parent, parent.parent
    return False


def _consumers(carrier: nodes.NodeNG) -> list[nodes.NodeNG]:
    """The expressions that choose a class out of `carrier`: its lookup where it is
    looked up in place (`{9: A, 10: B}[major]`, the whole chain of lookups); where it is
    assigned to a name of its scope, each lookup of that name, or the name where it is
    called (`cls = A` in a branch, then `cls(...)`). [] where it goes anywhere else."""
    parent = carrier.parent
    if isinstance(parent, nodes.Subscript) and parent.value is carrier:
        return [_outer_lookup(parent)]
    if (
        isinstance(parent, nodes.Assign)
        and len(parent.targets) == 1
        and isinstance(parent.targets[0], nodes.AssignName)
    ):
        target = parent.targets[0].name
        scope = parent.scope()
        found: list[nodes.NodeNG] = []
        for use in scope.nodes_of_class(nodes.Name):
            if use.name != target or use.scope() is not scope:
                continue
            above = use.parent
            if isinstance(above, nodes.Subscript) and above.value is use:
                found.append(_outer_lookup(above))
            elif isinstance(above, nodes.Call) and above.func is use:
                found.append(use)
            else:
                return []  # passed on, returned, stored: not followed
        return found
    return []


def _outer_lookup(lookup: nodes.Subscript) -> nodes.NodeNG:
    while isinstance(lookup.parent, nodes.Subscript) and lookup.parent.value is lookup:
        lookup = lookup.parent
    return lookup


def _named_in(ev: Evaluator, carrier: nodes.NodeNG, named: dict[str, nodes.ClassDef]) -> set[int]:
    """The family's classes the carrier names (every one a chooser may give)."""
    found: set[int] = set()
    for ref in carrier.nodes_of_class(nodes.Name):
        klass = named.get(str(ref.name))
        if klass is not None and _refers_to(ev, ref, klass):
            found.add(id(klass))
    return found


def _chosen(ev: Evaluator, chooser: nodes.NodeNG, named: frozenset[int]) -> set[int]:
    """The classes `chooser` gives on this generation: the ones its value is; none where
    its lookup raises here; every one it names where its value is unknown."""
    if isinstance(chooser, nodes.Subscript):
        items = _looked_up(ev, chooser)
        if items is not None:
            if all(isinstance(i, ClassRef) for i in items):
                return {id(i.node) for i in items}
            return set(named)
    value, raised = _quietly(ev, chooser)
    if isinstance(value, ClassRef):
        return {id(value.node)}
    if isinstance(value, OneOf) and all(isinstance(o, ClassRef) for o in value.options):
        return {id(o.node) for o in value.options}
    if value is UNKNOWN and raised:
        return set()
    return set(named)


def _looked_up(ev: Evaluator, chooser: nodes.Subscript) -> list[Any] | None:
    """The items a chain of lookups in tables of constant keys may give
    (`sm_to_cls[name][cap[0]]`, `name` one of two keys): each key the index may be
    that the table has (one it lacks raises there); None where a table or an index is
    not one of those."""
    chain: list[nodes.Subscript] = []
    node: nodes.NodeNG = chooser
    while isinstance(node, nodes.Subscript):
        chain.append(node)
        node = node.value
    current = [ev.eval(node, None)]
    for lookup in reversed(chain):
        if isinstance(lookup.slice, nodes.Slice):
            return None
        index = ev.eval(lookup.slice, None)
        found: list[Any] = []
        for table in current:
            items = expressions.items_at_keys(table, index) if isinstance(table, dict) else None
            if items is None:
                return None
            found.extend(items)
        current = found
    return current
