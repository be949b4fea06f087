"""Two audits in, one impact report out: pure functions, no git and no trees.

Gates are matched in three passes. First by identity (module, qualname, normalised
condition): a gate that only moved or was reformatted is the same gate, duplicates of one
identity in a scope matched in line order. Then the same condition in the same module
(code moved into another function). Then, inside each scope, the gates left over are
paired by how alike their conditions read (an edited condition is still that gate:
`is_sm90_supported()` -> `is_sm90_supported() or is_sm120_supported()`; a lone leftover on
each side is paired however different); what stays unpaired is new or removed."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TypeVar

from gatecheck.audit.report import AuditedGate, AuditReport, FeatureSource, compared_use
from gatecheck.config.model import Registry
from gatecheck.impact.identity import Identity, Scope, identity_of, normalise_condition, scope_of
from gatecheck.impact.model import ChangeKind, GateChange, ImpactReport, Issue, IssueKind

Pair = tuple[AuditedGate | None, AuditedGate | None]
K = TypeVar("K", Identity, Scope)


def _by_line(gates: Iterable[AuditedGate]) -> list[AuditedGate]:
    return sorted(gates, key=lambda g: (str(g.path), g.found.line, g.start.column))


def match_gates(before: Sequence[AuditedGate], after: Sequence[AuditedGate]) -> list[Pair]:
    """Every gate of both sides once: (before, after), (None, new) or (removed, None)."""
    pairs, rest_before, rest_after = _pair_by(before, after, identity_of)
    # The same condition in the same module, in another function: code moved into a new
    # or renamed function (matched in line order).
    moved, rest_before, rest_after = _pair_by(rest_before, rest_after, _module_identity)
    pairs.extend(moved)
    scoped_before = _grouped(rest_before, scope_of)
    scoped_after = _grouped(rest_after, scope_of)
    for scope in sorted(scoped_before.keys() | scoped_after.keys()):
        pairs.extend(_pair_edited(scoped_before.get(scope, []), scoped_after.get(scope, [])))
    return pairs


def _module_identity(gate: AuditedGate) -> Identity:
    return Identity(Scope(gate.found.module, ""), normalise_condition(gate.found.condition))


def _pair_by(
    before: Sequence[AuditedGate],
    after: Sequence[AuditedGate],
    key: Callable[[AuditedGate], Identity],
) -> tuple[list[Pair], list[AuditedGate], list[AuditedGate]]:
    """Gates of equal key paired in line order; the unpaired ones of each side."""
    left, right = _grouped(before, key), _grouped(after, key)
    pairs: list[Pair] = []
    rest_before: list[AuditedGate] = []
    rest_after: list[AuditedGate] = []
    for identity in sorted(left.keys() | right.keys()):
        olds, news = left.get(identity, []), right.get(identity, [])
        pairs.extend(zip(olds, news, strict=False))
        rest_before.extend(olds[len(news) :])
        rest_after.extend(news[len(olds) :])
    return pairs, rest_before, rest_after


def _grouped(
    gates: Iterable[AuditedGate], key: Callable[[AuditedGate], K]
) -> dict[K, list[AuditedGate]]:
    groups: dict[K, list[AuditedGate]] = {}
    for gate in _by_line(gates):
        groups.setdefault(key(gate), []).append(gate)
    return groups


def _pair_edited(olds: list[AuditedGate], news: list[AuditedGate]) -> list[Pair]:
    """Greedy on similarity of the normalised conditions (ties: line order), so that with
    one gate added and another edited in one function, the edited one finds its old self."""
    scored = sorted(
        (-_similarity(old, new), i, j) for i, old in enumerate(olds) for j, new in enumerate(news)
    )
    used_old: set[int] = set()
    used_new: set[int] = set()
    pairs: list[Pair] = []
    # One gate left on each side is that gate edited, however much; among several,
    # conditions that share too little are not taken for one another.
    alone = len(olds) == 1 and len(news) == 1
    for score, i, j in scored:
        if i in used_old or j in used_new:
            continue
        if not alone and -score < MIN_SIMILARITY:
            continue
        used_old.add(i)
        used_new.add(j)
        pairs.append((olds[i], news[j]))
    pairs.extend((old, None) for i, old in enumerate(olds) if i not in used_old)
    pairs.extend((None, new) for j, new in enumerate(news) if j not in used_new)
    return pairs


MIN_SIMILARITY = 0.5


def _text_similarity(old: AuditedGate, new: AuditedGate) -> float:
    a = normalise_condition(old.found.condition)
    b = normalise_condition(new.found.condition)
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def _similarity(old: AuditedGate, new: AuditedGate) -> float:
    # The same statement kind (if / assert / assignment...) breaks ties.
    same_kind = 0.01 if old.found.kind is new.found.kind else 0.0
    return _text_similarity(old, new) + same_kind


def compare_reports(
    before: AuditReport,
    after: AuditReport,
    *,
    base: str,
    commit: str,
    compared: Callable[[Path], bool] = lambda path: True,
    changed_files: Sequence[Path] = (),
    compared_files: int = 0,
    unchanged_elsewhere: int = 0,
) -> ImpactReport:
    """`compared` says which files' gates take part (the rest are the same on both sides
    by construction, see scope.py and reuse.py; `unchanged_elsewhere` counts those of
    them known). `before`'s paths must already be the working tree's."""
    registry = after.registry
    columns = tuple(registry.ordered(registry.vendor_names(after.vendor)))
    # A device predicate's own test (an audit row of its own, GateSite.definition) is
    # compared through its uses: a narrowed body is reported where the feature loses a
    # generation, once. A vendor gate decides no generation of the vendor against another.
    pairs = match_gates(
        [g for g in before.gates if compared(g.path) and compared_use(g)],
        [g for g in after.gates if compared(g.path) and compared_use(g)],
    )
    changes: list[GateChange] = []
    unchanged = 0
    for old, new in pairs:
        change = _change(old, new, columns, after)
        if change is None:
            unchanged += 1
        else:
            changes.append(change)
    changes.sort(key=_change_order)
    issues = sorted(
        (issue for change in changes for issue in issues_of(change, registry, columns)),
        key=lambda i: (i.kind.rank, _change_order(i.change)),
    )
    return ImpactReport(
        base,
        commit,
        after.generation,
        after.vendor,
        columns,
        tuple(changes),
        tuple(issues),
        unchanged=unchanged + unchanged_elsewhere,
        changed_files=tuple(changed_files),
        compared_files=compared_files,
        project_files=after.files,
        # Once each (an unreadable file unchanged since BASE is diagnosed on both sides),
        # in path order: however little of each side was audited.
        diagnostics=tuple(
            f"{d.path}:{d.line}: {d.message}"
            for d in sorted(
                {
                    (str(d.path), d.line, d.message): d
                    for d in (*before.diagnostics, *after.diagnostics)
                }.values(),
                key=lambda d: (str(d.path), d.line, d.message),
            )
        ),
    )


def _change_order(change: GateChange) -> tuple[str, int, int]:
    gate = change.gate
    return (str(gate.path), gate.found.line, gate.start.column)


def _change(
    old: AuditedGate | None,
    new: AuditedGate | None,
    columns: tuple[str, ...],
    after: AuditReport,
) -> GateChange | None:
    wanted = frozenset(columns)
    if old is None:
        return GateChange(ChangeKind.NEW, None, new)
    if new is None:
        return GateChange(ChangeKind.REMOVED, old, None)
    lost = (old.admits - new.admits) & wanted
    gained = (new.admits - old.admits) & wanted
    if not lost and not gained:
        return None
    unbuilt, kernels = kernel_shortfall(new, gained, after)
    return GateChange(ChangeKind.CHANGED, old, new, lost, gained, unbuilt, kernels)


def kernel_shortfall(
    gate: AuditedGate, gained: frozenset[str], report: AuditReport
) -> tuple[frozenset[str], tuple[str, ...]]:
    """Gained generations some kernel of the gate's rule feature is known not to be built
    for (a kernel whose targets cannot be read decides nothing), and what each is built for."""
    supports = (
        report.kernels.get(gate.feature) if gate.feature_source is FeatureSource.RULE else None
    )
    if not supports or not gained:
        return frozenset(), ()
    unbuilt = frozenset(
        g for g in gained for s in supports if s.generations is not None and g not in s.generations
    )
    return unbuilt, tuple(f"{s.label} is built for {s.built_for}" for s in supports)


def issues_of(change: GateChange, registry: Registry, columns: Sequence[str]) -> list[Issue]:
    """What a change is reported as: each narrowing, widening, new and removed gate once."""
    gate = change.gate
    where = f"{gate.found.qualname or '<module>'}: `{gate.condition}`"
    if change.kind is ChangeKind.NEW:
        shut = registry.ordered(set(columns) - gate.admits)
        if not shut:
            return []
        return [
            Issue(
                IssueKind.NEW_GATE,
                change,
                tuple(shut),
                f"new gate shuts out {_names(shut)}: {where}",
            )
        ]
    if change.kind is ChangeKind.REMOVED:
        shut = registry.ordered(set(columns) - gate.admits)
        return [Issue(IssueKind.REMOVED_GATE, change, tuple(shut), f"gate removed: {where}")]
    out: list[Issue] = []
    was = _was(change)
    if change.lost:
        lost = registry.ordered(change.lost)
        out.append(
            Issue(
                IssueKind.NARROWED,
                change,
                tuple(lost),
                f"no longer admits {_names(lost)}: {where}{was}",
            )
        )
    built = registry.ordered(change.gained - change.unbuilt)
    if built:
        out.append(
            Issue(
                IssueKind.WIDENED, change, tuple(built), f"now admits {_names(built)}: {where}{was}"
            )
        )
    if change.unbuilt:
        unbuilt = registry.ordered(change.unbuilt)
        kernels = "; ".join(change.kernels)
        out.append(
            Issue(
                IssueKind.WIDENED_UNBUILT,
                change,
                tuple(unbuilt),
                f"now admits {_names(unbuilt)}, which its kernels are not built for "
                f"({kernels}): {where}{was}",
            )
        )
    return out


def _was(change: GateChange) -> str:
    if change.before is None or change.after is None:
        return ""
    old = normalise_condition(change.before.condition)
    if old == normalise_condition(change.after.condition):
        return ""  # same text: what it calls changed
    return f" (was `{change.before.condition}`)"


def _names(names: Sequence[str]) -> str:
    return ", ".join(names)
