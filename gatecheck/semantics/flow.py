"""The value a name (or an instance attribute) holds after the block that binds it more
than once, read in order through `if`s: `use_x = False` then `if cap >= (9, 0): use_x =
True` is True exactly where the test can be. Only straight-line assignments, `if`s,
`try`s and loops (run no time, once or twice) of one block (a module, a class body, a
method such as `__init__`) are read so; any other shape (a `with`, bindings in two
blocks) answers None and the caller meets every binding as before (logic.join_all).
Read so only when the evaluator follows flow (the audit: `Semantics(follow_flow=True)`);
`check` keeps meeting every binding."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from astroid import nodes

from gatecheck.loading.trees import own_nodes
from gatecheck.semantics.env import none_compared
from gatecheck.semantics.logic import bool_op, either, kleene_not
from gatecheck.semantics.values import UNKNOWN, NoneOr, OneOf, plain, truth

if TYPE_CHECKING:
    from gatecheck.semantics.evaluator import Evaluator

_BLOCKS = (nodes.Module, nodes.ClassDef, nodes.FunctionDef)
# No binding reached on this path: reading the name there would fail, so the path adds
# no value.
_UNSET: Any = object()


def value_after(
    ev: Evaluator, assigns: Sequence[nodes.NodeNG], reader: nodes.NodeNG | None = None
) -> Any | None:
    """The value `assigns` (AssignName / AssignAttr nodes of one name) leave at the end
    of their block, or None when they are not all plain assignments of one block under
    `if`s only (or when `reader`, the node reading the name, sits inside one of them)."""
    if len(assigns) < 2 or not ev.follow_flow:
        return None
    filled = _after_none_fill(ev, assigns, reader)
    if filled is not None:
        return filled
    key = ("flow", *sorted(id(a) for a in assigns))
    if key not in ev.facts:  # the shape is the code's: found once for every generation
        ev.facts[key] = _marked(assigns)
    marked = ev.facts[key]
    if marked is None:
        return None
    if reader is not None and _inside(reader, marked):
        # In the test of an `if` the run below is at: the value on the way there.
        at_test = _at_test(ev, reader, marked, key)
        if at_test is not None or any(_line(a) >= _line(reader) for a in assigns):
            return at_test
        # Inside a marked statement, after every binding (`x = 24` / `x = 32` in
        # branches, then `y = 64 // x` in one of them): what the block leaves holds the
        # value there (no binding runs after it on any path), with the other paths'.
    block, statements, start = marked
    if reader is not None and reader.scope() is block:
        # Read in the block itself: only paths that did not return reach it, but it
        # must come after every binding (astroid's lookup keeps some that follow).
        if any(_line(a) >= _line(reader) for a in assigns):
            return None
    elif _returns_early(ev, block):
        # Read after the block ran (another function, an instance's attribute):
        # `self.disabled = True`, `if not ok: return`, `self.disabled = False` may
        # leave with the earlier value.
        return None
    # The run, memoized per set of bindings (a test inside the run may read the name
    # through fewer of them, astroid's lookup keeping those before it: another run, its
    # own entry), with its reads, like a binding's value. Each read of a flag re-ran
    # the block from its start, and each `if` test on the way read the other flags the
    # same way: TransformerEngine's get_attention_backend (a thousand lines re-binding
    # `use_flash_attention`, `use_fused_attention`, ...) cost 29 million evaluation
    # steps, 211 s of a 213 s audit. A cycle (the flag's own tests read it) is unknown.
    return ev.memoized(key, _run_block, (block, statements, start, key))


_Run = tuple[nodes.NodeNG, dict[int, list[nodes.NodeNG]], "nodes.AssignName | None", Any]


def _run_block(ev: Evaluator, run: _Run) -> Any:
    """value_after's run of the block (its bindings' block, the marked statements, the
    parameter whose value it starts from if any, the memo key), _UNSET (no binding on
    any path) read as unknown."""
    block, statements, start, key = run
    value = _UNSET if start is None else plain(ev.binding_value(start))
    found = _run(ev, block.body, statements, value, key)
    return UNKNOWN if found is _UNSET else found


def _after_none_fill(
    ev: Evaluator, assigns: Sequence[nodes.NodeNG], reader: nodes.NodeNG | None
) -> Any | None:
    """A parameter read after the function's top-level `if param is None: param = ...`
    (the default filled in): what the caller passed where it is not None, else the
    fill. Read in that `if`'s test or before it: what the caller passed (astroid's
    lookup also gives the fill, which has not run there). None: not that shape, or read
    inside the `if`'s body."""
    key = ("none-fill", *sorted(id(a) for a in assigns))
    if key not in ev.facts:
        ev.facts[key] = _none_fill_shape(assigns)
    shape = ev.facts[key]
    if shape is None or reader is None:
        return None
    parameter, statement, fill = shape
    if reader.scope() is not statement.parent:
        return None
    if _line(reader) < _line(statement) or statement.test.parent_of(reader):
        return ev.binding_value(parameter)
    if _line(reader) <= int(statement.tolineno or 0):
        return None
    passed = plain_or_none(ev.binding_value(parameter))
    filled = ev.binding_value(fill)
    return filled if passed is _UNSET else either([passed, filled])


def none_fill_choice(node: nodes.NodeNG) -> tuple[nodes.Name, nodes.NodeNG] | None:
    """(the name tested, the fill) of `fill if name is None else name` (or `name if name
    is not None else fill`); None for any other node."""
    if not isinstance(node, nodes.IfExp):
        return None
    test = node.test
    if not (isinstance(test, nodes.Compare) and len(test.ops) == 1):
        return None
    op, right = test.ops[0]
    if op not in ("is", "is not") or not (isinstance(right, nodes.Const) and right.value is None):
        return None
    name = test.left
    fill, kept = (node.body, node.orelse) if op == "is" else (node.orelse, node.body)
    if isinstance(name, nodes.Name) and isinstance(kept, nodes.Name) and kept.name == name.name:
        return name, fill
    return None


def ternary_none_fill(function: nodes.FunctionDef, name: str) -> nodes.NodeNG | None:
    """The fill of the first `fill if name is None else name` in `function`'s own
    statements (not in a nested function or class)."""
    for node in own_nodes(function.body, nodes.IfExp):
        found = none_fill_choice(node)
        if found is not None and found[0].name == name:
            return found[1]
    return None


def none_filled_choice(ev: Evaluator, node: nodes.IfExp, env: Any) -> Any | None:
    """`read_device() if arch is None else arch` (or `arch if arch is not None else
    read_device()`), `arch` a parameter bound nowhere else: what the caller passed where
    it is not None, else the fill, as after `if arch is None: arch = read_device()`
    (_after_none_fill; flash-attn-4's interface fills its `_arch` so). None: not that
    shape."""
    found = none_fill_choice(node)
    if found is None or (env is not None and found[0].name in env):
        return None
    name, fill = found
    _scope, bound = name.lookup(name.name)
    if len(bound) != 1 or not isinstance(bound[0].parent, nodes.Arguments):
        return None
    function = bound[0].parent.parent
    if not isinstance(function, nodes.FunctionDef) or node.scope() is not function:
        return None
    passed = plain_or_none(ev.binding_value(bound[0]))
    filled = ev.eval(fill, env)
    return filled if passed is _UNSET else either([passed, filled])


def plain_or_none(value: Any) -> Any:
    """A value with its None taken out: a NoneOr's value, _UNSET for None itself."""
    if value is None:
        return _UNSET
    return value.value if isinstance(value, NoneOr) else value


def _none_fill_shape(
    assigns: Sequence[nodes.NodeNG],
) -> tuple[nodes.AssignName, nodes.If, nodes.AssignName] | None:
    """(the parameter, its `if param is None:`, the fill's last binding) when `assigns`
    are a parameter and bindings made directly in the body of that `if` (none_fill)."""
    parameters = [a for a in assigns if isinstance(a.parent, nodes.Arguments)]
    if len(parameters) != 1 or not isinstance(parameters[0], nodes.AssignName):
        return None
    parameter = parameters[0]
    function = parameter.parent.parent
    if not isinstance(function, nodes.FunctionDef):
        return None
    found = none_fill(function, str(parameter.name))
    if found is None:
        return None
    statement, fill = found
    fills = [a for a in assigns if a is not parameter]
    if not all(_fills(a, statement) for a in fills):
        return None
    return parameter, statement, fill


def none_fill(function: nodes.FunctionDef, name: str) -> tuple[nodes.If, nodes.AssignName] | None:
    """The first top-level `if name is None:` of `function` whose body assigns `name`
    plainly, and its last such binding (`if cap is None: ...; cap = probe()`)."""
    for statement in function.body:
        if not (isinstance(statement, nodes.If) and _is_none_test(statement.test, name)):
            continue
        bindings = [
            target
            for inner in statement.body
            if isinstance(inner, nodes.Assign)
            for target in inner.targets
            if isinstance(target, nodes.AssignName) and target.name == name
        ]
        if bindings:
            return statement, bindings[-1]
    return None


def _fills(binding: nodes.NodeNG, statement: nodes.If) -> bool:
    """A plain `name = ...` directly in the body of `statement`."""
    assigned = binding.statement()
    return (
        isinstance(binding, nodes.AssignName)
        and isinstance(assigned, nodes.Assign)
        and assigned.targets == [binding]
        and any(s is assigned for s in statement.body)
    )


def _is_none_test(test: nodes.NodeNG, name: str) -> bool:
    """`name is None`."""
    compared = none_compared(test) if isinstance(test, nodes.Compare) else None
    return (
        compared is not None
        and compared[1]
        and isinstance(compared[0], nodes.Name)
        and compared[0].name == name
    )


Marked = tuple[nodes.NodeNG, dict[int, list[nodes.NodeNG]], "nodes.AssignName | None"]


def _marked(assigns: Sequence[nodes.NodeNG]) -> Marked | None:
    """The block holding every binding, and by id: each `if` or `try` on the way to a
    binding (-> []) and each assignment statement (-> its bindings among `assigns`);
    and the function's parameter among them, if any: the block is then that function's
    body, run from the value the parameter is given (`def f(use_tma): if not ok():
    use_tma = False; if use_tma: ...`)."""
    block: nodes.NodeNG | None = None
    marked: dict[int, list[nodes.NodeNG]] = {}
    parameters = [a for a in assigns if isinstance(a.parent, nodes.Arguments)]
    start: nodes.AssignName | None = None
    if parameters:
        if len(parameters) > 1 or not isinstance(parameters[0], nodes.AssignName):
            return None
        start = parameters[0]
        block = start.parent.parent
        if not isinstance(block, nodes.FunctionDef):
            return None
        assigns = [a for a in assigns if a is not start]
    for assign in assigns:
        if not isinstance(assign, (nodes.AssignName, nodes.AssignAttr)):
            return None
        statement = assign.statement()
        if not isinstance(statement, (nodes.Assign, nodes.AnnAssign)):
            return None
        marked.setdefault(id(statement), []).append(assign)
        node: nodes.NodeNG = statement
        while True:
            parent = node.parent
            if isinstance(parent, nodes.ExceptHandler) and any(s is node for s in parent.body):
                node = parent
            elif (
                (isinstance(parent, nodes.If) and node is not parent.test)
                or isinstance(parent, nodes.Try)
                or _in_loop_block(parent, node)
            ):
                node = parent
                marked.setdefault(id(node), [])
            else:
                break
        owner = node.parent
        if not isinstance(owner, _BLOCKS) or not any(s is node for s in owner.body):
            return None
        if block is not None and owner is not block:
            return None
        block = owner
    return (block, marked, start) if block is not None and marked else None


def _line(node: nodes.NodeNG) -> int:
    return int(node.lineno or 0)


def _returns_early(ev: Evaluator, block: nodes.NodeNG) -> bool:
    """A function block with a `return` anywhere but as its last statement (nested
    scopes aside): a path may leave the block with an earlier binding's value."""
    if not isinstance(block, nodes.FunctionDef):
        return False
    key = ("returns-early", id(block))
    if key not in ev.facts:
        ev.facts[key] = _has_early_return(block)
    return bool(ev.facts[key])


def _has_early_return(function: nodes.FunctionDef) -> bool:
    last = function.body[-1] if function.body else None
    skip = (nodes.FunctionDef, nodes.ClassDef, nodes.Lambda)
    statements = [s for s in function.body if not isinstance(s, skip)]
    returns = (r for s in statements for r in s.nodes_of_class(nodes.Return, skip_klass=skip))
    return any(r is not last for r in returns)


def _inside(reader: nodes.NodeNG, marked: Marked) -> bool:
    node: nodes.NodeNG | None = reader
    while node is not None:
        if id(node) in marked[1]:
            return True
        node = node.parent
    return False


def _run(
    ev: Evaluator,
    body: Sequence[nodes.NodeNG],
    marked: dict[int, list[nodes.NodeNG]],
    value: Any,
    key: Any,
) -> Any:
    for stmt in body:
        if id(stmt) not in marked:
            continue
        if isinstance(stmt, nodes.If):
            t = truth(_test(ev, stmt, value, key))
            if t is True:
                value = _run(ev, stmt.body, marked, value, key)
            elif t is False:
                value = _run(ev, stmt.orelse, marked, value, key)
            else:
                value = _meet(
                    _run(ev, stmt.body, marked, value, key),
                    _run(ev, stmt.orelse, marked, _when_false(ev, stmt, value, marked), key),
                )
        elif isinstance(stmt, nodes.Try):
            value = _run_try(ev, stmt, marked, value, key)
        elif isinstance(stmt, (nodes.For, nodes.While)):
            value = _run_loop(ev, stmt, marked, value, key)
        else:
            value = plain(ev.binding_value(marked[id(stmt)][-1]))
    return value


# Some falsy value, which one unknown: its truth is False, a comparison with anything
# is each option's (`== ""` unknown, `is None` unknown).
_FALSY = OneOf((False, None, 0, ""))


def _when_false(
    ev: Evaluator,
    stmt: nodes.If,
    value: Any,
    marked: dict[int, list[nodes.NodeNG]],
) -> Any:
    """The name's value on the path where the `if`'s (undecided) test was false: falsy
    where the test would be true were the name truthy, else as it was. "Opt in, then
    switch it off where the hardware cannot": `self.fast = want`, then `if self.fast and
    not ok: self.fast = False` leaves the flag false wherever `ok` is false, whatever
    `want` was (the test then reads `want and True`, and only a falsy `want` skips it)."""
    if value is _UNSET or truth(value) is not UNKNOWN:
        return value
    binding = next(b for bindings in marked.values() for b in bindings)
    return _FALSY if _assuming_set(ev, stmt.test, binding) is True else value


def _assuming_set(ev: Evaluator, node: nodes.NodeNG, binding: nodes.NodeNG) -> Any:
    """The truth of `node` were the name `binding` binds truthy where `node` reads it
    plainly (`fast`, `self.fast`), through `and`, `or` and `not`; any other part as
    evaluated (a part reading it otherwise, `fast is True`, stays as unknown as it is)."""
    if _reads(node, binding):
        return True
    if isinstance(node, nodes.BoolOp):
        return truth(bool_op(node.op, (_assuming_set(ev, v, binding) for v in node.values)))
    if isinstance(node, nodes.UnaryOp) and node.op == "not":
        return kleene_not(_assuming_set(ev, node.operand, binding))
    return truth(ev.eval(node, None))


def _reads(node: nodes.NodeNG, binding: nodes.NodeNG) -> bool:
    if isinstance(binding, nodes.AssignName):
        return isinstance(node, nodes.Name) and node.name == binding.name
    return (
        isinstance(binding, nodes.AssignAttr)
        and isinstance(binding.expr, nodes.Name)
        and isinstance(node, nodes.Attribute)
        and node.attrname == binding.attrname
        and isinstance(node.expr, nodes.Name)
        and node.expr.name == binding.expr.name
    )


def _test(ev: Evaluator, stmt: nodes.If, value: Any, key: Any) -> Any:
    """The `if`'s test, the name read in it being `value` (what the bindings before it
    leave on this path: `if (major, minor) == (10, 7): major = 10` tests the probe's
    value, not a meeting with the 10 it may assign). Kept in the facts for the test's
    own reads (_at_test) while it is evaluated, and no longer."""
    testing = (_TESTING, id(stmt.test), key)
    ev.facts[testing] = value
    try:
        return ev.eval(stmt.test, None)
    finally:
        del ev.facts[testing]


def _at_test(ev: Evaluator, reader: nodes.NodeNG, marked: Marked, key: Any) -> Any | None:
    """The value the run gives a read inside the test of a marked `if` it is evaluating
    (_test); None elsewhere (inside a marked statement: every binding is met)."""
    node: nodes.NodeNG | None = reader
    while node is not None and node is not marked[0]:
        parent = node.parent
        if isinstance(parent, nodes.If) and node is parent.test and id(parent) in marked[1]:
            testing = (_TESTING, id(node), key)
            if testing in ev.facts:
                value = ev.facts[testing]
                return UNKNOWN if value is _UNSET else value
            return None
        node = parent
    return None


_TESTING = "flow-testing"


def _bound_in_body(
    ev: Evaluator, stmt: nodes.Try, marked: dict[int, list[nodes.NodeNG]], key: Any
) -> list[nodes.NodeNG]:
    """The bindings of the name the `try`'s body makes (the last of each statement), found
    once per shape."""
    found_key = ("try-bound", id(stmt), key)
    found = ev.facts.get(found_key)
    if found is None:
        found = ev.facts[found_key] = [
            bindings[-1]
            for statement in stmt.body
            for inner in statement.nodes_of_class((nodes.Assign, nodes.AnnAssign))
            if (bindings := marked.get(id(inner)))
        ]
    return list(found)


def _run_try(
    ev: Evaluator, stmt: nodes.Try, marked: dict[int, list[nodes.NodeNG]], value: Any, key: Any
) -> Any:
    """`try: major, minor = probe()` / `except Exception: major, minor = 0, 0`: the body
    run to its end (then `else`), or a handler run from wherever the body raised, the
    value before it or any binding the body made; a handler that ends by raising leaves
    no path. `finally` runs on what the others leave."""
    after = _run(ev, stmt.orelse, marked, _run(ev, stmt.body, marked, value, key), key)
    raised = value
    for binding in _bound_in_body(ev, stmt, marked, key):
        if not _may_run(ev, binding, stmt, key):
            continue
        raised = _meet(raised, plain(ev.binding_value(binding)))
    for handler in stmt.handlers:
        if handler.body and isinstance(handler.body[-1], nodes.Raise):
            continue
        after = _meet(after, _run(ev, handler.body, marked, raised, key))
    return _run(ev, stmt.finalbody, marked, after, key)


def _may_run(ev: Evaluator, binding: nodes.NodeNG, stmt: nodes.Try, key: Any) -> bool:
    """Whether a binding in the `try`'s body may have run before the body raised: not
    under an `if` of the body whose test this generation decides against it (`if
    cap[0] == 9: use_fa3 = True` never sets the flag on sm120, so a handler there does
    not see it set). The test is read with the name unknown (it may have changed above)."""
    child: nodes.NodeNG = binding
    parent = binding.parent
    while parent is not None and parent is not stmt:
        if isinstance(parent, nodes.If) and child is not parent.test:
            in_body = any(child is s for s in parent.body)
            t = truth(_test(ev, parent, _UNSET, key))
            if (in_body and t is False) or (not in_body and t is True):
                return False
        child, parent = parent, parent.parent
    return True


def _in_loop_block(parent: nodes.NodeNG, node: nodes.NodeNG) -> bool:
    """`node` is a statement of a `for` or `while` loop's body or `else` (not its
    target, iterable or test)."""
    if not isinstance(parent, (nodes.For, nodes.While)):
        return False
    return any(s is node for s in parent.body) or any(s is node for s in parent.orelse)


def _run_loop(
    ev: Evaluator,
    stmt: nodes.For | nodes.While,
    marked: dict[int, list[nodes.NodeNG]],
    value: Any,
    key: Any,
) -> Any:
    """`found = False` / `for d in devices: if cap(d) < 100: found = True; break`: the
    body may run no time (the value before it), once, or again from what a run left
    (twice reaches what a flag its tests set or read can be); the `else` runs after,
    unless a `break` of the loop may have skipped it. A `break` or `continue` before a
    binding of the body's (`if c: x = True; break` then `x = False`) leaves a run
    halfway: unknown, not read so."""
    jumps = [i for i, s in enumerate(stmt.body) if _jumps(s, (nodes.Break, nodes.Continue))]
    if jumps and any(id(s) in marked for s in stmt.body[jumps[0] + 1 :]):
        return UNKNOWN
    for _ in range(2):
        value = _meet(value, _run(ev, stmt.body, marked, value, key))
    after = _run(ev, stmt.orelse, marked, value, key)
    return _meet(value, after) if stmt.orelse and _breaks(stmt) else after


def _breaks(loop: nodes.For | nodes.While) -> bool:
    """A `break` of `loop` itself (not of a loop or function nested in it)."""
    return any(_jumps(s, (nodes.Break,)) for s in loop.body)


def _jumps(statement: nodes.NodeNG, kinds: tuple[type[nodes.NodeNG], ...]) -> bool:
    """`statement` is or holds a jump of `kinds` out of the loop it is in (not of a
    loop or function nested in it)."""
    skip = (nodes.For, nodes.While, nodes.FunctionDef, nodes.ClassDef, nodes.Lambda)
    stack = [statement]
    while stack:
        node = stack.pop()
        if isinstance(node, kinds):
            return True
        if not isinstance(node, skip):
            stack.extend(node.get_children())
    return False


def _meet(a: Any, b: Any) -> Any:
    if a is _UNSET:
        return b
    if b is _UNSET:
        return a
    return either([a, b])
