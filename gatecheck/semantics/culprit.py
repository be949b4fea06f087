"""Which sub-expression of a condition shuts a generation out: the allowlist to point at
(and to extend), not the whole `and` chain."""

from __future__ import annotations

from astroid import nodes

from gatecheck.semantics.evaluator import Evaluator


def culprit(condition: nodes.NodeNG, evaluator: Evaluator, needs: bool) -> nodes.NodeNG:
    """The smallest sub-expression that forces `condition` away from `needs` for the
    evaluator's generation (needs=True: the condition must be able to be true)."""
    node = condition
    while True:
        if isinstance(node, nodes.BoolOp):
            blocking_op = "and" if needs else "or"
            if node.op == blocking_op:
                # One operand decides: the first one stuck at the wrong value.
                stuck = [v for v in node.values if evaluator.truth(v) is (not needs)]
                if not stuck:
                    return node
                node = stuck[0]
                continue
            return node  # every alternative is stuck: the allowlist itself
        if isinstance(node, nodes.UnaryOp) and node.op == "not":
            return node
        return node
