"""Function bodies: what a body returns on each path, one small handler per statement
kind, in a table. A handler appends the values its statement returns and says whether
control can go on to the next statement."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from astroid import nodes

from gatecheck.loading.trees import own_nodes
from gatecheck.semantics import appended, callers, patterns, replay, resolve
from gatecheck.semantics.diverging import ends_path
from gatecheck.semantics.env import (
    Env,
    bind_target,
    forget_assigned,
    forget_assigned_in,
    loop_items,
    loop_target,
    merge_into,
    narrowed,
)
from gatecheck.semantics.expressions import by_node_class
from gatecheck.semantics.lazy_joins import unknown_anyway
from gatecheck.semantics.logic import either, join_returns
from gatecheck.semantics.mutations import changed_names, grown, holds_container
from gatecheck.semantics.raising import catches, certain_raise, completes
from gatecheck.semantics.values import (
    RAISES,
    UNKNOWN,
    ClassRef,
    EachDevice,
    FunctionRef,
    NoneOr,
    OneOf,
    is_constant,
    truth,
)

if TYPE_CHECKING:
    from gatecheck.semantics.evaluator import Evaluator

# (evaluator, statement, env, returns so far) -> whether control falls through.
Handler = Callable[["Evaluator", Any, Env, list[Any]], bool]


class _UnknownReturn(Exception):
    """A path returned UNKNOWN: what the body returns is unknown whatever its other
    paths return (join_returns), so the rest of it is not run (lazy_joins.py)."""


def run_body(ev: Evaluator, body: Sequence[nodes.NodeNG], env: Env) -> Any:
    try:
        returns, falls_through = exec_block(ev, body, env)
    except _UnknownReturn:
        return UNKNOWN
    if falls_through:
        returns.append(None)
    if not returns:
        return RAISES  # every path raises (calls._call_function: diverging.py)
    return join_returns(returns)


def _appending(ev: Evaluator, stmt: nodes.For, env: Env) -> Any | None:
    """Run `for t in items: name.append(expr)` as the list it leaves (appended.py): the
    list bound in `env`, the loop's target forgotten; None (nothing done) where it is
    not read so."""
    found = appended.loop_append(stmt)
    if found is None or found.name not in env:
        return None
    filled = appended.after_loop(ev, stmt, env[found.name], env)
    if filled is None:
        return None
    env[found.name] = filled
    for target, _ in found.prelude:
        forget_assigned(target, env)  # the last read item's, or as before
    forget_assigned(stmt.target, env)  # the last item, or as before where there is none
    return filled


def exec_block(ev: Evaluator, body: Sequence[nodes.NodeNG], env: Env) -> tuple[list[Any], bool]:
    returns: list[Any] = []
    noted = ev.raising
    for stmt in body:
        if isinstance(stmt, nodes.For) and _appending(ev, stmt, env) is not None:
            continue  # a list filled one item per iteration (appended.py)
        if isinstance(stmt, (nodes.For, nodes.While)):
            _forget_changed(ev, stmt, env)  # an iteration reads what the one before changed
        mark, count = len(noted), len(returns)
        falls = TABLE.get(type(stmt), _skip)(ev, stmt, env, returns)
        if len(noted) > mark:
            # A call that certainly raises, always evaluated by the statement: the path
            # ends there, as at a `raise` (an `if`'s branches, run after its test, return
            # nothing).
            ends = ends_path(stmt, noted[mark:])
            del noted[mark:]
            if ends:
                del returns[count:]
                return returns, False
        _forget_changed(ev, stmt, env, grown(ev, stmt, env) if falls else None)
        if not falls:
            return returns, False
    return returns, True


def _forget_changed(
    ev: Evaluator, stmt: nodes.NodeNG, env: Env, kept: tuple[str, Any] | None = None
) -> None:
    """A local list, dict or set the statement may change in place (`d[k] = v`,
    `d.append(x)`, `fill(d)`) holds what the walk cannot tell from then on; `kept`, one
    the statement only added known items to (mutations.grown), holds them too."""
    # An `if`'s branches were walked statement by statement (what a branch that ran
    # changed is forgotten or kept there): only its test is left. So were a `try`'s
    # blocks, each handler starting from what the body may have left (_partly_changed).
    if isinstance(stmt, nodes.Try):
        return
    changing = changed_names(ev, stmt.test if isinstance(stmt, nodes.If) else stmt)
    for name in changing:
        if holds_container(env.get(name)):
            env[name] = UNKNOWN
    if kept is not None:
        env[kept[0]] = kept[1]


def _skip(ev: Evaluator, stmt: nodes.NodeNG, env: Env, returns: list[Any]) -> bool:
    return True  # expression statements, pass, global, ...: nothing the answer needs


def _return(ev: Evaluator, stmt: nodes.Return, env: Env, returns: list[Any]) -> bool:
    held: Any = env.get(stmt.value.name) if isinstance(stmt.value, nodes.Name) else None
    value: Any
    if isinstance(held, NoneOr):
        # A local that may be None, returned: the result may be None or its value, as
        # when one path returns None and another the value (`inst = None`, then an
        # object made under an `if`, then `return inst`).
        value = held
    else:
        mark = len(ev.raising)
        value = None if stmt.value is None else ev.eval(stmt.value, env)
        if len(ev.raising) > mark and ends_path(stmt, ev.raising[mark:]):
            return False  # it raises: no value (exec_block ends the path)
    if value is UNKNOWN and unknown_anyway(ev):
        raise _UnknownReturn
    returns.append(value)
    return False


def _raise(ev: Evaluator, stmt: nodes.Raise, env: Env, returns: list[Any]) -> bool:
    return False


def _assign(ev: Evaluator, stmt: nodes.Assign, env: Env, returns: list[Any]) -> bool:
    # A local may hold NoneOr (`cap = probe()`), and so may a tuple unpacked from it.
    one_target = len(stmt.targets) == 1 and isinstance(
        stmt.targets[0], (nodes.AssignName, nodes.Tuple, nodes.List)
    )
    if one_target and isinstance(stmt.value, nodes.Call):
        value = ev.call_node(stmt.value, env, optional=True)
    else:
        value = ev.eval(stmt.value, env)
    for target in stmt.targets:
        bind_target(target, value, env)
    return True


def _ann_assign(ev: Evaluator, stmt: nodes.AnnAssign, env: Env, returns: list[Any]) -> bool:
    if stmt.value is not None:
        bind_target(stmt.target, ev.eval(stmt.value, env), env)
    return True


def _aug_assign(ev: Evaluator, stmt: nodes.AugAssign, env: Env, returns: list[Any]) -> bool:
    bind_target(stmt.target, UNKNOWN, env)
    return True


def _if(ev: Evaluator, stmt: nodes.If, env: Env, returns: list[Any]) -> bool:
    branches = narrowed(stmt.test, env)
    # A lone None test of a NoneOr local is unknown; `x is not None and x < 8` may be
    # known, and its branch then runs where x is its value.
    decided = branches is None or isinstance(stmt.test, nodes.BoolOp)
    t = truth(ev.eval(stmt.test, env)) if decided else UNKNOWN
    if t is not UNKNOWN:
        if branches is not None:
            env.update(branches[0] if t else branches[1])
        r, f = exec_block(ev, stmt.body if t else stmt.orelse, env)
        returns += r
        return f
    then_env, else_env = branches or (dict(env), dict(env))
    r1, f1 = exec_block(ev, stmt.body, then_env)
    r2, f2 = exec_block(ev, stmt.orelse, else_env)
    returns += r1 + r2
    if not (f1 or f2):
        return False
    merge_into(env, [e for e, f in ((then_env, f1), (else_env, f2)) if f])
    return True


def _assert(ev: Evaluator, stmt: nodes.Assert, env: Env, returns: list[Any]) -> bool:
    return truth(ev.eval(stmt.test, env)) is not False


def _try(ev: Evaluator, stmt: nodes.Try, env: Env, returns: list[Any]) -> bool:
    try_env = dict(env)
    exits: list[Env] = []
    # What the body certainly does on this generation (raising.py): raise at its first
    # statement (only the handlers that may catch it run), or complete (none does).
    raised = certain_raise(ev, stmt.body[0], try_env) if stmt.body else None
    handlers = stmt.handlers
    # The constants each name the body binds holds at its statements' ends (a handler
    # sees one of them, or the value before: where the body raised).
    seen: dict[str, list[Any]] | None = None
    if raised is not None:
        handlers = _catching(ev, handlers, raised)
    else:
        seen = {} if handlers else None
        r, falls = _walked(ev, stmt.body, try_env, seen)
        returns += r
        if falls:
            r, f = exec_block(ev, stmt.orelse, try_env)
            returns += r
            if f:
                exits.append(try_env)
        if handlers and completes(ev, stmt.body, env):
            handlers = []
    # What the body may have changed in place before it raised (a handler's view).
    partly: Env = {}
    if handlers:
        walked = try_env if raised is None else None
        body = stmt.body if walked is not None else stmt.body[:1]
        partly = _partly_changed(ev, body, env, walked)
    for handler in handlers:
        handler_env = dict(env)
        forget_assigned_in(stmt.body, handler_env)
        if seen is not None:
            handler_env.update(_flags_left(env, seen))
        handler_env.update(partly)
        if handler.name is not None:
            bind_target(handler.name, UNKNOWN, handler_env)
        r, f = exec_block(ev, handler.body, handler_env)
        returns += r
        if f:
            exits.append(handler_env)
    if exits:
        merge_into(env, exits)
    r, f = exec_block(ev, stmt.finalbody, env)
    returns += r
    return bool(exits) and f


def _walked(
    ev: Evaluator, body: Sequence[nodes.NodeNG], env: Env, seen: dict[str, list[Any]] | None
) -> tuple[list[Any], bool]:
    """exec_block(body), one statement at a time: with `seen`, the value each name a
    statement binds holds after it, collected there."""
    if seen is None:
        return exec_block(ev, body, env)
    returns: list[Any] = []
    for statement in body:
        r, falls = exec_block(ev, [statement], env)
        returns += r
        for node in statement.nodes_of_class(nodes.AssignName):
            seen.setdefault(str(node.name), []).append(env.get(node.name, UNKNOWN))
        if not falls:
            return returns, False
    return returns, True


def _flags_left(before: Env, seen: dict[str, list[Any]]) -> Env:
    """What a handler sees of a name the body binds, where it held a constant before the
    `try` and at the end of each statement of the body that binds it (`use = False`,
    then `try: if cap[0] >= 9: import kernel; use = True` / `except ImportError: pass`):
    one of those constants, the body having raised before, between or after them. Any
    other name stays unknown (forget_assigned_in)."""
    left: Env = {}
    for name, values in seen.items():
        if name not in before:
            continue
        options = [before[name], *values]
        if all(is_constant(v) for v in options):
            left[name] = either(options)
    return left


def _partly_changed(
    ev: Evaluator, body: Sequence[nodes.NodeNG], before: Env, after: Env | None
) -> Env:
    """The local containers `body` may change in place, as a handler sees them: the body
    may have raised part way. A list empty before that the body fills with an item per
    device (appended.py; `after`: the env the body leaves, when it was walked) holds
    none or some of the devices' items, each the device's: `[]` or the per-device
    values. Any other: unknown."""
    changed: set[str] = set()
    for statement in body:
        changed |= changed_names(ev, statement)
    found: Env = {}
    for name in sorted(changed):
        held = before.get(name)
        if not holds_container(held):
            continue
        left = None if after is None else after.get(name)
        if type(held) is list and not held and isinstance(left, EachDevice):
            found[name] = either([held, left])
        else:
            found[name] = UNKNOWN
    return found


def _catching(
    ev: Evaluator, handlers: list[nodes.ExceptHandler], raised: type[BaseException]
) -> list[nodes.ExceptHandler]:
    """The handlers that may run for `raised`: the first that certainly catches it, and
    those before it whose type is not known (they may catch it first)."""
    may: list[nodes.ExceptHandler] = []
    for handler in handlers:
        caught = catches(ev, handler, raised)
        if caught is None:
            may.append(handler)
        elif caught:
            may.append(handler)
            break
    return may


def _loop(ev: Evaluator, stmt: nodes.For | nodes.While, env: Env, returns: list[Any]) -> bool:
    iterated = ev.eval(stmt.iter, env) if isinstance(stmt, nodes.For) else UNKNOWN
    items = loop_items(iterated)
    if isinstance(stmt, nodes.For) and items is not None and not _jumps(stmt.body):
        # Known items, no break or continue: the body once per item, in order.
        for item in items:
            bind_target(stmt.target, item, env)
            r, falls = exec_block(ev, stmt.body, env)
            returns += r
            if not falls:
                return False
        r, falls = exec_block(ev, stmt.orelse, env)
        returns += r
        return falls
    item = loop_target(iterated)
    alike = _iterations_alike(ev, stmt, env, returns, item)
    if alike is not None:
        return alike
    # Any number of iterations: what the body assigns is unknown after it.
    forget_assigned(stmt, env)
    body_env = dict(env)
    if isinstance(stmt, nodes.For):
        bind_target(stmt.target, item, body_env)
    r, _ = exec_block(ev, stmt.body, body_env)
    returns += r
    r, _ = exec_block(ev, stmt.orelse, dict(env))
    returns += r
    return True


def _iterations_alike(
    ev: Evaluator,
    stmt: nodes.For | nodes.While,
    env: Env,
    returns: list[Any],
    item: Any,
) -> bool | None:
    """A loop whose iterations all start alike: the body run once (the target `item`:
    env.loop_target) leaves every name it assigns as it found it, on each path that goes
    on to a next iteration. Then every iteration does what the first did, and the loop
    ends where it started (no iteration, or none that breaks; the `else` then runs) or
    at one of the first iteration's `break`s: `found = False; for i in range(n): if
    cap(i) < 100: found = True; break` leaves found True where the device is older,
    False elsewhere. Whether control goes on after the loop; None (nothing done) when an
    iteration changes what the next one starts from."""
    start = dict(env)
    first = dict(env)
    if isinstance(stmt, nodes.For):
        bind_target(stmt.target, item, first)
    ev.loop_exits.append([])
    try:
        body_returns, falls = exec_block(ev, stmt.body, first)
    finally:
        exits = ev.loop_exits.pop()
    # The item is bound anew by each iteration: not what it starts from.
    bound = (
        {n.name for n in stmt.target.nodes_of_class(nodes.AssignName)}
        if isinstance(stmt, nodes.For)
        else set()
    )
    assigned = {n.name for n in own_nodes(stmt.body, nodes.AssignName)} - bound
    again = [first] if falls else []
    again += [e for kind, e in exits if kind == "continue"]
    if any(not _alike(e, start, assigned) for e in again):
        return None
    returns += body_returns
    done = dict(start)
    else_returns, else_falls = exec_block(ev, stmt.orelse, done)
    returns += else_returns
    ends = ([done] if else_falls else []) + [e for kind, e in exits if kind == "break"]
    if not ends:
        return False  # every path returns or raises
    if isinstance(stmt, nodes.For):
        for end in ends:
            bind_target(stmt.target, UNKNOWN, end)
    merge_into(env, ends)
    return True


def _alike(env: Env, start: Env, names: set[str]) -> bool:
    missing = object()
    return all(replay.same(env.get(name, missing), start.get(name, missing)) for name in names)


def _break(ev: Evaluator, stmt: nodes.Break, env: Env, returns: list[Any]) -> bool:
    if ev.loop_exits:
        ev.loop_exits[-1].append(("break", dict(env)))
    return False


def _continue(ev: Evaluator, stmt: nodes.Continue, env: Env, returns: list[Any]) -> bool:
    if ev.loop_exits:
        ev.loop_exits[-1].append(("continue", dict(env)))
    return False


def _jumps(body: Sequence[nodes.NodeNG]) -> bool:
    """Whether a `break` or `continue` of this loop is in `body` (statements run them as
    nothing: the loop is then read as any number of iterations)."""
    pending: list[nodes.NodeNG] = list(body)
    while pending:
        node = pending.pop()
        if isinstance(node, (nodes.Break, nodes.Continue)):
            return True
        if not isinstance(node, (nodes.For, nodes.While, nodes.FunctionDef, nodes.ClassDef)):
            pending.extend(node.get_children())
        elif isinstance(node, (nodes.For, nodes.While)):
            pending.extend(node.orelse)  # a nested loop's else belongs to this one
    return False


def _with(ev: Evaluator, stmt: nodes.With, env: Env, returns: list[Any]) -> bool:
    for _ctx, target in stmt.items:
        if target is not None:
            bind_target(target, UNKNOWN, env)
    r, f = exec_block(ev, stmt.body, env)
    returns += r
    return f


def _def(ev: Evaluator, stmt: nodes.FunctionDef, env: Env, returns: list[Any]) -> bool:
    env[stmt.name] = FunctionRef(stmt)
    return True


def _class(ev: Evaluator, stmt: nodes.ClassDef, env: Env, returns: list[Any]) -> bool:
    env[stmt.name] = ClassRef(stmt)
    return True


def _import(
    ev: Evaluator, stmt: nodes.Import | nodes.ImportFrom, env: Env, returns: list[Any]
) -> bool:
    for name, alias in stmt.names:
        local = alias or str(name).split(".")[0]
        if local != "*":
            env[local] = resolve.binding_of(ev, stmt, local)
    return True


def _match(ev: Evaluator, stmt: nodes.Match, env: Env, returns: list[Any]) -> bool:
    """Each case that may be taken (patterns.py), up to one that surely is: its body's
    returns; the statement goes on unless a case surely taken does not. The names the
    statement binds are unknown after it."""
    entry = dict(env)
    forget_assigned(stmt, env)
    for case in stmt.cases:
        taken = patterns.case_truth(ev, case, entry)
        if taken is False:
            continue
        r, falls_through = exec_block(ev, case.body, dict(env))
        returns += r
        if taken is True:
            return bool(falls_through)
    return True


def _global(ev: Evaluator, stmt: nodes.Global, env: Env, returns: list[Any]) -> bool:
    """`global _S` before `if _S is None: _S = probe()` (a result cached on first use):
    the name holds, on entry, one of the module's bindings of it, None among them. It
    becomes a local of the body, so that the None test narrows it (env.narrowed) and
    the paths meet on the probe's value. A getter that makes an object and keeps it
    (_filled_on_first_call) is read as its first call, the name None on entry. Any
    other global is read by resolution."""
    module = stmt.root()
    for name in stmt.names:
        if name in env or not isinstance(module, nodes.Module):
            continue
        value = resolve.module_attribute(ev, str(module.name), name)
        if isinstance(value, OneOf) and any(option is None for option in value.options):
            env[name] = value
        elif _first_call_getter(ev, stmt, module, name):
            env[name] = None
    return True


def _first_call_getter(ev: Evaluator, stmt: nodes.Global, module: nodes.Module, name: str) -> bool:
    """_filled_on_first_call, found once per statement and name (the code's shape and the
    project's calls: the same for every generation and every run of the body)."""
    key = ("first-call-getter", id(stmt), name)
    found = ev.facts.get(key)
    if found is None:
        found = ev.facts[key] = (stmt, _filled_on_first_call(ev, stmt, module, name))
    return bool(found[1])


def _filled_on_first_call(
    ev: Evaluator, stmt: nodes.Global, module: nodes.Module, name: str
) -> bool:
    """Whether `name` is None at module level and bound otherwise only by the function
    declaring it global here, which takes no argument (and by functions the project
    never calls): a getter that makes a value on its first call and keeps it, every
    later call returning it (DeepSpeed's `get_accelerator()`: `if ds_accelerator is not
    None: return ds_accelerator`, then an accelerator object made and stored, its
    `is_triton_supported()` testing the capability). What the first call returns is
    then what every call returns. Not when the kept value is an object's (the OneOf of
    constants above reads those); not when a setter the project calls may store
    another value."""
    function = stmt.scope()
    if not isinstance(function, nodes.FunctionDef) or _takes_arguments(function.args):
        return False
    filled = False
    for binding in module.locals.get(name, []):
        scope = binding.scope()
        if scope is module:
            if not _binds_none(binding):
                return False
        elif scope is function:
            filled = True
        elif not (isinstance(scope, nodes.FunctionDef) and callers.never_called(ev, scope)):
            return False
    return filled


def _takes_arguments(args: nodes.Arguments) -> bool:
    return bool(args.posonlyargs or args.args or args.kwonlyargs or args.vararg or args.kwarg)


def _binds_none(binding: nodes.NodeNG) -> bool:
    """`NAME = None` or `NAME: T = None` at module level."""
    statement = binding.statement()
    plain = isinstance(statement, nodes.Assign) and statement.targets == [binding]
    annotated = isinstance(statement, nodes.AnnAssign) and statement.target is binding
    if not (plain or annotated):
        return False
    value = statement.value
    return isinstance(value, nodes.Const) and value.value is None


HANDLERS: dict[type, Handler] = {
    nodes.Global: _global,
    nodes.Break: _break,
    nodes.Continue: _continue,
    nodes.Return: _return,
    nodes.Raise: _raise,
    nodes.Assign: _assign,
    nodes.AnnAssign: _ann_assign,
    nodes.AugAssign: _aug_assign,
    nodes.If: _if,
    nodes.Assert: _assert,
    nodes.Try: _try,
    nodes.For: _loop,
    nodes.While: _loop,
    nodes.With: _with,
    nodes.FunctionDef: _def,
    nodes.ClassDef: _class,
    nodes.Import: _import,
    nodes.ImportFrom: _import,
    nodes.Match: _match,
}
TABLE: dict[type, Handler] = by_node_class(HANDLERS, _skip)


def can_complete(ev: Evaluator, func: FunctionRef) -> bool:
    """Whether some path through the body returns instead of raising (a loader that
    raises unless the device is right only completes on the right generations)."""
    if not isinstance(func.node, nodes.FunctionDef):
        return True
    try:
        env = ev.bind_arguments(func, [], {})
        returns, falls_through = exec_block(ev, func.node.body, env)
    except (RecursionError, _UnknownReturn):  # a path returns
        return True
    return bool(returns) or falls_through
