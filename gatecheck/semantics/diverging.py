"""Calls that certainly raise on this generation end the path that makes them.

A function whose every path raises on a generation (`raise NotImplementedError(f"sm{major}")`
after the supported majors returned, an `if not is_sm90_or_later(): raise` before the
only `return`) has no value there: a condition that calls it in a position Python always
evaluates is neither true nor false on that generation, and the statement holding such a
call ends its path as a `raise` does. Read as UNKNOWN, the raising generations made
`get_arch() == "sm90"` admit every generation the helper rejects (sm120 among them, where
the helper was written before it): the gap the audit is for, hidden.

How (no value of the algebra changes): statements.run_body gives values.RAISES where no
path returns or falls through; calls._call_function keeps it only where the body read the
device and calling the function runs its body (not a generator or a coroutine); calls.call
hands the caller UNKNOWN and notes the call node in `Evaluator.raising`. A statement
(statements.exec_block) or a condition (Semantics._truths) then asks whether a call noted
while it was evaluated sits in one of its positions always evaluated (`always_evaluated`):
an operand of arithmetic, a comparison's first two operands, a `not`, the first operand of
`and` / `or`, the test of `x if c else y`, a call's function and arguments, a display's
items; of a statement its returned or assigned value, its test or its loop's iterable. A
branch, a later operand of `and` / `or`, a comprehension's body or a lambda may not run;
where the evaluation certainly took the branch or reached the operand (what decides it is
known: `IS_ROCM or get_arch() == "sm90"` on NVIDIA), expressions._if_exp and _operands note
the IfExp or BoolOp itself.
A statement inside a `with` body is not ended (a context manager may swallow the
exception: `contextlib.suppress`); one inside a `try` body is, and the handlers run, as
for a `raise`.

A body that raises on every generation alike never reads as RAISES (the device is not
read: an unconditional `raise`), nor does an abstract one (conventions.py); and a
condition raising on every generation reads as UNKNOWN everywhere (Semantics._truths):
the calls were perhaps not the ones that run (a method's override).
"""

from __future__ import annotations

from collections.abc import Sequence

from astroid import nodes

# Statement -> the child of it evaluated before anything else it does.
_STATEMENT_PARTS: dict[type, str] = {
    nodes.Return: "value",
    nodes.Assign: "value",
    nodes.AugAssign: "value",
    nodes.AnnAssign: "value",
    nodes.Expr: "value",
    nodes.If: "test",
    nodes.While: "test",
    nodes.Assert: "test",
    nodes.For: "iter",
}

# Expressions every child of which is evaluated whenever they are.
_ALL_CHILDREN = (
    nodes.Call,
    nodes.Attribute,
    nodes.Subscript,
    nodes.BinOp,
    nodes.UnaryOp,
    nodes.Tuple,
    nodes.List,
    nodes.Set,
    nodes.Dict,
    nodes.Starred,
    nodes.Keyword,
    nodes.JoinedStr,
    nodes.FormattedValue,
    nodes.Slice,
    nodes.NamedExpr,
)


def _always_evaluated_child(parent: nodes.NodeNG, child: nodes.NodeNG) -> bool:
    if isinstance(parent, _ALL_CHILDREN):
        return True
    if isinstance(parent, nodes.BoolOp):
        return bool(parent.values) and parent.values[0] is child
    if isinstance(parent, nodes.Compare):
        return parent.left is child or (bool(parent.ops) and parent.ops[0][1] is child)
    if isinstance(parent, nodes.IfExp):
        return parent.test is child
    part = _STATEMENT_PARTS.get(type(parent))
    return part is not None and getattr(parent, part, None) is child


def always_evaluated(node: nodes.NodeNG, root: nodes.NodeNG) -> bool:
    """Whether evaluating `root` (an expression, or one of the statements above) always
    evaluates `node`, one of its descendants."""
    while node is not root:
        parent = node.parent
        if parent is None or not _always_evaluated_child(parent, node):
            return False
        node = parent
    return True


def raises_in(root: nodes.NodeNG, noted: Sequence[nodes.NodeNG]) -> bool:
    """Whether one of the calls noted while `root` was evaluated (certainly raising on
    this generation) is always evaluated by it."""
    return any(always_evaluated(call, root) for call in noted)


def ends_path(statement: nodes.NodeNG, noted: Sequence[nodes.NodeNG]) -> bool:
    """Whether `statement` certainly raises by a call noted while it ran, and so ends
    its path: not inside a `with` body of its function (see the module's docstring)."""
    return raises_in(statement, noted) and not _in_with_body(statement)


def _in_with_body(statement: nodes.NodeNG) -> bool:
    node = statement
    parent = node.parent
    while parent is not None and not isinstance(
        parent, (nodes.FunctionDef, nodes.Lambda, nodes.ClassDef, nodes.Module)
    ):
        if isinstance(parent, nodes.With) and node in parent.body:
            return True
        node, parent = parent, parent.parent
    return False
