"""What one binding (a def, a class, an assignment, a parameter) gives its name,
memoized per binding: module constants and aliases are evaluated once per run."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from astroid import nodes

from gatecheck.loading.resolve import decorator_names, destructure_path
from gatecheck.semantics import callers, constructions, conventions, dispatch, replay
from gatecheck.semantics.env import index_path, loop_target
from gatecheck.semantics.expressions import may_be_none
from gatecheck.semantics.mutations import filled_at_import, holds_container, may_change
from gatecheck.semantics.reads import NOTHING, enter, leave
from gatecheck.semantics.subclasses import RECEIVER
from gatecheck.semantics.values import UNKNOWN, ClassRef, FunctionRef

if TYPE_CHECKING:
    from gatecheck.semantics.evaluator import Evaluator


def binding_value(ev: Evaluator, node: nodes.NodeNG) -> Any:
    return memoized(ev, id(node), _value_of, node)


def memoized(ev: Evaluator, key: Any, compute: Callable[[Evaluator, Any], Any], arg: Any) -> Any:
    """compute(ev, arg), kept in the binding memo under `key` with what it read (replayed on a
    hit, traced for the other generations: replay.py); a cycle back to `key` reads as
    unknown, and an entry computed past such a cut is used only where it holds
    (reads.py)."""
    memo = ev.binding_memo.get(key)
    trace = ev.trace
    if memo is not None:
        value, recorded = memo
        if recorded is NOTHING or recorded.holds(ev.active, ev.depth) or ev.epoch.spent():
            if trace is not None:
                trace.append((replay.BINDING, key, memo))
            if recorded is not NOTHING:  # absorbing it changes nothing
                ev.reads.absorb(recorded)
            return value
        if trace is not None:
            trace.append((replay.BINDING, key, None))  # not the answer here: a miss
    if key in ev.active:
        ev.reads.cut_at(key, ev.active[key])
        return UNKNOWN
    activation = enter(ev, key)
    try:
        with ev.tracking() as reads:
            value = compute(ev, arg)
            reads.close(key, activation)
        frozen = reads.frozen(ev.depth)
        ev.binding_memo.put(key, value, frozen)
        if trace is not None:
            trace.append(replay.added(replay.BINDING, key, value, frozen))
        return value
    finally:
        leave(ev, key, activation)


def _value_of(ev: Evaluator, node: nodes.NodeNG) -> Any:
    if isinstance(node, nodes.FunctionDef):
        # Decorators are read as transparent: caching (lru_cache), registration and
        # compile wrappers keep what the body computes.
        return FunctionRef(node)
    if isinstance(node, nodes.ClassDef):
        return ClassRef(node)
    if isinstance(node, (nodes.AssignName, nodes.AssignAttr)):
        return _assigned(ev, node)
    return UNKNOWN  # imports are the resolver's (resolve.binding_of)


def _assigned(ev: Evaluator, node: nodes.AssignName | nodes.AssignAttr) -> Any:
    value = _assigned_value(ev, node)
    if holds_container(value) and may_change(ev, node):
        # Filled or changed after it is made (mutations.py): unknown, unless only the
        # module's own statements fill it.
        filled = filled_at_import(ev, node, value)
        return UNKNOWN if filled is None else filled
    return value


def _assigned_value(ev: Evaluator, node: nodes.AssignName | nodes.AssignAttr) -> Any:
    parent = node.parent
    while isinstance(parent, (nodes.Tuple, nodes.List, nodes.Starred)):
        parent = parent.parent
    if _under_type_checking(ev, parent):
        # Declarations for type checkers (vllm's envs, current_platform): the
        # runtime value comes from elsewhere. An instance of a project class: the one
        # serving the device (dispatch.py). Any other name of the module's top level
        # is not bound when it runs: its `__getattr__` is asked, where it has one
        # (vLLM's `envs.VLLM_FLASH_ATTN_VERSION`, each a lambda reading the environment).
        annotation = getattr(parent, "annotation", None)
        declared = None if annotation is None else ev.eval(annotation, None)
        if isinstance(declared, ClassRef):
            return dispatch.declared(ev, declared.node)
        scope = parent.scope()
        if isinstance(scope, nodes.Module) and isinstance(node, nodes.AssignName):
            hook = getattr_hook(scope, str(node.name))
            if hook is not None:
                return ev.invoke(FunctionRef(hook), [str(node.name)], {})
        return UNKNOWN
    if isinstance(parent, nodes.Assign):
        found = (destructure_path(t, node) for t in parent.targets)
        path = next((p for p in found if p is not None), None)
        if path is None:
            return UNKNOWN
        if isinstance(node, nodes.AssignName) and _in_function(parent):
            # A local keeps a result that may be None (NoneOr: expressions read it as
            # unknown, and as its value where None would raise); unpacking None raises,
            # so `major, minor = probe()` are the probe's items (index_path).
            return index_path(may_be_none(ev, parent.value), path)
        return index_path(ev.eval(parent.value, None), path)
    if isinstance(parent, nodes.AnnAssign):
        if parent.value is not None:
            return ev.eval(parent.value, None)
        # `current_platform: Platform` (TYPE_CHECKING declarations): an instance.
        annotated = ev.eval(parent.annotation, None)
        return dispatch.declared(ev, annotated.node) if isinstance(annotated, ClassRef) else UNKNOWN
    if isinstance(parent, nodes.NamedExpr):
        return ev.eval(parent.value, None)
    if isinstance(parent, nodes.Arguments):
        return _parameter_value(ev, node, parent)
    if isinstance(parent, nodes.For) and isinstance(node, nodes.AssignName):
        return _loop_target_value(ev, node, parent)
    return UNKNOWN


def _loop_target_value(ev: Evaluator, node: nodes.AssignName, loop: nodes.For) -> Any:
    """A `for` target over a known list or tuple (env.loop_items): one of the items, as
    the statement walk reads it (env.loop_target; over the machine's devices, a device's
    item: `for cap in caps: if cap < (8, 0): raise`), for a condition read in the loop's body
    where no walk binds it (the audit's): xFormers looks its device up in a table of
    records, `for lim in LIMITS: if lim.sm == device_sm`, true where some record's `sm`
    can be the device's. Each iteration binds the target before its body runs, and a
    non-empty loop leaves it one of the items, so the value holds after the loop too.
    Unknown when the body binds the name again (`while ...: if k > c: ...; k = 5` reads
    5 on the inner loop's next turn, which the lookup does not tell) or deletes it."""
    path = destructure_path(loop.target, node)
    if path is None or _rebound_in_body(ev, node, loop):
        return UNKNOWN
    return index_path(loop_target(ev.eval(loop.iter, None)), path)


def _rebound_in_body(ev: Evaluator, node: nodes.AssignName, loop: nodes.For) -> bool:
    """Whether the loop's body (nested scopes too: `nonlocal`) binds or deletes the
    target's name; found once per loop and name."""
    key = ("loop-rebound", id(loop), node.name)
    found = ev.facts.get(key)
    if found is None:
        found = ev.facts[key] = any(
            bound.name == node.name
            for statement in loop.body
            for bound in statement.nodes_of_class((nodes.AssignName, nodes.DelName))
        )
    return bool(found)


def keywords_parameter_value(ev: Evaluator, args: nodes.Arguments) -> Any:
    """A `**fields` parameter read where no call bound it: the keywords its callers pass
    that no other parameter takes (callers.py), as a dict; else unknown. (astroid binds
    the name to the parameters' node, and its own node's parent is the function.)"""
    return memoized(ev, ("keywords-parameter", id(args)), _keywords_parameter, args)


def _keywords_parameter(ev: Evaluator, args: nodes.Arguments) -> Any:
    # The callers alone: no naming convention makes a dict of keywords a device value.
    if args.kwarg_node is None:
        return UNKNOWN
    found = callers.parameter_from_callers(ev, args.kwarg_node, args)
    return UNKNOWN if found is callers.NOT_FOUND else found


def _parameter_value(ev: Evaluator, node: nodes.NodeNG, args: nodes.Arguments) -> Any:
    func = args.parent
    positional = list(args.posonlyargs) + list(args.args)
    if (
        isinstance(func, nodes.FunctionDef)
        and positional
        and positional[0] is node
        and isinstance(func.parent, nodes.ClassDef)
    ):
        decorators = decorator_names(func)
        if "staticmethod" in decorators:
            # No receiver: its first parameter is an argument like the others
            # (`_normalize_cuda_arch(major, minor)`, what its callers pass).
            return conventions.parameter_by_convention(ev, node, args)
        if "classmethod" in decorators:
            # The class it runs for, when the question names one (subclasses.py).
            chosen = ev.flag_values.get(RECEIVER)
            if chosen is not None and chosen[0] is func:
                return ClassRef(chosen[1])
            return ClassRef(func.parent)
        # The construction it is read for, when the question names one (constructions.py).
        return constructions.instance_for(ev.flag_values, func)
    return conventions.parameter_by_convention(ev, node, args)


def getattr_hook(module: nodes.Module, attr: str) -> nodes.FunctionDef | None:
    """The module's `__getattr__` (PEP 562), which Python asks for a name the module does
    not bind (one `def` at its top level), read with the name (DeepSpeed's
    `deepspeed.HAS_TRITON`, made on first use); None where it has none, and for a
    dunder, which Python does not ask it for."""
    if attr.startswith("__") and attr.endswith("__"):
        return None
    hook = module.locals.get("__getattr__")
    if not hook or len(hook) != 1 or not isinstance(hook[0], nodes.FunctionDef):
        return None
    return hook[0]


def _in_function(node: nodes.NodeNG) -> bool:
    return isinstance(node.scope(), (nodes.FunctionDef, nodes.AsyncFunctionDef))


def _under_type_checking(ev: Evaluator, node: nodes.NodeNG) -> bool:
    """under_type_checking(node), found once per statement: a binding is evaluated once
    per generation that reads the device, and `as_string` of each `if` test around it
    costs more than the rest of the binding."""
    key = ("type-checking", id(node))
    found = ev.facts.get(key)
    if found is None:
        found = ev.facts[key] = under_type_checking(node)
    return bool(found)


def under_type_checking(node: nodes.NodeNG) -> bool:
    """Whether `node` sits in the body of an `if ...TYPE_CHECKING:` of its own function
    or module."""
    child, parent = node, node.parent
    while parent is not None and not isinstance(parent, (nodes.Module, nodes.FunctionDef)):
        if (
            isinstance(parent, nodes.If)
            and child in parent.body
            and parent.test.as_string().endswith("TYPE_CHECKING")
        ):
            return True
        child, parent = parent, parent.parent
    return False
