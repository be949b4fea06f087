"""What a `try` body certainly does, read on this generation's values: raise at its first
statement (a lookup that misses: `TABLE[cap]` without the key, `Backend["NONE"]` of an
Enum, `()[0]`, `None[0]`), or complete with no statement that can raise. Where the body
raises, only the handlers that may catch that exception run; where it completes, none
does (statements._try). Anything else (a call, an attribute of an object, a lookup in a
value not read whole) may raise or not, and every handler may run, as before.

It is the table idiom of the sm120 story: `try: return CONFIGS[cap] except KeyError:
return DEFAULT` read as "the table's value, or the default" on every generation made the
default reachable where the table has the key and the table's value where it has not."""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any

from astroid import nodes

from gatecheck.semantics import classes, resolve
from gatecheck.semantics.env import bind_target
from gatecheck.semantics.idioms._model import NOT_MINE
from gatecheck.semantics.values import (
    UNKNOWN,
    ClassRef,
    EnumMember,
    ExternalRef,
    contains_unknown,
    is_constant,
)

if TYPE_CHECKING:
    from gatecheck.semantics.env import Env
    from gatecheck.semantics.evaluator import Evaluator

# Statements whose value expression `certain_raise` and `completes` read.
_VALUED = (nodes.Return, nodes.Assign, nodes.Expr)


def certain_raise(ev: Evaluator, stmt: nodes.NodeNG, env: Env) -> type[BaseException] | None:
    """The exception `stmt` (a return, an assignment or an expression statement) raises
    on this generation for certain, or None when it may not."""
    if not isinstance(stmt, _VALUED) or stmt.value is None:
        return None
    return _raises(ev, stmt.value, env)


def completes(ev: Evaluator, body: list[nodes.NodeNG], env: Env) -> bool:
    """Whether a body (read in `env`, the one it starts in) cannot raise: statement by
    statement, each read in the names the ones before it bound, assignments to plain
    names (a tuple of them unpacking a value of that length) and a last return, of
    constants, names with a value, lookups that find their key, Enum members' `.value` /
    `.name`, a few str methods of str, arithmetic on integers, and reads of the device
    that this generation answers (`torch.cuda.get_device_capability()`: a device of the
    generation is there, so the read completes; `try: major, minor = ...; return
    f"{major}{minor}" except Exception: return None` never gives None on a generation
    that answers it)."""
    if not body:
        return False
    scratch = dict(env)
    for stmt in body:
        if isinstance(stmt, nodes.Return):
            return stmt is body[-1] and (stmt.value is None or _completes(ev, stmt.value, scratch))
        if isinstance(stmt, nodes.AnnAssign) and stmt.value is not None:
            targets = [stmt.target]
        elif isinstance(stmt, nodes.Assign):
            targets = list(stmt.targets)
        else:
            return False
        value_node = stmt.value
        if not _completes(ev, value_node, scratch):
            return False
        value = ev.eval(value_node, scratch)
        for target in targets:
            if not _unpacks(target, value):
                return False
            bind_target(target, value, scratch)
    return True


def _unpacks(target: nodes.NodeNG, value: Any) -> bool:
    """Whether assigning `value` to `target` cannot raise: a plain name, or a tuple of
    plain names (no star) unpacking a tuple or list of as many items."""
    if isinstance(target, nodes.AssignName):
        return True
    if not isinstance(target, (nodes.Tuple, nodes.List)):
        return False
    return (
        isinstance(value, (tuple, list))
        and len(value) == len(target.elts)
        and all(isinstance(e, nodes.AssignName) for e in target.elts)
    )


def catches(
    ev: Evaluator, handler: nodes.ExceptHandler, raised: type[BaseException]
) -> bool | None:
    """Whether `handler` catches `raised`: True, False, or None when its type is not a
    builtin exception class (a class of the project's or a library's: it may)."""
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, nodes.Tuple) else [handler.type]
    answer: bool | None = False
    for each in types:
        caught = _builtin_exception(ev, each)
        if caught is None:
            answer = None
        elif issubclass(raised, caught):
            return True
    return answer


def _builtin_exception(ev: Evaluator, node: nodes.NodeNG) -> type[BaseException] | None:
    """The builtin exception class `node` names, where no binding of the project's
    shadows it."""
    if not isinstance(node, nodes.Name):
        return None
    found = getattr(builtins, node.name, None)
    if not (isinstance(found, type) and issubclass(found, BaseException)):
        return None
    return found if _builtin(ev, node) else None


def _builtin(ev: Evaluator, node: nodes.Name) -> bool:
    """Whether `node` names the builtin of its name: no binding of the project's
    shadows it."""
    looked = resolve.looked_up(ev, node)
    if looked is None:
        return False
    scope, bindings = looked
    return not bindings or (isinstance(scope, nodes.Module) and scope.name == "builtins")


def _raises(ev: Evaluator, node: nodes.NodeNG, env: Env) -> type[BaseException] | None:
    """The exception evaluating `node` raises for certain: a lookup that misses, reached
    only through parts that certainly complete (one that may raise another exception
    first leaves the exception unknown)."""
    if isinstance(node, nodes.Attribute):
        return _raises(ev, node.expr, env)
    if isinstance(node, nodes.Subscript) and not isinstance(node.slice, nodes.Slice):
        found = _first_raise(ev, (node.value, node.slice), env)
        if found is not _NOT_TOLD:
            return found
        looked, error = _lookup(ev, node, env)
        return error if looked is _MISSES else None
    parts: tuple[nodes.NodeNG, ...] = ()
    if isinstance(node, nodes.Call) and not node.keywords:
        parts = (node.func, *node.args)
    elif isinstance(node, nodes.Compare):
        parts = (node.left, node.ops[0][1])
    elif isinstance(node, nodes.BinOp):
        parts = (node.left, node.right)
    elif isinstance(node, nodes.UnaryOp):
        parts = (node.operand,)
    elif isinstance(node, nodes.BoolOp):
        parts = (node.values[0],)
    found = _first_raise(ev, parts, env)
    return None if found is _NOT_TOLD else found


# _first_raise: every part completes, and the node's own step decides.
_NOT_TOLD: Any = object()


def _first_raise(
    ev: Evaluator, parts: tuple[nodes.NodeNG, ...], env: Env
) -> type[BaseException] | None:
    """Evaluating `parts` in order: the exception the first one that raises raises for
    certain, None where one may raise or not, _NOT_TOLD where all complete."""
    for part in parts:
        found = _raises(ev, part, env)
        if found is not None:
            return found
        if not _completes(ev, part, env):
            return None
    return _NOT_TOLD


def _completes(ev: Evaluator, node: nodes.NodeNG, env: Env) -> bool:
    if isinstance(node, nodes.Const):
        return True
    if isinstance(node, nodes.Name):
        return ev.eval(node, env) is not UNKNOWN
    if isinstance(node, (nodes.Tuple, nodes.List)):
        return all(_completes(ev, e, env) for e in node.elts)
    if isinstance(node, nodes.Attribute):
        return (
            node.attrname in ("value", "name")
            and _completes(ev, node.expr, env)
            and isinstance(ev.eval(node.expr, env), EnumMember)
        )
    if isinstance(node, nodes.BinOp):
        return (
            node.op in _INT_OPS
            and _completes(ev, node.left, env)
            and _completes(ev, node.right, env)
            and _plain_int(ev.eval(node.left, env))
            and _plain_int(ev.eval(node.right, env))
        )
    if isinstance(node, nodes.JoinedStr):
        return all(_formats(ev, part, env) for part in node.values)
    if isinstance(node, nodes.Call) and _device_read(ev, node, env):
        return True
    if isinstance(node, nodes.Call) and _str_of_int(ev, node, env):
        return True
    if isinstance(node, nodes.Call):
        # `arch.upper()`: a str method that raises on no str argument.
        func = node.func
        return (
            isinstance(func, nodes.Attribute)
            and func.attrname in _STR_METHODS
            and not node.keywords
            and isinstance(ev.eval(func.expr, env), str)
            and all(_completes(ev, a, env) and isinstance(ev.eval(a, env), str) for a in node.args)
            and len(node.args) <= 1
        )
    if isinstance(node, nodes.Subscript) and not isinstance(node.slice, nodes.Slice):
        if not (_completes(ev, node.value, env) and _completes(ev, node.slice, env)):
            return False
        found, _error = _lookup(ev, node, env)
        return found is _FINDS
    return False


# Operators that cannot raise on two integers (no division, no power: a negative or a
# huge exponent).
_INT_OPS = frozenset({"+", "-", "*"})


def _plain_int(value: Any) -> bool:
    return type(value) is int


def _formats(ev: Evaluator, part: nodes.NodeNG, env: Env) -> bool:
    """An f-string part that cannot raise: literal text, or an int or a str placed
    as it is (no format spec, no conversion)."""
    if isinstance(part, nodes.Const):
        return True
    return (
        isinstance(part, nodes.FormattedValue)
        and part.format_spec is None
        and part.conversion in (None, -1)
        and _completes(ev, part.value, env)
        and type(ev.eval(part.value, env)) in (int, str)
    )


def _str_of_int(ev: Evaluator, node: nodes.Call, env: Env) -> bool:
    """`str(n)` of an integer, where `str` is the builtin."""
    return (
        len(node.args) == 1
        and not node.keywords
        and isinstance(node.func, nodes.Name)
        and node.func.name == "str"
        and _builtin(ev, node.func)
        and _completes(ev, node.args[0], env)
        and _plain_int(ev.eval(node.args[0], env))
    )


def _device_read(ev: Evaluator, node: nodes.Call, env: Env) -> bool:
    """A call of the device's own interface (an idiom's intrinsic reading the device:
    `torch.cuda.get_device_capability()`) with arguments that complete, which this
    generation answers with a value known whole: under a generation, its device is
    there. Where the idiom does not answer (a CUDA-only call on ROCm), it may raise."""
    if node.keywords or not all(_completes(ev, a, env) for a in node.args):
        return False
    func = ev.eval(node.func, env)
    if not isinstance(func, ExternalRef) or not ev.idioms.reads_device(func.dotted):
        return False
    args = [ev.eval(a, env) for a in node.args]
    value = ev.idioms.call(func.dotted, ev.generation, args)
    return value is not NOT_MINE and not contains_unknown(value)


# str methods that raise for no str argument (`index`, `format` and the like may).
_STR_METHODS = frozenset(
    {"upper", "lower", "casefold", "strip", "lstrip", "rstrip", "startswith", "endswith"}
)

_FINDS = "finds"
_MISSES = "misses"


def _lookup(
    ev: Evaluator, node: nodes.Subscript, env: Env
) -> tuple[str | None, type[BaseException] | None]:
    """Whether `container[index]` finds its item (_FINDS), raises (_MISSES, with the
    exception), or cannot be told (None): told only of a value read whole, with an index
    that is a constant."""
    index = ev.eval(node.slice, env)
    if not is_constant(index):
        return None, None
    container = ev.eval(node.value, env)
    if container is None:
        return _MISSES, TypeError
    if isinstance(container, dict):
        if not all(is_constant(k) for k in container):
            return None, None
        return (_FINDS, None) if index in container else (_MISSES, KeyError)
    if isinstance(container, (tuple, list, str)):
        if isinstance(index, bool) or not isinstance(index, int):
            return _MISSES, TypeError
        return (
            (_FINDS, None) if -len(container) <= index < len(container) else (_MISSES, IndexError)
        )
    if isinstance(container, ClassRef) and isinstance(index, str):
        cls = container.node
        if not (classes.is_enum(ev, cls) and _members_exact(cls)):
            return None, None
        member = classes.enum_member(cls, index)
        return (_FINDS, None) if member is not None else (_MISSES, KeyError)
    return None, None


def _members_exact(cls: nodes.ClassDef) -> bool:
    """An Enum body whose members are all plain `NAME = value` lines (no unpacking, no
    annotations, no names bound under an `if`): enum_member then knows every member."""
    for stmt in cls.body:
        if isinstance(stmt, nodes.Assign):
            if not all(isinstance(t, nodes.AssignName) for t in stmt.targets):
                return False
        elif not isinstance(stmt, (nodes.FunctionDef, nodes.Expr, nodes.Pass)):
            return False
    return True
