"""Plan the smallest edit that makes one failing gate admit its missing generations, in
the idiom the module already uses (pyupgrade's `replace_condition`: insert, don't reprint).

A plan is data: a list of Edits plus what the fix adds. Which edit is the job of the
strategies (gatecheck/fixing/strategies/, one shape each); shapes none fully understands
get a refusal with the reason, never a guess."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from astroid import nodes

from gatecheck.findings import Edit
from gatecheck.fixing.strategies import extend
from gatecheck.fixing.strategies.base import (
    Context,
    Refuse,
    allowed_extra,
    flags_of,
    merged,
    within,
)
from gatecheck.fixing.text import RawText
from gatecheck.gates.model import Polarity
from gatecheck.gates.results import Analysis, GateResult
from gatecheck.semantics.culprit import culprit

__all__ = ["Plan", "Refusal", "allowed_extra", "plan_fix"]


@dataclass(frozen=True)
class Plan:
    path: Path
    edits: tuple[Edit, ...]
    # Generations the edited gate may admit in addition (the request plus what the added
    # operand brings along, e.g. sm121 with is_sm120_supported).
    adds: frozenset[str]
    summary: str


@dataclass(frozen=True)
class Refusal:
    reason: str


def plan_fix(analysis: Analysis, result: GateResult, *, force: bool = False) -> Plan | Refusal:
    gate = result.gate
    module = gate.condition.root()
    source = analysis.project.source(gate.path)
    # A gate is found in a module built from its source.
    assert isinstance(module, nodes.Module) and source is not None, gate.path
    raw = RawText(source.path, source.raw, source.encoding)
    ctx = Context(analysis, result, module, raw, result.missing, force)
    try:
        target = _target(ctx)
        ctx = ctx.widening(target)
        before = ctx.baseline
        fix = extend(ctx, target)
    except Refuse as refusal:
        return Refusal(str(refusal))
    # Read where the edit is, not in the whole gate (an `is_cuda() and` around it may
    # keep AMD out): only an upper bound. The re-analysis after the edit (fixer._verify)
    # checks what the gate really gains against it.
    gained = (fix.adds - before) & within(ctx)
    # One file: Context.at moves the whole fix to the module the allowlist is in.
    return Plan(ctx.edits[0].path, tuple(merged(ctx.edits)), gained, fix.summary)


def _target(ctx: Context) -> nodes.NodeNG:
    """The sub-expression that shuts the first missing generation out; for a disabling
    gate (`if not X: bail`), the X that must admit it."""
    gate = ctx.result.gate
    first = ctx.semantics.registry.ordered(ctx.missing)[0]
    evaluator = ctx.semantics.evaluator(first, flags_of(ctx))
    needs_true = gate.polarity is Polarity.ENABLES
    target = culprit(gate.condition, evaluator, needs=needs_true)
    if needs_true:
        return target
    if isinstance(target, nodes.UnaryOp) and target.op == "not":
        return target.operand  # `if not X: bail` -> X must admit the generation
    raise Refuse(
        f"disabling gate shape `{target.as_string()}` is not understood: "
        "only `not <predicate>` bail-outs are fixed automatically"
    )
