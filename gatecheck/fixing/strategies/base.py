"""What every fix strategy shares: the context of one failing gate, the refusal, and the
few ways to touch source text (insert after a node, append to a literal keeping its
layout), plus the one way to ask what a candidate operand would admit."""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import astroid
from astroid import nodes

from gatecheck.findings import Edit
from gatecheck.fixing.text import RawText
from gatecheck.gates.model import GateKind
from gatecheck.gates.results import Analysis, GateResult, flag_assumptions
from gatecheck.semantics.admitted import Semantics


class Refuse(Exception):
    """The shape is this strategy's, but it cannot be widened safely: the reason says why."""


@dataclass(frozen=True)
class Fix:
    # What the edit makes the edited sub-expression admit (an added operand: what that
    # operand admits); the planner subtracts what it admitted before.
    adds: frozenset[str]
    summary: str


@dataclass
class Context:
    analysis: Analysis
    result: GateResult
    module: nodes.Module
    raw: RawText
    missing: frozenset[str]
    # --force: also widen lists that say what a kernel is built for.
    force: bool = False
    edits: list[Edit] = field(default_factory=list)
    # What the sub-expression being widened admits already: a candidate is judged by
    # what it adds to that (`p.is_cuda() and (<here>)` keeps AMD out either way).
    baseline: frozenset[str] = frozenset()

    @property
    def semantics(self) -> Semantics:
        return self.analysis.semantics

    @property
    def excluded(self) -> set[str]:
        return set(self.result.feature.exclude)

    def at(self, node: nodes.NodeNG) -> Context:
        """The same fix, continued in the module that holds `node` (a helper's body may
        live in another module than the gate that calls it)."""
        module = node.root()
        if module is self.module:
            return self
        # The semantics follow names into scanned modules only, each built from its source.
        assert isinstance(module, nodes.Module) and module.file, module
        source = self.analysis.project.source(Path(module.file))
        assert source is not None, module.file
        raw = RawText(source.path, source.raw, source.encoding)
        return dataclasses.replace(self, module=module, raw=raw)

    def widening(self, target: nodes.NodeNG) -> Context:
        """This context, about to widen `target`: what it admits is the baseline (a
        declaration's list: what the declaration admits; the list itself is no condition)."""
        if self.result.gate.kind is GateKind.DECLARATION:
            return dataclasses.replace(self, baseline=self.result.feature_admits)
        admits = self.semantics.admission(target, flags_of(self)).can_be_true
        return dataclasses.replace(self, baseline=admits)


Strategy = Callable[[Context, nodes.NodeNG], "Fix | None"]


# -- what a candidate admits ---------------------------------------------------------------


def candidate_admits(ctx: Context, anchor: nodes.NodeNG, text: str) -> frozenset[str]:
    """Generations for which `text` can be true, read as if written where `anchor` is
    (same scope, same names), through the one per-generation loop (Semantics.admission)."""
    return ctx.semantics.admission(_synthetic(anchor, text), flags_of(ctx)).can_be_true


def flags_of(ctx: Context) -> dict[str, object]:
    return flag_assumptions(ctx.result.feature, ctx.result.gate.polarity)


def _synthetic(anchor: nodes.NodeNG, text: str) -> nodes.NodeNG:
    # In brackets, as it is where it goes: an operand spelled over several lines
    # (`cap()\n    [0] == 9` inside the gate's parentheses) parses there too.
    node = astroid.extract_node(f"({text})")
    if isinstance(anchor, nodes.Module):
        # Module scope: an expression statement after everything the module binds.
        statement = node.parent
        statement.parent = anchor
        line = int(anchor.end_lineno or 10**6) + 1
        placed: list[nodes.NodeNG] = [statement]
    else:
        node.parent = anchor.parent
        line = int(anchor.lineno or 1)
        placed = []
    for each in [*placed, *node.nodes_of_class(nodes.NodeNG)]:
        each.lineno = each.end_lineno = line
    return node


def within(ctx: Context) -> frozenset[str]:
    """What the edited gate may admit: what it did, the missing generations and what
    a fix may bring along with them."""
    return allowed_extra(ctx) | ctx.result.feature_admits | ctx.missing


def allowed_extra(ctx: Context) -> frozenset[str]:
    """What a fix may bring along besides the missing generations: their same-major
    siblings (is_sm120_supported also admits sm121), nothing from another major. Which
    siblings it does bring is the chosen operand's own spelling (`family(120)` brings
    sm121, `== (12, 0)` does not): read from its admitted set, never assumed."""
    registry = ctx.semantics.registry
    majors = {(registry.get(g).vendor, registry.get(g).major) for g in ctx.missing}
    same_major = {g.name for g in registry.generations if (g.vendor, g.major) in majors}
    return frozenset(same_major) - ctx.excluded


def by_major(ctx: Context) -> list[frozenset[str]]:
    """The missing generations grouped by (vendor, major), in registry order."""
    registry = ctx.semantics.registry
    groups: dict[tuple[str, int], set[str]] = {}
    for name in registry.ordered(ctx.missing):
        generation = registry.get(name)
        groups.setdefault((generation.vendor, generation.major), set()).add(name)
    return [frozenset(group) for group in groups.values()]


def merged(edits: Sequence[Edit]) -> list[Edit]:
    """Insertions at one offset (two imports after the same name, two twin aliases
    after the same line) become one, in the order they were made."""
    out: list[Edit] = []
    for edit in edits:
        same = next(
            (i for i, e in enumerate(out) if e.start == e.end == edit.start == edit.end), None
        )
        if same is None:
            out.append(edit)
        elif edit.text not in out[same].text:
            out[same] = dataclasses.replace(out[same], text=out[same].text + edit.text)
    return out


def fits(ctx: Context, admits: frozenset[str]) -> bool:
    """Does a candidate admit the missing generations and, beyond what its place
    admitted already, nothing but what a fix may bring along?"""
    new = admits - ctx.baseline
    return ctx.missing <= admits and new <= within(ctx) and not new & ctx.excluded


def extra_of(ctx: Context, admits: frozenset[str]) -> int:
    return len(admits - ctx.missing - ctx.result.feature_admits - ctx.baseline)


def added(ctx: Context, operands: Sequence[str], anchor: nodes.NodeNG) -> frozenset[str]:
    """What the new operands admit beyond what the gate already let through."""
    gained: set[str] = set()
    for text in operands:
        gained |= candidate_admits(ctx, anchor, text)
    return frozenset(gained) - ctx.result.feature_admits


# -- source text ---------------------------------------------------------------------------


def source_of(ctx: Context, node: nodes.NodeNG) -> str:
    start = ctx.raw.offset(node.lineno, node.col_offset)
    end = ctx.raw.offset(node.end_lineno, node.end_col_offset)
    return ctx.raw.raw[start:end].decode(codec(ctx))


def codec(ctx: Context) -> str:
    return ctx.raw.encoding.replace("-sig", "")


def insert_after(ctx: Context, node: nodes.NodeNG, text: str) -> Edit:
    offset = ctx.raw.offset(node.end_lineno, node.end_col_offset)
    return Edit(ctx.raw.path, offset, offset, text)


def insert_before(ctx: Context, node: nodes.NodeNG, text: str) -> Edit:
    offset = ctx.raw.offset(node.lineno, node.col_offset)
    return Edit(ctx.raw.path, offset, offset, text)


def needs_parens(node: nodes.NodeNG) -> bool:
    """Would `node or X` written in node's place bind differently?"""
    parent = node.parent
    if isinstance(parent, nodes.BoolOp):
        return parent.op == "and"
    return isinstance(
        parent, (nodes.UnaryOp, nodes.Compare, nodes.BinOp, nodes.Subscript, nodes.Attribute)
    )


def add_alternatives(ctx: Context, target: nodes.NodeNG, operands: Sequence[str]) -> None:
    """`a or b` -> `a or b or c`; a lone operand in an `and` chain gets parentheses."""
    text = "".join(f" or {o}" for o in operands)
    lone = not (isinstance(target, nodes.BoolOp) and target.op == "or")
    if not lone and all(
        after.lineno > before.end_lineno for before, after in itertools.pairwise(target.values)
    ):
        # One operand per line: the new ones go on lines of their own, in the same style.
        text = _one_per_line(ctx, target.values[-2], target.values[-1], operands)
    if lone and needs_parens(target):
        ctx.edits.append(insert_before(ctx, target, "("))
        ctx.edits.append(insert_after(ctx, target, f"{text})"))
    else:
        last = target.values[-1] if not lone else target
        ctx.edits.append(insert_after(ctx, last, text))


def _one_per_line(
    ctx: Context, before: nodes.NodeNG, last: nodes.NodeNG, operands: Sequence[str]
) -> str:
    start = ctx.raw.offset(before.end_lineno, before.end_col_offset)
    between = ctx.raw.raw[start : ctx.raw.offset(last.lineno, last.col_offset)].decode(codec(ctx))
    indent = between[between.rfind("\n") + 1 :]
    newline = ctx.raw.newline
    if between.strip().startswith("or") and "\n" in between.split("or", 1)[0]:
        # operators lead: `\n    or b`; the indent is the operator's
        return "".join(
            f"{newline}{indent[: len(indent) - len(indent.lstrip())]}or {o}" for o in operands
        )
    return "".join(f" or{newline}{indent}{o}" for o in operands)


def append_elements(ctx: Context, sequence: nodes.NodeNG, texts: Sequence[str]) -> None:
    """Add elements to a tuple/list/set literal in its own layout: on one line after the
    last element, or one per line with the same indentation when the literal is spelled
    one element per line; a trailing comma stays a trailing comma."""
    elements = list(sequence.elts)
    last = elements[-1]
    after_last = ctx.raw.offset(last.end_lineno, last.end_col_offset)
    closing = ctx.raw.offset(sequence.end_lineno, sequence.end_col_offset) - 1
    between = ctx.raw.raw[after_last:closing].decode(codec(ctx))
    trailing_comma = between.lstrip().startswith(",")
    one_per_line = len(elements) > 1 and len({e.lineno for e in elements}) == len(elements)
    one_per_line = one_per_line or (len(elements) == 1 and last.lineno != sequence.lineno)
    if one_per_line:
        indent = " " * int(last.col_offset or 0)
        newline = ctx.raw.newline
        if trailing_comma:
            offset = after_last + len(between[: between.index(",") + 1].encode(codec(ctx)))
            text = "".join(f"{newline}{indent}{t}," for t in texts)
        else:
            offset = after_last
            text = "".join(f",{newline}{indent}{t}" for t in texts)
        ctx.edits.append(Edit(ctx.raw.path, offset, offset, text))
        return
    single = isinstance(sequence, nodes.Tuple) and len(elements) == 1 and not between.strip(", ")
    text = "".join(f", {t}" for t in texts)
    if single and trailing_comma:
        # `(10,)` -> `(10, 12)`: the comma that made it a tuple is now between elements.
        offset = after_last + len(between[: between.index(",") + 1].encode(codec(ctx)))
        ctx.edits.append(Edit(ctx.raw.path, offset, offset, text[1:]))
        return
    ctx.edits.append(Edit(ctx.raw.path, after_last, after_last, text))


def spelled_like(ctx: Context, example: nodes.NodeNG, value: Any) -> str:
    """A literal for `value` spelled like the literal `example`: a string among strings
    with the same quotes, a number among numbers."""
    if isinstance(example, nodes.Const) and isinstance(example.value, str):
        quote = source_of(ctx, example)[:1]
        text = str(value)
        return f"{quote}{text}{quote}" if quote in ("'", '"') and quote not in text else repr(text)
    return repr(value)


def digits(name: str) -> str:
    found = re.search(r"\d+", name)
    return found.group(0) if found else ""
