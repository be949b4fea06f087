"""A list, dict or set holds what it was made with only while nothing changes it.

vLLM's `get_linear_transform_schemes` starts `input_tfms = {}` and fills it in a loop
(`input_tfms[part_index] = ...`); read as the literal, `len(input_tfms) >= 1` was false
everywhere and the gate beside it (`... and has_device_capability(100)`) was lost.

What may change a container, by how its name is used:
- an item stored or deleted (`d[k] = v`, `del d[k]`, `d[k] += 1`, `d[a][b] = v`), or the
  whole augmented in place (`self.items += more`);
- a method called on it other than the reading ones (`d.setdefault`, `l.append`);
- a function's local handed to a call other than a builtin that only reads (`fill(d)`;
  `len(d)` reads); any container handed to `heapq.heappush`, `random.shuffle` and the
  like. A global or an attribute handed to a call is taken as read: module constants are
  handed to decorators and helpers (`@supported_compute_capability(SM10X)`);
- a function's local bound to another name or put into another container: the other
  holder may change it. A global or an attribute is read there (module tables name other
  tables: `PLANS = {(9, 0): SM90_PLANS}`), and a returned local is the caller's to change.

Where: a function's local is read in the order of its statements. The statement walk
(statements.py) forgets it once a statement that may change it has run, and at the
start of a loop that changes it; a read by name (resolve.py) is unknown past a change
earlier in the text, in a loop around the read, or in a nested function (changed_before).
A module global or an attribute (`self.backends`, `x.name` anywhere in the module that
binds it) is unknown wherever its module changes it: a function may run at any time
(may_change), and wherever another module changes it: through its import (`from .state
import ENTRIES` then `ENTRIES.append(check)`), the module (`state.ENTRIES.append`), or
another name bound to it in its own module (`ACTIVE = ENTRIES`; changed_elsewhere,
aliases_changed).

A memo table, a module dict that functions only fill item by item (`_CACHE[device] =
cap`), gives on an item read one of the values it was made with or stored (filled_table).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from astroid import nodes
from astroid.const import Context

from gatecheck.loading.lazy import spelled_nodes
from gatecheck.loading.resolve import absolute_import_name
from gatecheck.semantics.values import (
    UNKNOWN,
    EachDevice,
    ModuleRef,
    NoneOr,
    OneOf,
    contains_unknown,
)

if TYPE_CHECKING:
    from gatecheck.semantics.evaluator import Evaluator

# Methods of list, dict and set that do not change the container.
_READING_METHODS = frozenset(
    {
        "copy",
        "count",
        "difference",
        "get",
        "index",
        "intersection",
        "isdisjoint",
        "issubset",
        "issuperset",
        "items",
        "keys",
        "symmetric_difference",
        "union",
        "values",
    }
)
# Builtins that only read what they are given.
_READING_BUILTINS = frozenset(
    {
        "all",
        "any",
        "bool",
        "dict",
        "enumerate",
        "filter",
        "frozenset",
        "hash",
        "id",
        "isinstance",
        "iter",
        "len",
        "list",
        "map",
        "max",
        "min",
        "print",
        "repr",
        "reversed",
        "set",
        "sorted",
        "str",
        "sum",
        "tuple",
        "zip",
    }
)


def _spelled(callee: nodes.NodeNG) -> str | None:
    if isinstance(callee, nodes.Name):
        return str(callee.name)
    return str(callee.attrname) if isinstance(callee, nodes.Attribute) else None


# Standard functions that change the container they are given in place.
_CHANGING_FUNCTIONS = frozenset(
    {"heapify", "heappop", "heappush", "heappushpop", "heapreplace", "insort", "insort_left"}
    | {"insort_right", "shuffle"}
)


def holds_container(value: Any) -> bool:
    """Whether `value` is (or may be) a list, dict or set: what a change can alter. A
    machine's per-device values (values.EachDevice) may be a list, made by a list
    comprehension: `caps.append((12, 0))` leaves an item that is not the device's."""
    if isinstance(value, NoneOr):
        return holds_container(value.value)
    if isinstance(value, OneOf):
        return any(holds_container(o) for o in value.options)
    return isinstance(value, (list, dict, set, EachDevice))


_FUNCTIONS = (nodes.FunctionDef, nodes.AsyncFunctionDef, nodes.Lambda)
_LOOPS = (nodes.For, nodes.While, nodes.Comprehension)


def may_change(ev: Evaluator, binding: nodes.AssignName | nodes.AssignAttr) -> bool:
    """Whether what a global, class attribute or attribute `binding` binds may be
    changed in place anywhere in its module (a function may run at any time; see the
    module's docstring). A function's local is read by the order of its statements
    instead: changed_before, changed_names. Kept per scope and name in the facts."""
    if isinstance(binding, nodes.AssignAttr):
        name, scope, attribute = str(binding.attrname), binding.root(), True
    else:
        name, scope = str(binding.name), binding.scope()
        if isinstance(scope, _FUNCTIONS):
            return False
        attribute = isinstance(scope, nodes.ClassDef)  # a class attribute: `x.name`
        if attribute:
            scope = scope.root()
    if not isinstance(scope, nodes.Module):
        return True  # a comprehension's or an odd scope's: not followed
    if module_changes(ev, scope, name, attribute) or aliases_changed(ev, scope, name, attribute):
        return True
    return changed_elsewhere(ev, scope, name, attribute)


def aliases_changed(ev: Evaluator, module: nodes.Module, name: str, attribute: bool) -> bool:
    """Whether a global bound to another name in its module (`ACTIVE = ENTRIES`, in a
    function or not) is changed through that name (`ACTIVE.append(check)`): the other
    name holds the same list. Kept per module and name in the facts."""
    if attribute:
        return False
    key = ("aliases-changed", id(module), name)
    found: bool | None = ev.facts.get(key)
    if found is None:
        found = False
        for node in spelled_nodes(module, (nodes.Name,), {name}):
            statement = node.parent
            if not (
                node.name == name
                and isinstance(statement, (nodes.Assign, nodes.AnnAssign))
                and statement.value is node
            ):
                continue
            targets = (
                statement.targets if isinstance(statement, nodes.Assign) else [statement.target]
            )
            for target in targets:
                if not isinstance(target, nodes.AssignName):
                    found = True  # into an item or an attribute: not followed
                    continue
                scope = target.scope()
                if isinstance(scope, nodes.Module):
                    found = found or bool(module_changes(ev, module, str(target.name), False))
                else:
                    found = found or any(
                        n.name == target.name and _changes(n, escapes=False)
                        for n in scope.nodes_of_class(nodes.Name)
                    )
        ev.facts[key] = found
    return found


def changed_elsewhere(ev: Evaluator, module: nodes.Module, name: str, attribute: bool) -> bool:
    """Whether another module of the project may change it: `from pkg.state import
    ENTRIES` (or `*`) then `ENTRIES.append(check)`, `state.ENTRIES.append(check)` on a
    module that may be this one, and for an attribute `x.name.append(...)` on any `x`
    (as in its own module). A registry filled at import by the modules that register
    into it was read as its empty literal. Found by text first: the files spelling the
    name next to `[`, `.`, an augmented assignment or `as` (an import under another
    name), from one index of the project's text (_files_changing)."""
    ev.project.searched_in_index(name)  # for every asker (a cache's or impact's reads)
    key = ("changed-elsewhere", id(module), name, attribute)
    found: bool | None = ev.facts.get(key)
    if found is None:
        found = ev.facts[key] = any(
            _changed_in(ev, module, name, attribute, path)
            for path in files_changing(ev, name)
            if str(path) != module.file
        )
    return found


# Names looked up one by one (a scan of the texts spelling each) before the whole
# project's index is built (_files_changing): `check` asks a few (the index alone was
# 1.2 s of sglang 0.5.23's 1.6 s cold check), an audit hundreds.
MAX_NAMES_SEARCHED = 16


def files_changing(ev: Evaluator, name: str) -> tuple[Path, ...]:
    """The files spelling `name` next to `[`, `.`, an augmented assignment or `as`, in
    the project's order: from the index once it is built or more than
    MAX_NAMES_SEARCHED names were asked, else from the files whose text holds the name
    (the same files: the forward pattern for one name finds what the index holds)."""
    index: dict[str, tuple[Path, ...]] | None = ev.facts.get("files-changing")
    if index is not None:
        return index.get(name, ())
    key = ("files-changing", name)
    found: tuple[Path, ...] | None = ev.facts.get(key)
    if found is not None:
        return found
    asked = ev.facts.setdefault("files-changing-asked", [0])
    asked[0] += 1
    if asked[0] > MAX_NAMES_SEARCHED:
        return _files_changing(ev).get(name, ())
    project = ev.project
    pattern = _changing_pattern(name)
    found = ev.facts[key] = tuple(
        path
        for path in project.files_mentioning([name])
        if pattern.search(project.text_of(path) or "")
    )
    return found


def _changing_pattern(name: str) -> re.Pattern[str]:
    """The forward pattern of _CHANGING_REVERSED for one name."""
    return re.compile(rf"\b{re.escape(name)}(?:\s*(?:[\[.]|[-+|&^*]=)|\s+as\b)")


def _files_changing(ev: Evaluator) -> dict[str, tuple[Path, ...]]:
    """Each name spelled next to `[`, `.`, an augmented assignment or `as` -> the files
    that spell it so, in the project's order: one pass over the project's text, kept in
    the shared facts. Asked for every module container read, a search of every file's
    text per name cost sglang 0.5.23 9 s under the profiler (303 names, each a scan of
    68 MB); the index, 0.8 s once."""
    index: dict[str, tuple[Path, ...]] | None = ev.facts.get("files-changing")
    if index is None:
        found: dict[str, list[Path]] = {}
        with ev.project.scanning():  # read per name looked up (searched_in_index)
            for path in ev.project.files:
                text = ev.project.text_of(path)
                if text is None:
                    continue
                for name in changing_names(text):
                    found.setdefault(name, []).append(path)
        index = ev.facts["files-changing"] = {k: tuple(v) for k, v in found.items()}
    return index


# A name in a position that may change what it holds, as text: `\b(\w+)(?:\s*(?:[\[.]|
# [-+|&^*]=)|\s+as\b)` (`NAME[k] = v`, `NAME.append(x)`, `NAME += y`, `import NAME as
# other`). Matched in the reversed text, as call_names reads calls: each pattern starts
# at a literal the regex engine skips to (`[`/`.`, `=`, `sa`), where a pattern starting
# at a word boundary is tried at every position (3.6 s -> 0.8 s over sglang 0.5.23).
# The name is read in a lookahead, whole (possessive), so a match consumes nothing that
# another may start at (`x as as` holds `x` as it holds `as`): a name is found wherever
# the forward pattern, searched for that name alone, finds it
# (tests/test_written_elsewhere.py compares them on generated text).
_CHANGING_REVERSED = (
    re.compile(r"[\[.]\s*+(?=(\w++))"),
    re.compile(r"=[-+|&^*]\s*+(?=(\w++))"),
    re.compile(r"sa(?<!\wsa)\s++(?=(\w++))"),
)


def changing_names(text: str) -> set[str]:
    """The names `text` spells next to `[`, `.`, an augmented assignment or `as`."""
    reversed_text = text[::-1]
    found: set[str] = set()
    for pattern in _CHANGING_REVERSED:
        found.update(pattern.findall(reversed_text))
    return {name[::-1] for name in found}


def _changed_in(ev: Evaluator, module: nodes.Module, name: str, attribute: bool, path: Any) -> bool:
    if attribute and not _spells_attribute(ev.project.text_of(path) or "", name):
        return False  # no `x.name` in the file: nothing to build it for
    tree = ev.project.module_at(path)
    if tree is None:
        return False
    if attribute:
        return bool(module_changes(ev, tree, name, True))
    for node in spelled_nodes(tree, (nodes.ImportFrom, nodes.Attribute), {name}):
        if isinstance(node, nodes.Attribute):
            if node.attrname == name and _changes(node, escapes=True):
                receiver = ev.eval(node.expr, None)
                if receiver is UNKNOWN or receiver == ModuleRef(str(module.name)):
                    return True
            continue
        if ev.project.canonical(absolute_import_name(node)) != module.name:
            continue
        for imported, alias in node.names:
            if imported in (name, "*"):
                local = name if imported == "*" else (alias or name)
                if module_changes(ev, tree, local, False) or aliases_changed(
                    ev, tree, local, False
                ):
                    return True
    return False


def _spells_attribute(text: str, name: str) -> bool:
    """Whether `text` may spell an attribute `x.name`: the dot, then what Python lets
    stand between it and the name (white space, a line continuation, a comment inside
    brackets). The index finds `name.` or `name[`: half the files it gives for an
    attribute's name spell it only so (sglang 0.5.23: 53 files built for nothing)."""
    return re.search(rf"\.(?:\s|\\\r?\n|#[^\n]*\n)*{re.escape(name)}", text) is not None


def module_changes(
    ev: Evaluator, module: nodes.Module, name: str, attribute: bool
) -> tuple[nodes.NodeNG, ...]:
    """The uses of `name` (a global; `x.name` for an attribute) in `module` that may
    change what it holds, in the module's order; kept per module and name in the facts."""
    key = ("module-changes", id(module), name, attribute)
    found: tuple[nodes.NodeNG, ...] | None = ev.facts.get(key)
    if found is None:
        kinds: tuple[type[nodes.NodeNG], ...] = (
            (nodes.Attribute, nodes.AssignAttr) if attribute else (nodes.Name,)
        )
        found = ev.facts[key] = tuple(
            node
            for node in spelled_nodes(module, kinds, {name})
            if _names(node, name)
            and (
                # `self.items += more` changes a list in place (an AssignAttr target).
                isinstance(node.parent, nodes.AugAssign)
                if isinstance(node, nodes.AssignAttr)
                else _changes(node, escapes=True)
            )
        )
    return found


def _names(node: nodes.NodeNG, name: str) -> bool:
    spelled = node.name if isinstance(node, nodes.Name) else node.attrname
    return bool(spelled == name)


def changed_before(ev: Evaluator, read: nodes.Name, function: nodes.NodeNG) -> bool:
    """Whether a change of the local `read` names (a container, in `function`) may run
    before this read: one earlier in the text, one in a loop around the read (a later
    iteration's read follows it), or one in a nested function (it runs when called);
    any, for a read in a nested function. Not a later change inside a `for` whose
    target binds the name, around the read too: the next iteration's read is of the
    next item (`for cc in [c.split(".") for c in ccs]: if int(cc[0]) >= 8:
    kept.append(cc)`; that two items may be one object, `[x] * 2`, is not followed)."""
    name = str(read.name)
    changes = local_changes(ev, function, name)
    if not changes:
        return False
    if _run_in(read) is not function:
        return True  # a closure's read runs when it is called: after any of them
    loops = {id(n) for n in _around(read, function) if isinstance(n, _LOOPS)}
    here = (read.lineno or 0, read.col_offset or 0)
    for change in changes:
        if change is read:
            continue
        if _run_in(change) is not function or (change.lineno or 0, change.col_offset or 0) < here:
            return True
        # The innermost loop around both: its next iteration reads after the change.
        shared = next((n for n in _around(change, function) if id(n) in loops), None)
        if shared is not None and not _rebinds(shared, change, name):
            return True
    return False


def _rebinds(loop: nodes.NodeNG, change: nodes.NodeNG, name: str) -> bool:
    """Whether `loop` is a `for` binding `name` each iteration, `change` in its body (not
    its iterable or `else`): the next iteration's read is of the next item."""
    if not isinstance(loop, nodes.For):
        return False
    if not any(n.name == name for n in loop.target.nodes_of_class(nodes.AssignName)):
        return False
    node = change
    while node.parent is not None and node.parent is not loop:
        node = node.parent
    return node in loop.body


# Comprehensions that run where they are written (a generator runs when consumed).
_EAGER = (nodes.ListComp, nodes.SetComp, nodes.DictComp)


def _run_in(node: nodes.NodeNG) -> nodes.NodeNG:
    """The scope whose run runs `node` when it reaches it: its own, or for a node in a
    list, set or dict comprehension (or in a generator's first iterable, evaluated where
    the generator is made) the scope around it (`[c for c in pick(majors)]` reads
    `majors` where the statement is)."""
    scope = node.scope()
    while isinstance(scope, _EAGER) or (
        isinstance(scope, nodes.GeneratorExp) and _below(node, scope.generators[0].iter)
    ):
        if scope.parent is None:
            break
        scope = scope.parent.scope()
    return scope


def _below(node: nodes.NodeNG, top: nodes.NodeNG) -> bool:
    while node is not None:
        if node is top:
            return True
        node = node.parent
    return False


def local_changes(ev: Evaluator, function: nodes.NodeNG, name: str) -> list[nodes.Name]:
    """The uses of local `name` in `function` that may change what it holds (kept in
    the facts)."""
    key = ("local-changes", id(function), name)
    changes: list[nodes.Name] | None = ev.facts.get(key)
    if changes is None:
        changes = ev.facts[key] = [
            n
            for n in function.nodes_of_class(nodes.Name)
            if n.name == name and _changes(n, escapes=False)
        ]
    return changes


def _around(node: nodes.NodeNG, stop: nodes.NodeNG) -> list[nodes.NodeNG]:
    found: list[nodes.NodeNG] = []
    parent = node.parent
    while parent is not None and parent is not stop:
        found.append(parent)
        parent = parent.parent
    return found


def changed_names(ev: Evaluator, statement: nodes.NodeNG) -> frozenset[str]:
    """The names whose container `statement` may change in place (a function's locals:
    the statement walk forgets what they held once it has run it)."""
    key = ("changed-names", id(statement))
    found: frozenset[str] | None = ev.facts.get(key)
    if found is None:
        found = ev.facts[key] = names_changed(statement)
    return found


def names_changed(statement: nodes.NodeNG) -> frozenset[str]:
    """The names `statement` spells in a position that may change a function's local
    container in place (pure; changed_names keeps it per statement). `t = s` names `t`
    too: both hold one container from then on, and a change through `s` (`s.append(x)`,
    which the walk follows or forgets for `s` alone) is one of `t`'s."""
    changed = {
        str(n.name) for n in statement.nodes_of_class(nodes.Name) if _changes(n, escapes=False)
    }
    for bound in statement.nodes_of_class((nodes.Assign, nodes.AnnAssign, nodes.NamedExpr)):
        if isinstance(bound.value, nodes.Name):
            targets = bound.targets if isinstance(bound, nodes.Assign) else [bound.target]
            changed.update(str(t.name) for t in targets if isinstance(t, nodes.AssignName))
    return frozenset(changed)


def _changes(node: nodes.NodeNG, escapes: bool) -> bool:
    """Whether the use `node` (of the name) may change what it holds."""
    parent = node.parent
    if isinstance(parent, nodes.Subscript) and parent.value is node:
        top = parent
        while isinstance(top.parent, nodes.Subscript) and top.parent.value is top:
            top = top.parent
        return top.ctx in (Context.Store, Context.Del)
    if isinstance(parent, nodes.Attribute) and parent.expr is node:
        call = parent.parent
        return (
            isinstance(call, nodes.Call)
            and call.func is parent
            and parent.attrname not in _READING_METHODS
        )
    if isinstance(parent, nodes.AugAssign):
        return parent.target is node
    if isinstance(parent, nodes.Starred):
        parent = parent.parent
    if isinstance(parent, nodes.Keyword):
        parent = parent.parent
    if isinstance(parent, nodes.Call):
        if parent.func is node:
            return False
        spelled = _spelled(parent.func)
        if spelled in _CHANGING_FUNCTIONS:
            return True
        if isinstance(parent.func, nodes.Attribute) and spelled in _READING_METHODS:
            return False  # `d.get(k)`: a key looked up
        # A function's own container handed to a helper is there to be filled; a module
        # constant or an attribute handed to a call is read (`@supported([100, 103])`).
        return not escapes and spelled not in _READING_BUILTINS
    if escapes:
        return False  # a table's entries name other tables (`PLANS = {(9, 0): SM90}`)
    # A function's container bound again, or put into another: the other holder may
    # change it (`d = {}; self.table = d`).
    if isinstance(parent, (nodes.Assign, nodes.AnnAssign, nodes.NamedExpr)):
        return parent.value is node
    return isinstance(parent, (nodes.List, nodes.Tuple, nodes.Set, nodes.Dict))


def filled_table(ev: Evaluator, read: nodes.Name) -> tuple[Any, ...] | None:
    """A module's dict that functions fill item by item (`_CACHE[device] = cap`, a memo of
    the device's capability, read back `_CACHE[device]` or `_CACHE.get(device)`): the
    values an item read may give, those it was made with and those stored into it
    (each store's value, as its function computes it); None when the name is not such a
    table or something else changes it (a method call on it, a helper it is passed to).
    Which key holds which value is not followed: a read is one of them."""
    from gatecheck.semantics.bindings import memoized
    from gatecheck.semantics.resolve import looked_up

    found = looked_up(ev, read)
    if found is None:
        return None
    scope, bindings = found
    if not isinstance(scope, nodes.Module) or len(bindings) != 1:
        return None
    binding = bindings[0]
    statement = binding.parent
    if not (
        isinstance(binding, nodes.AssignName)
        and isinstance(statement, (nodes.Assign, nodes.AnnAssign))
        and isinstance(statement.value, nodes.Dict)
    ):
        return None
    stores = _item_stores(module_changes(ev, scope, str(binding.name), False))
    if stores is None or changed_elsewhere(ev, scope, str(binding.name), False):
        return None
    if aliases_changed(ev, scope, str(binding.name), False):
        return None
    made = statement.value
    if any(isinstance(k, nodes.DictUnpack) for k, _ in made.items):
        return None
    values = [v for _, v in made.items] + list(stores)
    # Once per generation: every read of the table gives the same values.
    found = memoized(ev, ("filled-table", id(binding)), _values, values)
    return found if isinstance(found, tuple) else None


def _values(ev: Evaluator, expressions: list[nodes.NodeNG]) -> tuple[Any, ...]:
    return tuple(ev.eval(v, None) for v in expressions)


def _item_stores(changes: tuple[nodes.NodeNG, ...]) -> list[nodes.NodeNG] | None:
    """The values stored by `name[key] = value` when every change of the name (module_changes)
    is such a store or an item deleted; else None."""
    stores: list[nodes.NodeNG] = []
    for node in changes:
        item, statement = node.parent, node.parent.parent
        if isinstance(item, nodes.Subscript) and item.ctx == Context.Del:
            continue
        if not (
            isinstance(item, nodes.Subscript)
            and item.value is node
            and isinstance(statement, nodes.Assign)
            and stores_item(statement, item)
        ):
            return None
        stores.append(statement.value)
    return stores


def stores_item(statement: nodes.Assign, item: nodes.Subscript) -> bool:
    """Whether `statement` stores its value at `item` as `d[k] = v` does: `item` is its
    target, or one of its targets the others of which are plain names other than the
    container's (`c = _cache[k] = probe()`, a memo filled and read in one statement)."""
    if statement.targets == [item]:
        return True
    container = item.value.name if isinstance(item.value, nodes.Name) else None
    return item in statement.targets and all(
        t is item or (isinstance(t, nodes.AssignName) and t.name != container)
        for t in statement.targets
    )


# A local container's own methods whose change the walk follows, by the container's type.
_GROWING: dict[type, frozenset[str]] = {
    set: frozenset({"add", "update"}),
    list: frozenset({"append", "extend"}),
    dict: frozenset({"update"}),
}


def grown(ev: Evaluator, statement: nodes.NodeNG, env: dict[str, Any]) -> tuple[str, Any] | None:
    """(name, what it holds now) when `statement` only adds known items to a function's
    local list, dict or set that `env` holds (`s.add(x)`, `s.update((x, y))`,
    `l.append(f)`, `l.extend([f, g])`, `d.update({k: v})`, `d[k] = v`); None for any
    other statement (the walk then forgets what it changes). A dtype-support set built
    from the capability (`s = {fp16}`, `if major >= 9: s.add(fp8)`, then `return s`) was
    forgotten at the `add`, and `fp8 in s` was unknown on every generation. The walk
    decides a test per generation, so each path's set is its own; where it cannot (two
    paths' different sets meet) they meet as unknown."""
    if isinstance(statement, nodes.Assign):
        return _item_stored(ev, statement, env)
    if not isinstance(statement, nodes.Expr) or not isinstance(statement.value, nodes.Call):
        return None
    call = statement.value
    func = call.func
    if not (
        isinstance(func, nodes.Attribute)
        and isinstance(func.expr, nodes.Name)
        and len(call.args) == 1
        and not call.keywords
        and not isinstance(call.args[0], nodes.Starred)
    ):
        return None
    name = str(func.expr.name)
    held = env.get(name)
    if func.attrname not in _GROWING.get(type(held), ()):
        return None
    argument = ev.eval(call.args[0], env)
    if isinstance(held, set):
        items = (argument,) if func.attrname == "add" else argument
        if not isinstance(items, (tuple, list, set, frozenset)) or contains_unknown(items):
            return None
        try:
            return name, held | set(items)
        except TypeError:
            return None
    if isinstance(held, list):
        if func.attrname == "append":
            return name, [*held, argument]
        if isinstance(argument, (tuple, list)):
            return name, [*held, *argument]
        return None
    if isinstance(held, dict) and isinstance(argument, dict):
        return name, {**held, **argument}
    return None


def _item_stored(
    ev: Evaluator, statement: nodes.Assign, env: dict[str, Any]
) -> tuple[str, Any] | None:
    """`d[k] = v` on a local dict, `k` known (`c = d[k] = v` too: stores_item)."""
    items = [t for t in statement.targets if isinstance(t, nodes.Subscript)]
    if len(items) != 1 or not stores_item(statement, items[0]):
        return None
    target = items[0]
    if not isinstance(target.value, nodes.Name):
        return None
    name = str(target.value.name)
    held = env.get(name)
    if not isinstance(held, dict):
        return None
    key = ev.eval(target.slice, env)
    if contains_unknown(key) or isinstance(key, NoneOr):
        return None
    try:
        return name, {**held, key: ev.eval(statement.value, env)}
    except TypeError:
        return None


def filled_at_import(ev: Evaluator, binding: nodes.NodeNG, made: Any) -> Any | None:
    """What a module's container holds once its module has run, when every change of it
    is a statement of the module itself, under `if`s at most, that adds known items
    (mutations.grown: `SUPPORTED = {fp16}`, `if major >= 9: SUPPORTED.add(fp8)`;
    `CHECKS = []`, `CHECKS.append(fp8_check)`), nothing changes it elsewhere or through
    another name, and the module reads it only after the last change. None otherwise,
    or where a test on the way is not decided for the generation (the value is then
    unknown, as before). `made`: the value its binding makes."""
    if not isinstance(binding, nodes.AssignName) or not isinstance(binding.scope(), nodes.Module):
        return None
    module, name = binding.scope(), str(binding.name)
    statements = _import_changes(ev, module, name, binding)
    if statements is None:
        return None
    found = ev.memoized(("filled-at-import", id(binding)), _run_import, (module, name, made))
    return None if found is UNKNOWN else found


def _import_changes(
    ev: Evaluator, module: nodes.Module, name: str, binding: nodes.AssignName
) -> frozenset[int] | None:
    """The ids of the module statements (and `if`s around them) that change the
    container, when filled_at_import can follow them; found once per binding."""
    key = ("import-changes", id(binding))
    if key in ev.facts:
        found: frozenset[int] | None = ev.facts[key]
        return found
    found = _followable(ev, module, name, binding)
    ev.facts[key] = found
    return found


def _followable(
    ev: Evaluator, module: nodes.Module, name: str, binding: nodes.AssignName
) -> frozenset[int] | None:
    if module.locals.get(name, []) != [binding]:
        return None  # bound again: not followed
    changes = module_changes(ev, module, name, False)
    if not changes or aliases_changed(ev, module, name, False):
        return None
    marked: set[int] = set()
    last = 0
    for change in changes:
        statement = change.statement()
        if not isinstance(statement, (nodes.Expr, nodes.Assign)):
            return None
        node: nodes.NodeNG = statement
        while node.parent is not module:
            parent = node.parent
            if not isinstance(parent, nodes.If) or node is parent.test:
                return None  # in a function, a loop, a `try`, a test: not followed
            node = parent
        marked.add(id(statement))
        for around in _around(statement, module):
            marked.add(id(around))
        last = max(last, statement.tolineno or 0)
    # The module's own reads (outside its functions) must come after the last change.
    for read in spelled_nodes(module, (nodes.Name,), {name}):
        if read.name != name or not isinstance(read.scope(), nodes.Module):
            continue
        if id(read.statement()) not in marked and (read.lineno or 0) <= last:
            return None
    if changed_elsewhere(ev, module, name, False):
        return None
    return frozenset(marked)


def _run_import(ev: Evaluator, held: tuple[nodes.Module, str, Any]) -> Any:
    module, name, made = held
    marked = _import_changes_of(ev, module, name)
    env: dict[str, Any] = {name: made}
    if not _run_marked(ev, module.body, marked, env, name):
        return UNKNOWN
    return env[name]


def _import_changes_of(ev: Evaluator, module: nodes.Module, name: str) -> frozenset[int]:
    binding = module.locals[name][0]
    found = ev.facts.get(("import-changes", id(binding)))
    return found or frozenset()


def _run_marked(
    ev: Evaluator, body: list[nodes.NodeNG], marked: frozenset[int], env: dict[str, Any], name: str
) -> bool:
    """Run the marked statements of `body` in order; False when one cannot be followed."""
    from gatecheck.semantics.values import truth

    for statement in body:
        if id(statement) not in marked:
            continue
        if isinstance(statement, nodes.If):
            test = truth(ev.eval(statement.test, None))
            if test is UNKNOWN:
                return False
            branch = statement.body if test else statement.orelse
            if not _run_marked(ev, branch, marked, env, name):
                return False
            continue
        added = grown(ev, statement, env)
        if added is None or added[0] != name:
            return False
        env[name] = added[1]
    return True
