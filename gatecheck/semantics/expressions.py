"""Expressions: one small handler per node kind, in a table. Arch terms come out as
concrete values, everything else as UNKNOWN; Python's own semantics otherwise."""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from astroid import nodes

from gatecheck.semantics import bounds, classes, conventions, patterns, stored_attributes
from gatecheck.semantics.bounds import safe
from gatecheck.semantics.diverging import raises_in
from gatecheck.semantics.env import Env, bind_target, field_at, none_compared, operand_scopes
from gatecheck.semantics.flow import none_filled_choice
from gatecheck.semantics.free_atoms import single_binding
from gatecheck.semantics.idioms._model import NOT_MINE
from gatecheck.semantics.logic import MAX_OPTIONS, bool_op, either, item_of_options, kleene_not
from gatecheck.semantics.mutations import filled_table
from gatecheck.semantics.values import (
    UNKNOWN,
    ClassRef,
    EachDevice,
    FunctionRef,
    InstanceRef,
    NoneOr,
    OneOf,
    Opaque,
    SetItems,
    SomeText,
    Truthy,
    constant_options,
    contains_unknown,
    has_opaque,
    is_constant,
    is_option,
    one_value_set,
    plain,
    truth,
)

if TYPE_CHECKING:
    from gatecheck.semantics.evaluator import Evaluator

Handler = Callable[["Evaluator", Any, "Env | None"], Any]
# A loop's own assignments before the item it appends, each (target, value), in order.
Prelude = Sequence[tuple[nodes.NodeNG, nodes.NodeNG]]

# The comparison operators as Python runs them on constants (`in` is read apart).
COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "is": operator.is_,
    "is not": operator.is_not,
}
_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "//": operator.floordiv,
    "/": operator.truediv,
    "%": operator.mod,
    "**": operator.pow,
    "&": operator.and_,
    "|": operator.or_,
}
_UNARY: dict[str, Callable[[Any], Any]] = {
    "-": operator.neg,
    "+": operator.pos,
    "~": operator.invert,
}
# Longest known sequence a comprehension is evaluated over (arch lists are short).
_MAX_COMPREHENSION = 256


def _const(ev: Evaluator, node: nodes.Const, env: Env | None) -> Any:
    return node.value


def _name(ev: Evaluator, node: nodes.Name, env: Env | None) -> Any:
    if node.name in ev.flag_values:
        return ev.flag_values[node.name]
    if env is not None and node.name in env:
        return plain(env[node.name])
    # A parameter every caller passes a local that may be None holds NoneOr
    # (callers.py): unknown here, its value where it is dereferenced.
    return plain(ev.resolve_name(node))


def _attribute(ev: Evaluator, node: nodes.Attribute, env: Env | None) -> Any:
    if node.attrname in ev.flag_values:
        return ev.flag_values[node.attrname]
    if node.attrname.startswith("__"):
        return ev.get_attribute(ev.eval(node.expr, env), node.attrname)  # None has these
    receiver = dereferenced(ev, node.expr, env)
    value = ev.get_attribute(receiver, node.attrname, node)
    if value is UNKNOWN:
        # `cfg.flag = probe()` earlier in the function (stored_attributes.py).
        stored = stored_attributes.stored_before(ev, node)
        if stored is not stored_attributes.NOT_STORED:
            return stored
    if value is UNKNOWN and receiver is UNKNOWN:
        if conventions.reads_a_parameter(node.expr):
            # Nothing says what the parameter is: its attribute's name may (a device
            # record). An unknown call's result is not read so: an idiom's UNKNOWN may
            # mean the call fails there (cuda.core's Device on an AMD GPU).
            return conventions.attribute_by_convention(ev, node.attrname)
        # An object from outside the scanned roots: a predicate's name says what its
        # property is, as it says what its method returns.
        return conventions.predicate_attribute(ev, node)
    return value


def dereferenced(ev: Evaluator, node: nodes.NodeNG, env: Env | None) -> Any:
    """The value of `node` where the expression reading it raises on None (an item
    `cap[0]`, an attribute `cap.major`, an unpacking, an ordering): a local, parameter
    or call that may give None (values.NoneOr: `cap = probe()`, None when the probe
    fails) is its value there, as on the path where it is None the expression raises
    and has no truth to give."""
    held = may_be_none(ev, node, env)
    return held.value if isinstance(held, NoneOr) else held


def may_be_none(ev: Evaluator, node: nodes.NodeNG, env: Env | None = None) -> Any:
    """ev.eval(node, env), except that a call's result, a local or a parameter that may
    be None stays NoneOr (bindings._assigned keeps a local's, callers.py a parameter's
    whose callers all pass one); evaluated once either way."""
    if isinstance(node, nodes.Call):
        ev.eval_step()
        return ev.call_node(node, env, optional=True)
    if isinstance(node, nodes.Name) and node.name not in ev.flag_values:
        ev.eval_step()
        if env is not None and node.name in env:
            return env[node.name]
        return ev.resolve_name(node)
    return ev.eval(node, env)


def _bool_op(ev: Evaluator, node: nodes.BoolOp, env: Env | None) -> Any:
    if env is None:
        env = _optional_locals(ev, node)
    if env is None:
        return bool_op(node.op, _operands(ev, node, [env] * len(node.values)))
    return bool_op(node.op, _operands(ev, node, operand_scopes(node, env)))


def _operands(ev: Evaluator, node: nodes.BoolOp, scopes: Sequence[Env | None]) -> Iterator[Any]:
    """The operands' values, lazily (bool_op stops at the deciding one). A later operand
    reached because every one before it was certainly not deciding (`IS_ROCM or x` on
    NVIDIA) is always evaluated there, as the first is: where it certainly raises, so
    does the whole (noted for diverging.py)."""
    certain = True
    passing = node.op == "and"  # the truth an operand has where the next one runs
    for index, (operand, scope) in enumerate(zip(node.values, scopes, strict=True)):
        noted = ev.raising
        mark = len(noted)
        value = ev.eval(operand, scope)
        if index and certain and len(noted) > mark and raises_in(operand, noted[mark:]):
            noted.append(node)
        yield value
        if truth(value) is not passing:
            certain = False


def _optional_locals(ev: Evaluator, node: nodes.BoolOp) -> Env | None:
    """A condition read on its own (no body run up to it) that tests a local for None
    before using it, `cap = self.capability_major()` then `cap is not None and cap < 8`:
    the locals so tested that one call assigns and that may be None (values.NoneOr), as
    the environment the operands narrow (env.operand_scopes); None when there are none."""
    found: Env = {}
    for operand in node.values:
        name = _none_tested(operand)
        if name is None or name.name in found:
            continue
        if _sole_call_assigned(name) is not None:
            # Its binding keeps the call's NoneOr (bindings._assigned): read, not re-run.
            value = ev.resolve_name(name)
            if isinstance(value, NoneOr):
                found[name.name] = value
    return found or None


def _none_tested(test: nodes.NodeNG) -> nodes.Name | None:
    if isinstance(test, nodes.UnaryOp) and test.op == "not":
        test = test.operand
    compared = none_compared(test) if isinstance(test, nodes.Compare) else None
    return compared[0] if compared and isinstance(compared[0], nodes.Name) else None


def _sole_call_assigned(name: nodes.Name) -> nodes.Call | None:
    """The call a function's local is assigned from, when that is its only binding."""
    if not isinstance(name.scope(), (nodes.FunctionDef, nodes.AsyncFunctionDef)):
        return None
    value = single_binding(name)
    return value if isinstance(value, nodes.Call) else None


def _unary_op(ev: Evaluator, node: nodes.UnaryOp, env: Env | None) -> Any:
    operand = ev.eval(node.operand, env)
    if node.op == "not":
        return kleene_not(operand)
    if contains_unknown(operand) or node.op not in _UNARY:
        return UNKNOWN
    return safe(lambda: _UNARY[node.op](operand))


def _bin_op(ev: Evaluator, node: nodes.BinOp, env: Env | None) -> Any:
    # Arithmetic on None raises (`major * 10 + minor` of a probe that may give None),
    # except as what `%` formats (`"sm%s" % cap`).
    left = dereferenced(ev, node.left, env)
    joined = node.op == "+" and _strings(left)
    if isinstance(left, OneOf) and node.op in _BINARY and constant_options(left) is not None:
        return _options_op(ev, node.op, left, dereferenced(ev, node.right, env))
    if (contains_unknown(left) and not joined) or node.op not in _BINARY:
        return UNKNOWN  # whatever the right side is
    right = ev.eval(node.right, env) if node.op == "%" else dereferenced(ev, node.right, env)
    if joined and type(right) is type(left) and _strings(right) and has_opaque([*left, *right]):
        # Lists of strings joined (`["-O3"] + [f"-DPAGE={page}"]`): the strings not read
        # stay as they were, in place (kernels/support.py reads option lists).
        if bounds.too_large(node.op, left, right):
            ev.reads.bounds.add(bounds.CONSTANT_TOO_LARGE)
            return UNKNOWN
        return left + right
    if isinstance(right, OneOf) and is_constant(left) and constant_options(right) is not None:
        return _options_op(ev, node.op, left, right)  # `"sm" + ("90a" if h else "100a")`
    if contains_unknown(right) or (node.op == "%" and (has_opaque(left) or has_opaque(right))):
        return UNKNOWN  # `%` would spell gatecheck's object for a value it does not read
    if bounds.too_large(node.op, left, right):
        ev.reads.bounds.add(bounds.CONSTANT_TOO_LARGE)
        return UNKNOWN
    return safe(lambda: _BINARY[node.op](left, right))


def _options_op(ev: Evaluator, op: str, left: Any, right: Any) -> Any:
    """Arithmetic where a side is one of a few numbers (values.OneOf), or texts joined
    with `+`: one of the results of every pair of options (`arch.major * 10 +
    arch.minor` of a DSL target that is sm_101a or sm_110a on Thor is one of 100, 101,
    110, 111, whose `% 10 >= 3` is false). Unknown where a side is not all constants,
    or a pair does not compute."""
    lefts, rights = constant_options(left), constant_options(right)
    if lefts is None or rights is None:
        return UNKNOWN
    texts = op == "+" and all(type(v) is str for v in (*lefts, *rights))
    if not texts and not all(type(v) in (int, float, bool) for v in (*lefts, *rights)):
        return UNKNOWN  # numbers, or texts joined: None and the partly known are not computed
    apply = _BINARY[op]
    results = []
    for a, b in itertools.product(lefts, rights):
        if bounds.too_large(op, a, b):
            ev.reads.bounds.add(bounds.CONSTANT_TOO_LARGE)
            return UNKNOWN
        result = safe(partial(apply, a, b))
        if result is UNKNOWN:
            return UNKNOWN
        results.append(result)
    return either(results)


def _strings(value: Any) -> bool:
    """A list or tuple of strings, known or partly known (values.SomeText)."""
    return isinstance(value, (list, tuple)) and all(isinstance(v, (str, SomeText)) for v in value)


def _compare(ev: Evaluator, node: nodes.Compare, env: Env | None) -> Any:
    # Ordering None raises: `cap >= (9, 0)` reads a `cap` that may be None as its value.
    # Else a value that may be None is compared as None and as its value (_none_or).
    ordering = all(op in _ORDERING for op, _ in node.ops)

    def read(operand: nodes.NodeNG) -> Any:
        return dereferenced(ev, operand, env) if ordering else may_be_none(ev, operand, env)

    left = read(node.left)
    if left is UNKNOWN and len(node.ops) == 1:
        # Whatever the right side is (see _compare_one), it is not read (nor what it
        # imports built), but for a lookup: one that certainly misses raises, and the
        # comparison has no value there (`ws in SIZES[cap]`, noted for diverging.py);
        # and for a call's container: one that is empty holds nothing (vLLM's `c.
        # weight_type not in query_marlin_supported_quant_types(...)`, `[]` below sm75).
        op, right_node = node.ops[0]
        if isinstance(right_node, nodes.Subscript):
            ev.eval(right_node, env)
        elif (
            op in ("in", "not in")
            and isinstance(right_node, (nodes.Call, nodes.Name))
            and _empty(ev.eval(right_node, env))
        ):
            return op == "not in"
        return UNKNOWN
    outcome: Any = True
    for op, right_node in node.ops:
        right = read(right_node)
        step = _none_or(ev, op, left, right)
        if step is False:
            return False
        if step is UNKNOWN or outcome is UNKNOWN:
            outcome = UNKNOWN
        left = right
    return outcome


_ORDERING = frozenset(("<", "<=", ">", ">="))


def _empty(container: Any) -> bool:
    """A container known to hold nothing: `x in` it is false whatever `x` is."""
    return type(container) in (tuple, list, dict, set, frozenset, str) and not container


def compare(ev: Evaluator, op: str, left: Any, right: Any) -> Any:
    """`left <op> right` on values (a `case` pattern's test: patterns.py)."""
    return _none_or(ev, op, left, right)


def _none_or(ev: Evaluator, op: str, left: Any, right: Any) -> Any:
    """A comparison where a side may be None (values.NoneOr: a helper that returns None
    off CUDA, else the device's capability): None's outcome and the value's, known where
    they agree. `cap(dev) == (8, 0)` is false wherever the capability is not (8, 0), as
    None is not (8, 0) either; `cap(dev) != (8, 0)` can be true everywhere."""
    lefts = (None, left.value) if isinstance(left, NoneOr) else (left,)
    rights = (None, right.value) if isinstance(right, NoneOr) else (right,)
    if len(lefts) == len(rights) == 1:
        return _compare_one(ev, op, left, right)
    outcomes = {_compare_one(ev, op, a, b) for a in lefts for b in rights}
    return outcomes.pop() if len(outcomes) == 1 else UNKNOWN


def _compare_options(ev: Evaluator, op: str, left: Any, right: Any) -> Any:
    """A comparison with one of a few constants: each option's, known where all agree.
    Which reference a OneOf of references is stays unknown (`Platform is NvmlPlatform`).
    The container of a membership test is an option read whole when its items (a
    dict's keys) are all constants: `cc in [100, 103]` with `cc` the device's number or
    a fallback 0 is each one's, as with a tuple."""
    lefts, rights = constant_options(left), constant_options(right)
    if rights is None and op in ("in", "not in"):
        rights = _container(right)
        if rights is None and _containers(right):
            # One of a few containers read whole: the machine's per-device values on
            # one path, `()` on another (`caps = tuple(cap(i) for i ...)` for CUDA, else
            # `caps = ()`), each container's outcome, known where they agree.
            outcomes = {_compare_one(ev, op, left, o) for o in right.options}
            return outcomes.pop() if len(outcomes) == 1 else UNKNOWN
    if lefts is None or rights is None:
        return UNKNOWN
    pairs = [(a, b) for a in lefts for b in rights]
    if op in _ORDERING:
        # Ordering None raises, and a raise is no value: `cc < 100` with `cc` None or
        # the device's number is the number's (as for values.NoneOr, dereferenced).
        pairs = [(a, b) for a, b in pairs if a is not None and b is not None]
    outcomes = {_compare_one(ev, op, a, b) for a, b in pairs}
    return outcomes.pop() if len(outcomes) == 1 else UNKNOWN


def _container(value: Any) -> tuple[Any, ...] | None:
    """A list, set or dict whose items (keys) are all constants, as the one option of a
    membership test; None otherwise. Not one of several containers (a parameter each
    caller passes its own list, FlashInfer's `_match_sm_version(device, ["100", "103"])`):
    each call is then read with its own list, a gate of its own, not a hop of one row
    admitting every caller's. Values are never changed in place here: a name whose
    container is changed reads as unknown (mutations.py)."""
    if type(value) not in (list, set, frozenset, dict):
        return None
    return (value,) if all(is_constant(item) for item in value) else None


def _containers(value: Any) -> bool:
    """The machine's per-device values (EachDevice) on some paths, a tuple, list or set
    of constants on the others (`()` where there is no CUDA device). Not constant
    containers alone: a parameter each caller passes its own list is read per call
    (_container)."""
    if not isinstance(value, OneOf) or not any(isinstance(o, EachDevice) for o in value.options):
        return False
    return all(
        isinstance(o, EachDevice)
        or (type(o) in (tuple, list, set, frozenset) and all(is_constant(i) for i in o))
        for o in value.options
    )


def _tuple_of_options(value: Any) -> Any:
    """`(major, minor)` with `major` one of a few constants: one of a few tuples
    (`(major, minor) == (10, 7)` is each one's), when they are few enough and all
    constants (a tuple holding an unknown stays as it is: `key not in {}` is known)."""
    if type(value) is not tuple or not any(isinstance(v, OneOf) for v in value):
        return value
    combinations: list[tuple[Any, ...]] = [()]
    for item in value:
        options = item.options if isinstance(item, OneOf) else (item,)
        combinations = [(*c, o) for c in combinations for o in options]
        if len(combinations) > MAX_OPTIONS:
            return value
    if not all(is_constant(c) for c in combinations):
        return value
    return OneOf(tuple(combinations))


def _compare_one(ev: Evaluator, op: str, left: Any, right: Any) -> Any:
    if op in ("in", "not in") and isinstance(right, EachDevice):
        # every item is the one value, and there is one
        return _compare_one(ev, "==" if op == "in" else "!=", left, right.item)
    left, right = _tuple_of_options(left), _tuple_of_options(right)
    if isinstance(left, OneOf) or isinstance(right, OneOf):
        return _compare_options(ev, op, left, right)
    left, right = classes.as_tuple(ev, left), classes.as_tuple(ev, right)
    if op in ("in", "not in") and type(right) in (tuple, list):
        # `cap in (DeviceCapability(9, 0), DeviceCapability(10, 0))`: each item compares
        # as the tuple of its fields, as `cap == DeviceCapability(9, 0)` does.
        right = type(right)(classes.as_tuple(ev, item) for item in right)
    if op in _EQUALITY and (has_opaque(left) or has_opaque(right)):
        return _opaque_compare(op, left, right)
    if op in ("in", "not in"):
        if left is UNKNOWN or right is UNKNOWN:
            return UNKNOWN
        found: Any
        if contains_unknown(left):
            found = _member_of_known(ev, left, right)
        elif isinstance(right, (tuple, list)) and contains_unknown(right):
            known = [v for v in right if not contains_unknown(v)]
            found = True if safe(lambda: left in known) is True else UNKNOWN
        else:
            found = safe(lambda: left in right)
        if found is UNKNOWN:
            return UNKNOWN
        return found if op == "in" else not found
    if op in ("is", "is not") and (left is None) != (right is None):
        other = right if left is None else left
        if isinstance(other, (SomeText, EachDevice, Truthy)):
            # Some text, the devices' values, some true value: known not to be None,
            # whatever their unknown parts (`arch is None` of f"sm_{code}").
            return op == "is not"
    left_partly, right_partly = contains_unknown(left), contains_unknown(right)
    if op in ("==", "!=") and left_partly != right_partly:
        partial, known = (left, right) if left_partly else (right, left)
        equal = equal_to_known(ev, partial, known)
        return equal if op == "==" else kleene_not(equal)
    if left_partly or right_partly:
        return UNKNOWN
    if op in ("is", "is not") and not any(v is None or type(v) is bool for v in (left, right)):
        # Identity of ints/strings is an implementation detail; only `is None` and
        # `is True`/`is False` (singletons: lmdeploy's `use_flash_mla is True`) are known.
        return UNKNOWN
    result = safe(lambda: COMPARE[op](left, right))
    return result if isinstance(result, bool) else UNKNOWN


_EQUALITY = frozenset(("==", "!=", "in", "not in"))


def _member_of_known(ev: Evaluator, value: Any, container: Any) -> Any:
    """`value in container` where `value` is partly unknown, `(n, k) in {(1, 2), (3, 4)}`
    (a shape allow-list): true (false) only where it is for whatever the unknown parts
    are, so each item of a known tuple, list, set or dict is compared with
    equal_to_known. Python's own `in` would compare gatecheck's UNKNOWN object with
    the items, call it false, and drop the gate around it (`IS_ROCM and (n, k) in
    {...}` admitted nothing)."""
    if isinstance(container, dict):
        container = tuple(container)
    if not isinstance(container, (tuple, list, set, frozenset)) or contains_unknown(container):
        return UNKNOWN
    found: Any = False
    for item in container:
        found = bool_op("or", [found, equal_to_known(ev, value, item)])
        if found is True:
            break
    return found


def equal_to_known(ev: Evaluator, value: Any, known: Any) -> Any:
    """`value == known`, `known` fully known and `value` perhaps partly (a tuple with an
    unknown item): item by item, so `(n, 1) == (8, 0)` is false whatever `n` is, and
    `(major, n) == (9, 4)` false wherever the major is not 9. Only a tuple or list
    against a tuple or list is read: a set holding an unknown is kept as a tuple
    (_set), which never equals a known tuple or list either, but may equal a set."""
    if not contains_unknown(value):
        result = safe(lambda: value == known)
        return result if isinstance(result, bool) else UNKNOWN
    if isinstance(value, OneOf):
        return _compare_options(ev, "==", value, known)
    if not (isinstance(value, (tuple, list)) and isinstance(known, (tuple, list))):
        return UNKNOWN
    if isinstance(value, list) != isinstance(known, list) or len(value) != len(known):
        return False
    outcome: Any = True
    for part, known_part in zip(value, known, strict=True):
        outcome = bool_op("and", [outcome, equal_to_known(ev, part, known_part)])
        if outcome is False:
            break
    return outcome


def _opaque_compare(op: str, left: Any, right: Any) -> Any:
    """`==`, `!=`, `in` or `not in` where an Opaque value takes part (values.Opaque):
    `extlib.MODE == "fast"` and `triton.__version__ in ("3.1", "3.2")` may be either,
    where Python would call them false. Two references to one name are equal
    (`dtype == torch.bfloat16`, the dtype a caller passes), two names told apart, and
    a reference is not None (an import that ran binds something)."""
    if op in ("in", "not in"):
        if isinstance(right, dict):
            right = tuple(right)
        if not isinstance(right, (tuple, list, frozenset, set)):
            return UNKNOWN
        found: Any = False
        for item in right:
            found = bool_op("or", [found, _opaque_equal(left, item)])
            if found is True:
                break
        return found if op == "in" else kleene_not(found)
    equal = _opaque_equal(left, right)
    return equal if op == "==" else kleene_not(equal)


def _opaque_equal(left: Any, right: Any) -> Any:
    if left is UNKNOWN or right is UNKNOWN or isinstance(left, OneOf) or isinstance(right, OneOf):
        return UNKNOWN
    if isinstance(left, SomeText) or isinstance(right, SomeText):
        text, other = (left, right) if isinstance(left, SomeText) else (right, left)
        if isinstance(other, str):
            return False if len(other) < text.least else UNKNOWN
        return False if other is None or isinstance(other, (int, float)) else UNKNOWN
    if isinstance(left, Opaque) and type(left) is type(right):
        return left == right
    if isinstance(left, Opaque) or isinstance(right, Opaque):
        return False if left is None or right is None else UNKNOWN
    if isinstance(left, (tuple, list)) and isinstance(right, (tuple, list)):
        if type(left) is not type(right) or len(left) != len(right):
            return False  # a tuple never equals a list, nor a sequence of another length
        outcome: Any = True
        for a, b in zip(left, right, strict=True):
            outcome = bool_op("and", [outcome, _opaque_equal(a, b)])
            if outcome is False:
                break
        return outcome
    if has_opaque(left) or has_opaque(right) or contains_unknown(left) or contains_unknown(right):
        return UNKNOWN  # a set holding one, against anything
    result = safe(lambda: left == right)
    return result if isinstance(result, bool) else UNKNOWN


def _call(ev: Evaluator, node: nodes.Call, env: Env | None) -> Any:
    return ev.call_node(node, env)


def _tuple(ev: Evaluator, node: nodes.Tuple, env: Env | None) -> Any:
    values = _items(ev, node.elts, env)
    return UNKNOWN if values is None else tuple(values)


def _list(ev: Evaluator, node: nodes.List, env: Env | None) -> Any:
    values = _items(ev, node.elts, env)
    return UNKNOWN if values is None else values


def _set(ev: Evaluator, node: nodes.Set, env: Env | None) -> Any:
    values = _items(ev, node.elts, env)
    if values is None:
        return UNKNOWN
    return SetItems(values) if contains_unknown(values) else safe(lambda: set(values))


def _items(ev: Evaluator, elts: list[nodes.NodeNG], env: Env | None) -> list[Any] | None:
    """A display's items, a starred one spread when it is a list or a known tuple; None
    when that is not so: `(*dims, 1)` has as many items as `dims`, not two, and read
    as two it would equal no tuple of three (a partly unknown tuple is compared item
    by item, equal_to_known)."""
    if _too_long(ev, elts):
        return None
    values: list[Any] = []
    for elt in elts:
        if not isinstance(elt, nodes.Starred):
            values.append(ev.eval(elt, env))
            continue
        spread = ev.eval(elt.value, env)
        # A set holding an unknown is kept as a tuple (_set), of perhaps too many items.
        if not (isinstance(spread, list) or (is_constant(spread) and isinstance(spread, tuple))):
            return None
        values.extend(spread)
    return values


def _too_long(ev: Evaluator, items: list[Any]) -> bool:
    if len(items) <= bounds.MAX_LENGTH:
        return False
    ev.reads.bounds.add(bounds.LITERAL_TOO_LONG)
    return True


def _dict(ev: Evaluator, node: nodes.Dict, env: Env | None) -> Any:
    if _too_long(ev, node.items):
        return UNKNOWN
    out: dict[Any, Any] = {}
    for key_node, value_node in node.items:
        if isinstance(key_node, nodes.DictUnpack):
            return UNKNOWN
        key = ev.eval(key_node, env)
        if contains_unknown(key):
            return UNKNOWN
        try:
            out[key] = ev.eval(value_node, env)
        except TypeError:
            return UNKNOWN
    return out


def _subscript(ev: Evaluator, node: nodes.Subscript, env: Env | None) -> Any:
    container = dereferenced(ev, node.value, env)
    if container is UNKNOWN:
        # A module's memo table (`return _CACHE[device]`): one of the values it holds.
        items = filled_item(ev, node.value, env)
        return UNKNOWN if items is None else either(items)
    if isinstance(container, SetItems):
        return UNKNOWN  # a set's items in no known order: which one is first is not known
    if isinstance(node.slice, nodes.Slice):
        parts = [
            None if p is None else ev.eval(p, env)
            for p in (node.slice.lower, node.slice.upper, node.slice.step)
        ]
        if contains_unknown(parts):
            return UNKNOWN
        return safe(lambda: container[slice(*parts)])
    index = ev.eval(node.slice, env)
    if isinstance(index, OneOf) and isinstance(container, dict):
        # One of a few keys (`sm_to_cls[name]`, `name` one of "act" and "gated"): the
        # item of each one there is, an option without one raising there.
        found = items_at_keys(container, index)
        if found is not None:
            if not found:
                ev.raising.append(node)
                return UNKNOWN
            return either(found)
    if contains_unknown(index):
        matching = _keys_matching(ev, container, index)
        if matching is None:
            return _item_at_any_index(container)
        if not matching:
            ev.raising.append(node)  # a KeyError: no key has the known parts
            return UNKNOWN
        return either([container[key] for key in matching])
    if isinstance(container, OneOf):
        return item_of_options(container, index)
    if isinstance(container, EachDevice):
        return container.item if isinstance(index, int) else UNKNOWN
    if isinstance(container, dict):
        if any(contains_unknown(k) for k in container):
            return UNKNOWN
        if is_constant(index) and all(is_constant(k) for k in container):
            if index not in container:
                # A KeyError: no value here, noted for the statement or condition that
                # always evaluates the lookup (diverging.py): `ws in SIZES[cap[0]]` is
                # no gate of the capabilities SIZES lacks, whatever `ws` is.
                ev.raising.append(node)
                return UNKNOWN
            return container[index]
        # Keys that are names from outside (`torch.float`, `torch.float32`: one object
        # may have two names): a missing key is the feature being off (or a KeyError).
        return safe(lambda: container.get(index, False))  # an unhashable key raises
    if isinstance(container, (tuple, list, str)):
        return safe(lambda: container[index])
    if (
        isinstance(container, InstanceRef)
        and type(index) is int
        and classes.is_namedtuple(ev, container.cls)
    ):
        # `cap[0]` of a NamedTuple instance (vLLM's DeviceCapability(major, minor) on
        # ROCm): the field at that place, as made.
        return field_at(container, index)
    if isinstance(container, ClassRef) and isinstance(index, str):
        # `Backend["HOPPER"]`: an Enum's member by name (a missing name raises).
        if not classes.is_enum(ev, container.node):
            return UNKNOWN
        member = classes.enum_member(container.node, index)
        return UNKNOWN if member is None else member
    # A value an idiom made (Triton's device properties dict): what the idiom says.
    item = ev.idioms.value_item(container, index)
    return UNKNOWN if item is NOT_MINE else item


def items_at_keys(container: dict[Any, Any], index: Any) -> list[Any] | None:
    """The items of a dict of constant keys at each option of `index` (one of a few
    constants, or one) that is a key (none: every option raises); None where an option
    or a key is not a constant."""
    options = constant_options(index)
    if options is None or not all(is_constant(o) for o in options):
        return None
    if not all(is_constant(k) for k in container):
        return None
    found: list[Any] = []
    for option in options:
        try:
            if option in container:
                found.append(container[option])
        except TypeError:  # an unhashable option: not a key
            continue
    return found


def _keys_matching(ev: Evaluator, container: Any, index: Any) -> list[Any] | None:
    """The keys of a dict that a tuple index with some parts not known may equal
    (`{("100a", torch.float): ...}[(get_device_arch(), dtype)]`, FlashInfer 0.3.1's
    DeepGEMM table: the device's part known, the dtype not), read as `.get` reads such a
    key (equal_to_known; calls._lookup_of_unknown_key). An empty list: none may, the
    lookup raises. None where no key is told apart (nothing is learnt)."""
    if not (isinstance(container, dict) and isinstance(index, tuple) and container):
        return None
    matches = [equal_to_known(ev, index, key) for key in container]
    if all(match is not False for match in matches):
        return None
    return [key for key, match in zip(container, matches, strict=True) if match is not False]


def _item_at_any_index(container: Any) -> Any:
    """`x[k]` with `k` not known: where every item of `x` is one value, that value (or
    a raise, past the end, which is no value); of a dict of constants, one of its
    values. A machine's per-device values are (values.EachDevice: `FLAGS =
    tuple(cap(i)[0] >= 8 for i in range(n))`, read as `FLAGS[t.device.index]`), and so
    is a known tuple or list of equal items. Of one of a few values (values.OneOf), each
    one's, an option with no item at all (None, `()`) raising there. An index is read
    as an integer: a slice is spelled with a colon."""
    if isinstance(container, OneOf):
        if not all(is_option(o) for o in container.options):
            return UNKNOWN
        items = []
        for option in container.options:
            if option is None or (isinstance(option, (tuple, list, str)) and not option):
                continue  # raises whatever the index
            item = _item_at_any_index(option)
            if item is UNKNOWN:
                return UNKNOWN
            items.append(item)
        return either(items) if items else UNKNOWN
    if isinstance(container, EachDevice):
        return container.item
    if (
        isinstance(container, dict)
        and container
        and all(is_constant(k) for k in container)
        and all(is_option(v) for v in container.values())
    ):
        # `MIN_MAJOR[version]` with the version not read: one of the table's values (a
        # missing key raises, which is no value).
        return either(list(container.values()))
    if isinstance(container, (tuple, list)) and container and not contains_unknown(container):
        first = container[0]
        if all(_identical(first, other) for other in container[1:]):
            return first
    return UNKNOWN


def _identical(a: Any, b: Any) -> bool:
    """One value, not merely equal ones (`True == 1`, `(1,) == Capability(...)`)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_identical(x, y) for x, y in zip(a, b, strict=True))
    return bool(safe(lambda: a == b) is True)


def filled_item(ev: Evaluator, table: nodes.NodeNG, env: Env | None) -> tuple[Any, ...] | None:
    """The values an item read of `table` may give, where it is a module's dict that
    functions fill item by item (mutations.filled_table); None otherwise."""
    if not isinstance(table, nodes.Name) or (env is not None and table.name in env):
        return None
    if table.name in ev.flag_values:
        return None
    return filled_table(ev, table)


def _if_exp(ev: Evaluator, node: nodes.IfExp, env: Env | None) -> Any:
    t = truth(ev.eval(node.test, env))
    if t is UNKNOWN:
        filled = none_filled_choice(ev, node, env)
        if filled is not None:
            return filled
        return either((ev.eval(node.body, env), ev.eval(node.orelse, env)))
    branch = node.body if t else node.orelse
    noted = ev.raising
    mark = len(noted)
    value = ev.eval(branch, env)
    if len(noted) > mark and raises_in(branch, noted[mark:]):
        noted.append(node)  # the branch the test certainly takes raises (diverging.py)
    return value


def _named_expr(ev: Evaluator, node: nodes.NamedExpr, env: Env | None) -> Any:
    value = ev.eval(node.value, env)
    if env is not None:
        env[node.target.name] = value
    return value


def _lambda(ev: Evaluator, node: nodes.Lambda, env: Env | None) -> Any:
    return FunctionRef(node)


def _comprehension(
    ev: Evaluator, node: nodes.GeneratorExp | nodes.ListComp | nodes.SetComp, env: Env | None
) -> Any:
    """`any(arch in name for arch in ["gfx90a", "gfx942"])`: one `for` over a known
    list, tuple or string, its `if`s known for every item: the items as a tuple (a
    list for a list comprehension), as far as each is known. A target of several names
    unpacks each known tuple (`for major, _ in [cap(0), cap(1)]`, a table of pairs).
    Several `for`s (`{a for record in TABLE.values() for a in record["arches"]}`), each
    over a known sequence: every item, in order, as far as each is known, the loops
    binding at most _MAX_COMPREHENSION items in all. Anything else: unknown."""
    kind: type = tuple
    if isinstance(node, (nodes.ListComp, nodes.SetComp)):
        kind = list if isinstance(node, nodes.ListComp) else set
    if len(node.generators) > 1:
        return _nested(ev, kind, node.generators, node.elt, env)
    loop = node.generators[0]
    if loop.is_async:
        return UNKNOWN
    return comprehended(ev, kind, loop.target, loop.iter, node.elt, loop.ifs, env)


_DICT_VIEWS: tuple[type, ...] = (type({}.keys()), type({}.values()), type({}.items()))


def _viewed(items: Any) -> Any:
    """A dict's keys, values or items as the tuple a `for` runs over (`for record in
    TABLE.values()`); anything else as it is."""
    return tuple(cast(Iterable[Any], items)) if isinstance(items, _DICT_VIEWS) else items


def _collected(kind: type, values: list[Any]) -> Any:
    """A comprehension's values as its kind builds them (list, set or tuple)."""
    if kind is list:
        return values
    if kind is set:
        return SetItems(values) if contains_unknown(values) else safe(lambda: set(values))
    return tuple(values)


def _known_items(items: Any) -> tuple[Any, ...] | None:
    """The items a `for` runs over, where they are all known: a tuple, list or string,
    or a dict's keys, values or items (`TABLE.values()`)."""
    items = _viewed(items)
    if not isinstance(items, (tuple, list, str)) or contains_unknown(items):
        return None
    return tuple(items)


def _nested(
    ev: Evaluator,
    kind: type,
    generators: Sequence[nodes.Comprehension],
    elt: nodes.NodeNG,
    env: Env | None,
) -> Any:
    values: list[Any] = []
    visited = [0]  # items bound, at every level: at most _MAX_COMPREHENSION in all

    def walk(depth: int, scope: Env) -> bool:
        if depth == len(generators):
            values.append(ev.eval(elt, scope))
            return True
        loop = generators[depth]
        if loop.is_async or not isinstance(loop.target, (nodes.AssignName, nodes.Tuple)):
            return False
        items = _known_items(ev.eval(loop.iter, scope))
        if items is None:
            return False
        visited[0] += len(items)
        if visited[0] > _MAX_COMPREHENSION:
            return False
        for item in items:
            inner = dict(scope)
            bind_target(loop.target, item, inner)
            keep = True
            for test in loop.ifs:
                verdict = truth(ev.eval(test, inner))
                if verdict is UNKNOWN:
                    return False
                keep = keep and bool(verdict)
            if keep and not walk(depth + 1, inner):
                return False
        return True

    if not walk(0, dict(env or {})):
        return UNKNOWN
    return _collected(kind, values)


def comprehended(
    ev: Evaluator,
    kind: type,
    target: nodes.NodeNG,
    iterated: nodes.NodeNG,
    elt: nodes.NodeNG,
    ifs: Sequence[nodes.NodeNG],
    env: Env | None,
    prelude: Prelude = (),
) -> Any:
    """What `kind(elt for target in iterated if ...)` gives (a list, set or tuple; a
    `for` loop appending to a list is one too: appended.py, whose iterations may first
    bind locals, `prelude`'s (target, value) pairs in order, read with the loop's target
    bound, before `elt`)."""
    if not isinstance(target, (nodes.AssignName, nodes.Tuple)):
        return UNKNOWN
    items = _viewed(ev.eval(iterated, env))
    if isinstance(items, OneOf):
        found = _over_options(ev, kind, target, items, elt, ifs, env, prelude)
        if found is not None:
            return found
    return _over_items(ev, kind, target, items, elt, ifs, env, prelude)


def _over_options(
    ev: Evaluator,
    kind: type,
    target: nodes.NodeNG,
    items: OneOf,
    elt: nodes.NodeNG,
    ifs: Sequence[nodes.NodeNG],
    env: Env | None,
    prelude: Prelude,
) -> Any | None:
    """Over one of a few sequences (a helper giving the devices' capabilities, or `[]`
    where its query raised: unsloth's `cuda_visible_capabilities()`): the comprehension
    over each, one of the results (`c[0] for c in caps` is `()` or each device's major);
    None where an option is not a sequence read so, or its result is not known (read
    as before: over a sequence not known)."""
    if not all(is_option(o) for o in items.options):
        return None
    found = []
    for option in items.options:
        result = _over_items(ev, kind, target, option, elt, ifs, env, prelude)
        if result is UNKNOWN or not is_option(result):
            return None
        found.append(result)
    return either(found)


def _over_items(
    ev: Evaluator,
    kind: type,
    target: nodes.NodeNG,
    items: Any,
    elt: nodes.NodeNG,
    ifs: Sequence[nodes.NodeNG],
    env: Env | None,
    prelude: Prelude,
) -> Any:
    # Over a set of known items (sglang's `frozenset({CapabilityRequirement.cuda(...)})`):
    # in the hash order, which only a set built from the values can keep to.
    unordered = isinstance(items, (set, frozenset)) and not contains_unknown(list(items))
    if unordered:
        items = tuple(items)
    if not isinstance(target, nodes.AssignName):
        # `major * 10 + minor for major, minor in caps`: over the devices, or over a
        # known list of known tuples (`[cap(0), cap(1)]`), each unpacked.
        if isinstance(items, EachDevice):
            return _over_devices(ev, target, elt, ifs, items, env, prelude)
        if not isinstance(items, (tuple, list)) or contains_unknown(items):
            return UNKNOWN
    if not isinstance(items, (tuple, list, str)) or contains_unknown(items):
        found = _over_devices(ev, target, elt, ifs, items, env, prelude)
        if kind is set and isinstance(found, EachDevice):
            return one_value_set(found)  # a machine's devices give one value
        return found
    if len(items) > _MAX_COMPREHENSION:
        return UNKNOWN
    values: list[Any] = []
    for item in items:
        inner = dict(env or {})
        bind_target(target, item, inner)
        _bind_prelude(ev, prelude, inner)
        keep = True
        for test in ifs:
            verdict = truth(ev.eval(test, inner))
            if verdict is UNKNOWN:
                return UNKNOWN
            keep = keep and verdict
        if keep:
            values.append(ev.eval(elt, inner))
    if unordered and len(items) > 1 and kind is not set:
        return SetItems(values)  # the items, in no known order (any() and all() read them)
    return _collected(kind, values)


def _over_devices(
    ev: Evaluator,
    target: nodes.NodeNG,
    elt: nodes.NodeNG,
    ifs: Sequence[nodes.NodeNG],
    items: Any,
    env: Env | None,
    prelude: Prelude = (),
) -> Any:
    """An item per device: `get_device_capability(i) for i in range(device_count())`,
    over a sequence not known, whose item uses the loop's name and is read from the
    device, known though the name is not (every device of the machine gives it); or
    any unfiltered comprehension over such a sequence (`x >= 100 for x in caps`).
    Either is values.EachDevice of its item; anything else is unknown. `prelude`:
    bound first in each iteration (a loop appending: appended.py)."""
    if ifs:
        return UNKNOWN
    inner = dict(env or {})
    read = [elt, *(value for _, value in prelude)]
    if isinstance(items, EachDevice):
        bind_target(target, items.item, inner)
    elif isinstance(target, nodes.AssignName) and any(
        n.name == target.name for part in read for n in part.nodes_of_class(nodes.Name)
    ):
        inner[target.name] = UNKNOWN
    else:
        return UNKNOWN
    with ev.tracking() as reads:
        _bind_prelude(ev, prelude, inner)
        item = ev.eval(elt, inner)
    if contains_unknown(item) or not (reads.device or isinstance(items, EachDevice)):
        return UNKNOWN
    return EachDevice(item)


def _bind_prelude(ev: Evaluator, prelude: Prelude, env: Env) -> None:
    """An iteration's own assignments before its item, in order (`major, minor =
    get_device_capability(i)`), each read with what the ones before bound."""
    for target, value in prelude:
        bind_target(target, ev.eval(value, env), env)


def _str(value: Any) -> Any:
    return safe(lambda: str(value))  # a huge int's str() raises (digit limit)


def _fstring(ev: Evaluator, node: nodes.JoinedStr, env: Env | None) -> Any:
    """f"{major * 10 + minor}" style arch strings: known when every part is. Else, with
    literal text, some string at least that long (values.SomeText: the validator's
    `f"needs sm90, found {name}"` is never "", so `err() == ""` is known)."""
    parts: list[str] = []
    for value in node.values:
        if isinstance(value, nodes.Const):
            parts.append(str(value.value))
            continue
        text = _formatted(ev, value, env)
        if text is UNKNOWN:
            least = sum(len(str(v.value)) for v in node.values if isinstance(v, nodes.Const))
            return SomeText(least, "".join(parts)) if least else UNKNOWN
        parts.append(text)
    joined = "".join(parts)
    if len(joined) > bounds.MAX_LENGTH:
        ev.reads.bounds.add(bounds.CONSTANT_TOO_LARGE)
        return UNKNOWN
    return joined


def _formatted(ev: Evaluator, value: nodes.NodeNG, env: Env | None) -> Any:
    """A field's text, where its value is a known str, number or bool written plainly."""
    if not isinstance(value, nodes.FormattedValue) or value.format_spec is not None:
        return UNKNOWN
    inner = ev.eval(value.value, env)
    if contains_unknown(inner) or value.conversion not in (-1, None, 115):
        return UNKNOWN
    if not isinstance(inner, (int, str, float, bool)) or inner is None:
        return UNKNOWN
    return _str(inner)


HANDLERS: dict[type, Handler] = {
    nodes.Const: _const,
    nodes.Name: _name,
    nodes.Attribute: _attribute,
    nodes.BoolOp: _bool_op,
    nodes.UnaryOp: _unary_op,
    nodes.Compare: _compare,
    nodes.BinOp: _bin_op,
    nodes.Call: _call,
    nodes.Tuple: _tuple,
    nodes.List: _list,
    nodes.Set: _set,
    nodes.Dict: _dict,
    nodes.Subscript: _subscript,
    nodes.IfExp: _if_exp,
    nodes.NamedExpr: _named_expr,
    nodes.Lambda: _lambda,
    nodes.GeneratorExp: _comprehension,
    nodes.ListComp: _comprehension,
    nodes.SetComp: _comprehension,
    nodes.JoinedStr: _fstring,
    **dict.fromkeys(patterns.PATTERNS, patterns.case_pattern),
}


def unknown(ev: Evaluator, node: nodes.NodeNG, env: Env | None) -> Any:
    """The value of a node no handler reads."""
    return UNKNOWN


def by_node_class(handlers: dict[type, Any], default: Any) -> dict[type, Any]:
    """`handlers` completed for every astroid node class: a subclass of a handled class
    (AsyncFor, AsyncFunctionDef) takes its base's handler, as an isinstance test would."""
    table: dict[type, Any] = {}
    for kind in nodes.ALL_NODE_CLASSES:
        if isinstance(kind, type):
            table[kind] = next((handlers[k] for k in kind.__mro__ if k in handlers), default)
    return table


TABLE: dict[type, Handler] = by_node_class(HANDLERS, unknown)


def evaluate(ev: Evaluator, node: nodes.NodeNG, env: Env | None) -> Any:
    return TABLE.get(type(node), unknown)(ev, node, env)
