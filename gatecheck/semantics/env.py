"""Environments of a function body: bind targets, merge branches, narrow on None."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from astroid import nodes

from gatecheck.semantics.logic import join_optional
from gatecheck.semantics.values import UNKNOWN, NoneOr, truth

Env = dict[str, Any]


def index_path(value: Any, path: Sequence[int]) -> Any:
    for index in path:
        if value is UNKNOWN:
            return UNKNOWN
        try:
            value = value[index]
        except Exception:
            return UNKNOWN
    return value


def bind_target(target: nodes.NodeNG, value: Any, env: Env) -> None:
    if isinstance(target, nodes.AssignName):
        env[target.name] = value
    elif isinstance(target, (nodes.Tuple, nodes.List)):
        for index, element in enumerate(target.elts):
            if isinstance(element, nodes.Starred):
                bind_target(element.value, UNKNOWN, env)
                continue
            bind_target(element, index_path(value, [index]), env)


def forget_assigned(stmt: nodes.NodeNG, env: Env) -> None:
    for name_node in stmt.nodes_of_class(nodes.AssignName):
        env[name_node.name] = UNKNOWN


def forget_assigned_in(body: Sequence[nodes.NodeNG], env: Env) -> None:
    for stmt in body:
        forget_assigned(stmt, env)


def merge_into(env: Env, branches: Sequence[Env]) -> None:
    keys = set().union(*branches) if branches else set()
    for key in keys:
        values = [b.get(key, UNKNOWN) for b in branches]
        merged = values[0]
        for v in values[1:]:
            merged = join_optional(merged, v)
        env[key] = merged


def narrowed(test: nodes.NodeNG, env: Env) -> tuple[Env, Env] | None:
    """`if x is not None:` (`is None`, `x`, `not x`) on a local holding NoneOr: the
    branch where x is its value and the branch where it is None, as two environments."""
    negate = False
    if isinstance(test, nodes.UnaryOp) and test.op == "not":
        test, negate = test.operand, True
    by_truth = True
    if isinstance(test, nodes.Compare) and len(test.ops) == 1:
        op, right = test.ops[0]
        if op not in ("is", "is not") or not (
            isinstance(right, nodes.Const) and right.value is None
        ):
            return None
        negate ^= op == "is"
        test, by_truth = test.left, False
    held = env.get(test.name) if isinstance(test, nodes.Name) else None
    if not isinstance(held, NoneOr):
        return None
    if by_truth and truth(held.value) is not True:
        return None  # a falsy value (0, "") takes the None branch too
    present, absent = dict(env), dict(env)
    present[test.name], absent[test.name] = held.value, None
    return (absent, present) if negate else (present, absent)
