"""Calls: argument binding, reading a function's body (memoized per arguments),
functools.partial and caching decorators, a call handed to a worker and awaited
(`pool.submit(f, x).result()`), device intrinsics, and the naming conventions for
callees without a body."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from astroid import nodes

from gatecheck.loading.resolve import is_abstract_body
from gatecheck.loading.trees import own_nodes
from gatecheck.semantics import (
    bounds,
    builtin_calls,
    classes,
    conventions,
    dataclass_init,
    environment,
    replay,
    text_patterns,
)
from gatecheck.semantics.bounds import safe
from gatecheck.semantics.expressions import dereferenced, equal_to_known, filled_item
from gatecheck.semantics.idioms._model import NOT_MINE
from gatecheck.semantics.lazy_joins import until_unknown
from gatecheck.semantics.logic import either, join_optional
from gatecheck.semantics.reads import NOTHING, enter, leave
from gatecheck.semantics.values import (
    RAISES,
    UNKNOWN,
    Builtin,
    Capability,
    ClassRef,
    ExternalRef,
    FunctionRef,
    Identity,
    InstanceRef,
    ModuleRef,
    NoneOr,
    OneOf,
    PartialRef,
    RecordCopy,
    SuperRef,
    constant_options,
    contains_unknown,
    is_constant,
    plain,
)

if TYPE_CHECKING:
    from gatecheck.semantics.env import Env
    from gatecheck.semantics.evaluator import Evaluator

_CACHE_DECORATORS = {"lru_cache", "cache", "cached", "wraps", "cached_property"}
_FUNCTOOLS_PARTIAL = {"functools.partial", "partial"}
# An executor's `submit(fn, *args, **kwargs)` and its future's `result()`.
_SUBMIT, _RESULT = "submit", "result"


def _super(ev: Evaluator, node: nodes.Call, env: Env | None) -> Any:
    """`super()` in a method: its class and its first parameter (the instance, or the
    class in a classmethod: one of a few classes, values.OneOf, is each one's)."""
    frame = node.frame()
    if not (isinstance(frame, nodes.FunctionDef) and isinstance(frame.parent, nodes.ClassDef)):
        return UNKNOWN
    params = list(frame.args.posonlyargs or []) + list(frame.args.args or [])
    if not params:
        return UNKNOWN
    first = params[0]
    held = env is not None and first.name in env
    receiver = env[first.name] if env is not None and held else ev.binding_value(first)
    options = receiver.options if isinstance(receiver, OneOf) else (receiver,)
    refs = tuple(SuperRef(frame.parent, option) for option in options)
    return refs[0] if len(refs) == 1 else OneOf(refs)


def call_node(ev: Evaluator, node: nodes.Call, env: Env | None, optional: bool = False) -> Any:
    if isinstance(node.func, nodes.Attribute) and node.func.attrname == _RESULT:
        deferred = _deferred(ev, node.func.expr, env, optional)
        if deferred is not NOT_MINE:
            return deferred
    func = ev.eval(node.func, env)
    if func is UNKNOWN:
        looked = _filled_get(ev, node, env)
        if looked is not None:
            return looked
        # No body to call: the name alone decides (the arguments cannot).
        return _fallback(ev, node.func, func)
    keywords = node.keywords or ()
    if isinstance(func, Builtin) and func.name == "super" and not node.args and not keywords:
        return _super(ev, node, env)
    spread = any(isinstance(a, nodes.Starred) for a in node.args) or any(
        k.arg is None for k in keywords
    )
    if spread:
        unpacked = _unpacked(ev, node, env)
        if unpacked is None:
            return _fallback(ev, node.func, func)
        return call(ev, func, unpacked[0], unpacked[1], syntax=node.func, optional=optional)
    if isinstance(func, ExternalRef) and not _reads_arguments(ev, func):
        # An intrinsic or a convention: decided by the dotted name alone.
        return _call_external(ev, func, (), {})
    if (
        isinstance(func, Builtin)
        and func.name in ("isinstance", "hasattr")
        and len(node.args) == 2
        and not keywords
    ):
        # Nothing is an instance of, or has an attribute on, an unknown value: the
        # second argument (a class to resolve, perhaps a module to build) cannot matter.
        subject = ev.eval(node.args[0], env)
        if subject is UNKNOWN:
            return UNKNOWN
        return call(ev, func, [subject, ev.eval(node.args[1], env)], {}, node.func)
    if isinstance(func, Builtin) and func.name == "next" and not _made_in_place(node):
        # `it = iter(xs); next(it); next(it)`: an iterator held in a name may have been
        # advanced (values are never changed in place): only `next(iter(xs))` is read.
        return UNKNOWN
    if isinstance(func, Builtin) and func.name in _RAISE_ON_NONE and not keywords:
        # `iter(majors)` of a helper's result that is None where the query failed: the
        # call raises there, so the argument is its value (expressions.dereferenced).
        args = [dereferenced(ev, arg, env) for arg in node.args]
        return call(ev, func, args, {}, syntax=node.func, optional=optional)
    local = isinstance(func, FunctionRef) and env is not None
    args = [_argument(ev, arg, env, local) for arg in node.args]
    kwargs = {str(k.arg): _argument(ev, k.value, env, local) for k in keywords}
    return call(ev, func, args, kwargs, syntax=node.func, optional=optional)


# Builtins that raise when an argument is None (it has no length, no items).
_RAISE_ON_NONE = frozenset(
    {"iter", "next", "len", "sorted", "min", "max", "sum", "any", "all", "tuple", "list"}
    | {"set", "frozenset", "enumerate", "reversed", "zip"}
)


def _deferred(ev: Evaluator, future: nodes.NodeNG, env: Env | None, optional: bool) -> Any:
    """`pool.submit(f, *args, **kw).result()`: a call handed to a worker (a thread or
    process pool of concurrent.futures, or an executor that copies its `submit`) and
    awaited is the call, `f(*args, **kw)`: the worker runs the same function on the same
    device (vLLM's device-properties helper asks a one-process pool when CUDA is not yet
    initialised). NOT_MINE for any other shape, or where `submit` is a method of the
    project's own (its body is read as any call's)."""
    if not (
        isinstance(future, nodes.Call)
        and isinstance(future.func, nodes.Attribute)
        and future.func.attrname == _SUBMIT
        and future.args
        and not any(isinstance(a, nodes.Starred) for a in future.args)
        and not any(k.arg is None for k in future.keywords or ())
    ):
        return NOT_MINE
    submit = ev.eval(future.func, env)
    if submit is not UNKNOWN and not isinstance(submit, ExternalRef):
        return NOT_MINE
    task = ev.eval(future.args[0], env)
    if not isinstance(task, (FunctionRef, PartialRef, OneOf, ExternalRef)):
        return NOT_MINE
    local = env is not None
    args = [_argument(ev, arg, env, local) for arg in future.args[1:]]
    kwargs = {str(k.arg): _argument(ev, k.value, env, local) for k in future.keywords or ()}
    return call(ev, task, args, kwargs, syntax=future.args[0], optional=optional)


def _filled_get(ev: Evaluator, node: nodes.Call, env: Env | None) -> Any | None:
    """`_CACHE.get(device)` of a module's memo table (expressions.filled_item): None (or
    the default) where nothing is stored yet, else one of the values stored."""
    callee = node.func
    if not (
        isinstance(callee, nodes.Attribute)
        and callee.attrname == "get"
        and 1 <= len(node.args) <= 2
        and not node.keywords
    ):
        return None
    items = filled_item(ev, callee.expr, env)
    if items is None:
        return None
    if len(node.args) == 1:
        return join_optional(None, either(items))
    return either([*items, ev.eval(node.args[1], env)])


def _made_in_place(node: nodes.Call) -> bool:
    """`next(iter(...))`: the iterator is made in the call, so next() gives its first."""
    return bool(node.args) and isinstance(node.args[0], nodes.Call)


def _unpacked(
    ev: Evaluator, node: nodes.Call, env: Env | None
) -> tuple[list[Any], dict[str, Any]] | None:
    """The arguments of a call that unpacks some (`f(*args)`, `f(**TABLE[key])`), where
    each unpacked value is a known tuple or list (its items may be unknown) or a known
    dict with string keys (Hugging Face's `check(**COMPATIBILITY[version])`); None when
    one is not, or a keyword is given twice (the call raises)."""
    args: list[Any] = []
    for arg in node.args:
        if not isinstance(arg, nodes.Starred):
            args.append(ev.eval(arg, env))
            continue
        items = ev.eval(arg.value, env)
        # The capability unpacks as the tuple it is (`DeviceCapability(*cap)`); a set's
        # items (SetItems) do not: how many there are is not known, nor their order.
        if type(items) not in (tuple, list, Capability):
            return None
        args.extend(items)
    kwargs: dict[str, Any] = {}
    for keyword in node.keywords or ():
        if keyword.arg is not None:
            given = {str(keyword.arg): ev.eval(keyword.value, env)}
        else:
            given = ev.eval(keyword.value, env)
            if type(given) is not dict or not all(type(k) is str for k in given):
                return None
        if any(k in kwargs for k in given):
            return None
        kwargs.update(given)
    return args, kwargs


def _argument(ev: Evaluator, arg: nodes.NodeNG, env: Env | None, local: bool) -> Any:
    """An argument's value. `local` (a project function called from a body): a local
    that may be None (NoneOr) is passed as it is, so that the callee's parameter is
    narrowed by its None or truth test as the caller's local would be (`majors =
    probe(); pick(majors)` with `if not majors: return []` in pick)."""
    if (
        local
        and env is not None
        and isinstance(arg, nodes.Name)
        and arg.name not in ev.flag_values
        and isinstance(env.get(arg.name), NoneOr)
    ):
        return env[arg.name]
    return ev.eval(arg, env)


def _fallback(ev: Evaluator, func_node: nodes.NodeNG, func: Any) -> Any:
    """No body to read: a naming convention or the vocabulary, marked assumed."""
    name = _syntactic_name(func_node)
    if isinstance(func, ExternalRef):
        name = func.dotted
    if name is None:
        return UNKNOWN
    return conventions.by_convention(ev, name)


def call(
    ev: Evaluator,
    func: Any,
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
    syntax: nodes.NodeNG | None = None,
    optional: bool = False,
    certain: bool = True,
) -> Any:
    """`optional`: the caller binds the result to a local variable, which may hold
    NoneOr (see values.NoneOr); everyone else gets plain values. `certain`: `func` is
    the function the call runs, not one option of several."""
    if isinstance(func, FunctionRef):
        spread = _each_instance(args, kwargs)
        if spread is not None:
            # One of a few objects passed (a factory's returns, `PlatformInfo.detect()`):
            # the body read for each, so that its fields are read together.
            results = (call(ev, func, a, k, syntax, optional, False) for a, k in spread)
            return either(until_unknown(ev, results))
        result = _call_function(ev, func, list(args), dict(kwargs))
        if result is RAISES:
            # No value; the call node noted where this is the function that runs
            # (not one of several it may be), for the statement or condition holding
            # it (diverging.py).
            if certain and syntax is not None and isinstance(syntax.parent, nodes.Call):
                ev.raising.append(syntax.parent)
            return UNKNOWN
        return result if optional else plain(result)
    if isinstance(func, OneOf):
        options = (call(ev, f, args, kwargs, syntax, optional, False) for f in func.options)
        return either(until_unknown(ev, options))
    if isinstance(func, PartialRef):
        merged = dict(func.kwargs)
        merged.update(kwargs)
        return call(ev, func.func, [*func.args, *args], merged, syntax, optional, certain)
    if isinstance(func, ClassRef):
        made = syntax.parent if syntax is not None else None
        bare = isinstance(made, nodes.Call) and not made.args and not made.keywords
        if not kwargs:
            member = classes.enum_call(ev, func.node, args)
            if member is classes.NO_MEMBER:
                if certain and isinstance(made, nodes.Call):
                    ev.raising.append(made)  # a ValueError: no member has the value
                return UNKNOWN
            if member is not classes.NOT_AN_ENUM_CALL:
                return member
        record = dataclass_init.constructed(ev, func.node, args, kwargs)
        if record is not None:
            return record
        return classes.instantiate(func.node, args, kwargs, defaults_hold=bare)
    if isinstance(func, RecordCopy):
        return classes.replaced(func, args, kwargs)
    if isinstance(func, Identity):
        return args[0] if args else UNKNOWN
    if isinstance(func, ExternalRef):
        return _call_external(ev, func, args, kwargs)
    if isinstance(func, Builtin):
        return builtin_calls.call_builtin(ev, func.name, args, kwargs)
    if callable(func) and not isinstance(func, type):
        # A pure method of a known value (str.replace, dict.get): its result is bounded.
        if not kwargs and (each := _each_option(args)) is not None:
            # One of a few constants (`TABLE.get(arch)`, `arch` the device's name or a
            # fallback): each option's answer, one of them.
            return either([_pure_call(ev, func, option, {}) for option in each])
        if contains_unknown(list(args)) or contains_unknown(list(kwargs.values())):
            return _lookup_of_unknown_key(ev, func, args, kwargs)
        return _pure_call(ev, func, args, kwargs)
    if syntax is not None:
        return _fallback(ev, syntax, func)
    return UNKNOWN


def _pure_call(ev: Evaluator, func: Any, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
    result = safe(lambda: func(*args, **kwargs))
    if bounds.oversized(result):
        ev.reads.bounds.add(bounds.CONSTANT_TOO_LARGE)
        return UNKNOWN
    return result


# Argument lists a call through one-of-a-few constants is evaluated with, at most.
_MAX_EACH = 16
# ... and a project function's call through one of a few objects of the project.
_MAX_EACH_INSTANCE = 4


def _each_instance(
    args: Sequence[Any], kwargs: Mapping[str, Any]
) -> list[tuple[list[Any], dict[str, Any]]] | None:
    """The argument lists a call stands for where an argument is one of a few instances
    of the project's classes (each option of each such OneOf, the other arguments as they
    are), or None: no such argument, or more than _MAX_EACH_INSTANCE lists. A body read
    with the OneOf itself answers each field read apart, every combination of the
    options' fields: `(p.major, p.minor)` of `cls(major=...)` or `cls()` mixes them."""
    every = [*args, *kwargs.values()]
    if not any(_instances(a) for a in every):
        return None
    lists: list[list[Any]] = [[]]
    for argument in every:
        options = argument.options if _instances(argument) else (argument,)
        lists = [[*head, o] for head in lists for o in options]
        if len(lists) > _MAX_EACH_INSTANCE:
            return None
    names = list(kwargs)
    count = len(args)
    return [(each[:count], dict(zip(names, each[count:], strict=True))) for each in lists]


def _instances(value: Any) -> bool:
    return isinstance(value, OneOf) and all(isinstance(o, InstanceRef) for o in value.options)


def _each_option(args: Sequence[Any]) -> list[tuple[Any, ...]] | None:
    """The argument lists a call with one of a few constants among its arguments stands
    for (each option of each OneOf, every other argument a constant), or None: no such
    argument, anything unknown, or more than _MAX_EACH lists."""
    if not any(isinstance(a, OneOf) for a in args):
        return None
    lists: list[tuple[Any, ...]] = [()]
    for argument in args:
        options = constant_options(argument) if isinstance(argument, OneOf) else (argument,)
        if options is None or not all(is_constant(o) for o in options):
            return None
        lists = [(*head, o) for head in lists for o in options]
        if len(lists) > _MAX_EACH:
            return None
    return lists


def _lookup_of_unknown_key(
    ev: Evaluator, func: Any, args: Sequence[Any], kwargs: Mapping[str, Any]
) -> Any:
    """`table.get(key, default)` of a known table whose key is unknown (`world_size`): one of
    its values or the default, when those are constants (values.OneOf), so a generation
    missing from the outer table (`_MAX_SIZES.get(sm, {}).get(world_size, 0)` is 0 on
    sm120 whatever the world size) is told apart from one that has entries. A key known
    in part (`(cap, world_size, nodes)`, vLLM's per-GPU all-reduce sizes) can only find
    the entries whose keys agree with its known parts: on a generation no key names,
    the default."""
    table = getattr(func, "__self__", None)
    if getattr(func, "__name__", "") != "get" or type(table) is not dict or kwargs:
        return UNKNOWN
    if len(args) not in (1, 2) or (len(args) == 2 and contains_unknown(args[1])):
        return UNKNOWN
    if not table and len(args) == 1:
        # `self._cache = {}` filled at run time, read `.get(key)`: the dict the
        # evaluator holds is the empty one it started as, not what the key finds.
        return UNKNOWN
    default = args[1] if len(args) == 2 else None
    entries = list(table.items())
    if isinstance(args[0], tuple) and all(is_constant(k) for k, _ in entries):
        matches = [(equal_to_known(ev, args[0], k), v) for k, v in entries]
        found = [v for m, v in matches if m is True]
        if found:
            return found[0]  # keys are distinct: one entry is the key
        kept = zip(entries, matches, strict=True)
        entries = [entry for entry, (match, _) in kept if match is not False]
        if not entries:
            return default
    options = [*(v for _, v in entries), default]
    if not all(is_constant(o) for o in options):
        return UNKNOWN
    return either(options)


def _call_external(
    ev: Evaluator, func: ExternalRef, args: Sequence[Any], kwargs: Mapping[str, Any]
) -> Any:
    value = environment.read(ev, func.dotted, args, kwargs)
    if value is not NOT_MINE:
        return value
    value = text_patterns.call(func.dotted, args, kwargs)
    if value is not NOT_MINE:
        return value
    intrinsic = ev.idioms.call(func.dotted, ev.generation, args)
    if ev.trace is not None:
        ev.trace.append((replay.INTRINSIC_CALL, func.dotted, args, intrinsic))
    if intrinsic is not NOT_MINE:
        if ev.idioms.reads_device(func.dotted):
            ev.reads.device = True
        if assumption := ev.idioms.assumption(func.dotted):
            ev.reads.assumed.add(assumption)
        return intrinsic
    if _is_partial(func):
        if not args:
            return UNKNOWN
        return PartialRef(args[0], tuple(args[1:]), tuple(kwargs.items()))
    if _is_cache_decorator(func):
        if args and _is_callable_value(args[0]):
            return args[0]
        return Identity()
    return conventions.by_convention(ev, func.dotted)


def _call_function(
    ev: Evaluator, func: FunctionRef, args: list[Any], kwargs: dict[str, Any]
) -> Any:
    node = func.node
    if isinstance(node, nodes.FunctionDef) and is_abstract_body(node):
        return conventions.by_convention(ev, str(node.name)) if node.name else UNKNOWN
    if not _runs_body(ev, node):
        return UNKNOWN  # a generator or a coroutine: an object, whatever the body does
    key = _call_key(func, args, kwargs)
    # A call in progress with the same arguments (the function itself, where they cannot
    # be told apart) is a cycle and reads as unknown, whatever the memo holds: an entry
    # made elsewhere is not what evaluating it here gives (reads.py). A recursion on
    # other arguments goes on, to the depth bound at most.
    guard = id(node) if key is None else key
    if guard in ev.active:
        ev.reads.cut_at(guard, ev.active[guard])
        return UNKNOWN
    memo = None if key is None else ev.call_memo.get(key)
    trace = ev.trace
    if memo is not None:
        value, recorded = memo
        if (
            recorded is NOTHING or recorded.holds(ev.active, ev.depth) or ev.epoch.spent()
        ):  # see reads.py
            if trace is not None:
                trace.append((replay.CALL, key, memo))
            if recorded is not NOTHING:  # absorbing it changes nothing
                ev.reads.absorb(recorded)
            return value
        if trace is not None:
            trace.append((replay.CALL, key, None))  # not the answer here: a miss
    if ev.depth >= bounds.MAX_CALL_DEPTH:
        ev.reads.bounds.add(bounds.CALL_DEPTH)
        ev.reads.deep = True
        return UNKNOWN
    same = ev.nesting.setdefault(id(node), [])
    if len(same) >= bounds.MAX_RECURSION:
        # Past a few levels of one function on ever new arguments, unknown: a cut at
        # the outermost of them (an entry made below holds while it is in progress).
        ev.reads.cut_at(same[0], ev.active[same[0]])
        ev.reads.bounds.add(bounds.RECURSION)
        return UNKNOWN
    activation = enter(ev, guard)
    same.append(guard)
    ev.depth += 1
    try:
        with ev.tracking() as reads:
            env = bind_arguments(ev, func, args, kwargs, complete=True)
            if isinstance(node, nodes.Lambda):
                result = ev.eval(node.body, env)
            else:
                result = ev.run_body(node.body, env)
                if result is RAISES and not reads.device:
                    result = UNKNOWN  # raised on every generation alike
                if result is UNKNOWN and not reads.device and _forwards_to_unread(ev, node):
                    # `def target_is_volta(t): return _ffi_api.TargetIsVolta(t)`: a body
                    # that only hands its arguments to a call nothing here can read says
                    # no more than an abstract one; the function's name is what is known.
                    result = conventions.by_convention(ev, str(node.name))
            reads.close(guard, activation)
        if key is not None:
            frozen = reads.frozen(ev.depth - 1)  # the depth it was looked up at
            ev.call_memo.put(key, result, frozen)
            if trace is not None:
                trace.append(replay.added(replay.CALL, key, result, frozen))
        return result
    finally:
        ev.depth -= 1
        same.pop()
        leave(ev, guard, activation)


def _forwards_to_unread(ev: Evaluator, node: nodes.NodeNG) -> bool:
    """A named function whose body (past a docstring) is one `return f(...)` handing on
    its own parameters or constants, nothing computed, where `f` is no function of the
    project's (a compiled extension's, or a module attribute nothing binds, also of a
    module a helper called without arguments hands back: `_native().TargetIsSM120(t)`):
    no body of it was read. An object's method that answered unknown (an environment flag's
    `get()`) was read, or could have been, and said so."""
    if not isinstance(node, nodes.FunctionDef) or not node.name:
        return False
    body = [
        s for s in node.body if not (isinstance(s, nodes.Expr) and isinstance(s.value, nodes.Const))
    ]
    if len(body) != 1 or not isinstance(body[0], nodes.Return):
        return False
    call = body[0].value
    if not isinstance(call, nodes.Call) or not isinstance(call.func, (nodes.Name, nodes.Attribute)):
        return False
    params = {a.name for a in node.args.arguments}
    base = call.func
    while isinstance(base, nodes.Attribute):
        base = base.expr
    if isinstance(base, nodes.Call) and not base.args and not base.keywords:
        # `_native().TargetIsSM120(t)`: a helper handing back the compiled library.
        if not _hands_back_a_module(ev, base):
            return False
    elif not isinstance(base, nodes.Name) or base.name in params:
        return False  # a method of an argument: what it is, its callers say
    handed = [*call.args, *(k.value for k in call.keywords)]
    if not all(
        isinstance(a, nodes.Const) or (isinstance(a, nodes.Name) and a.name in params)
        for a in handed
    ):
        return False
    callee = ev.value(call.func)
    if isinstance(callee, ExternalRef):
        return True
    # A module's name nothing in it binds (`_ffi_api.TargetIsVolta`: a compiled library
    # fills the module at import); not an object's method that answered unknown.
    return (
        callee is UNKNOWN
        and isinstance(call.func, nodes.Attribute)
        and (
            isinstance(ev.value(call.func.expr), (ModuleRef, ExternalRef))
            or isinstance(call.func.expr, nodes.Call)  # a helper's module (above)
        )
    )


def _hands_back_a_module(ev: Evaluator, call: nodes.Call) -> bool:
    """`_native()`, a project function each of whose returns is a name its own import
    binds (`from ops import _lib; return _lib`: the compiled library, found or not)."""
    value = ev.value(call)
    if isinstance(value, (ModuleRef, ExternalRef)):
        return True
    helper = ev.value(call.func)
    if not isinstance(helper, FunctionRef) or not isinstance(helper.node, nodes.FunctionDef):
        return False
    returns = list(own_nodes(helper.node.body, nodes.Return))
    if not returns:
        return False
    for returned in returns:
        if not isinstance(returned.value, nodes.Name):
            return False
        try:
            _, found = returned.value.lookup(returned.value.name)
        except Exception:
            return False
        if not found or not all(isinstance(f, (nodes.Import, nodes.ImportFrom)) for f in found):
            return False
    return True


def _runs_body(ev: Evaluator, node: nodes.NodeNG) -> bool:
    """Whether calling the function runs its body: a generator function or a coroutine
    function gives an object whose body runs later (read as running at the call, an
    `if make_batches():` took the body's fall-through None and was never true). Read
    once per function (a walk of the body)."""
    if isinstance(node, nodes.AsyncFunctionDef):
        return False
    if not isinstance(node, nodes.FunctionDef):
        return True
    key = ("runs-body", id(node))
    found = ev.facts.get(key)
    if found is None:
        found = ev.facts[key] = not node.is_generator()
    return bool(found)


def bind_arguments(
    ev: Evaluator,
    func: FunctionRef,
    args: list[Any],
    kwargs: dict[str, Any],
    complete: bool = False,
) -> Env:
    """The body's names for its parameters. `complete`: `args` and `kwargs` are every
    argument the call passes (a call whose unpackings were all read), so `*args` is the
    tuple of the positional ones left over and `**kwargs` the dict of the keywords no
    parameter takes (`def make(*, arch, **fields): return Inputs(**fields, arch=arch)`
    passes its callers' other keywords on); else both are unknown."""
    arguments = func.node.args
    kwargs = dict(kwargs)
    env: Env = {}
    positional = list(arguments.posonlyargs or []) + list(arguments.args or [])
    supplied = list(args)
    if func.receiver is not None and positional:
        supplied = [func.receiver, *supplied]
    defaults = list(arguments.defaults or [])
    first_default = len(positional) - len(defaults)
    for index, param in enumerate(positional):
        if index < len(supplied):
            env[param.name] = supplied[index]
        elif param.name in kwargs:
            env[param.name] = kwargs.pop(param.name)
        elif index >= first_default:
            env[param.name] = ev.eval(defaults[index - first_default], None)
        else:
            env[param.name] = UNKNOWN
    kw_defaults = list(arguments.kw_defaults or [])
    for index, param in enumerate(arguments.kwonlyargs or []):
        if param.name in kwargs:
            env[param.name] = kwargs.pop(param.name)
        elif index < len(kw_defaults) and kw_defaults[index] is not None:
            env[param.name] = ev.eval(kw_defaults[index], None)
        else:
            env[param.name] = UNKNOWN
    if arguments.vararg:
        rest = supplied[len(positional) :]
        env[arguments.vararg] = tuple(rest) if complete else UNKNOWN
    if arguments.kwarg:
        env[arguments.kwarg] = dict(kwargs) if complete else UNKNOWN
    return env


def _is_partial(func: ExternalRef) -> bool:
    return func.dotted in _FUNCTOOLS_PARTIAL or func.dotted.endswith(".partial")


def _is_cache_decorator(func: ExternalRef) -> bool:
    return func.last in _CACHE_DECORATORS and func.dotted.startswith(("functools", func.last))


def _reads_arguments(ev: Evaluator, func: ExternalRef) -> bool:
    """Whether _call_external looks at the arguments: to wrap a function, for an
    intrinsic that reads them (most are decided by their dotted name alone), for an
    environment read's default (its value where no variable is set, which may be read
    from the device), or for a pattern matched on a text (text_patterns.py)."""
    return (
        _is_partial(func)
        or _is_cache_decorator(func)
        or ev.idioms.reads_arguments(func.dotted)
        or func.dotted in environment.READS
        or func.dotted in text_patterns.FUNCTIONS
        or func.dotted in text_patterns.COMPILERS
    )


def _syntactic_name(node: nodes.NodeNG) -> str | None:
    if isinstance(node, nodes.Name):
        return str(node.name)
    if isinstance(node, nodes.Attribute):
        return str(node.attrname)
    return None


def _is_callable_value(value: Any) -> bool:
    return isinstance(value, (FunctionRef, PartialRef, ExternalRef, ClassRef))


def _call_key(
    func: FunctionRef, args: Sequence[Any], kwargs: Mapping[str, Any]
) -> tuple[Any, ...] | None:
    try:
        key = (
            id(func.node),
            _freeze(func.receiver),
            tuple(_freeze(a) for a in args),
            tuple(sorted((k, _freeze(v)) for k, v in kwargs.items())) if kwargs else (),
        )
        hash(key)
        return key
    except (TypeError, ValueError):  # unhashable; repr() of a huge int key
        return None


def _freeze(value: Any) -> Any:
    if isinstance(value, NoneOr):
        return ("none-or", _freeze(value.value))
    if isinstance(value, list):
        return ("list", tuple(_freeze(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((repr(k), _freeze(v)) for k, v in value.items())))
    if isinstance(value, (set, frozenset)):
        return ("set", frozenset(value))
    if isinstance(value, InstanceRef):
        return ("instance", _Same(value))
    if isinstance(value, tuple):
        return tuple(_freeze(v) for v in value)
    return value


class _Same:
    """An object in a memo key by identity, held by the key: an id alone would name
    another object once this one is freed (the memo outlives the InstanceRefs a call was
    given, and a later one may be made at the same address: answers then depended on
    the memory layout, that is on PYTHONHASHSEED)."""

    __slots__ = ("held",)

    def __init__(self, held: object) -> None:
        self.held = held

    def __hash__(self) -> int:
        return id(self.held)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.held is self.held
