"""Whether a condition that is Unknown on every generation still depends on the
generation: `flag and not (is_sm100() or is_sm120())` is Unknown everywhere (the flag
is), yet with the flag set it is false on Blackwell and true elsewhere. Kleene's
three-valued result hides that; taking each operand the generation does not decide as a
free variable (the same unknowns on every generation) shows it.

The condition is split at its boolean structure (`and`, `or`, `not`, and names bound
once to such an expression), each operand (an atom) is evaluated per generation, and
the structure is re-evaluated for every assignment of True/False to the atoms that are
Unknown somewhere. Bounded: with more than MAX_FREE_ATOMS such atoms, nothing is said
(the three-valued answer stands)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass

from astroid import nodes

from gatecheck.semantics.values import UNKNOWN, Tri

MAX_FREE_ATOMS = 6
MAX_ATOMS = 16
# How many names bound to a boolean expression are followed, one inside the other.
MAX_NAME_DEPTH = 3


@dataclass(frozen=True)
class _Not:
    operand: _Formula


@dataclass(frozen=True)
class _Op:
    op: str  # "and" | "or"
    operands: tuple[_Formula, ...]


_Formula = _Not | _Op | int  # an int: the index of an atom


class _TooLarge(Exception):
    pass


def single_binding(name: nodes.Name, *, any_scope: bool = False) -> nodes.NodeNG | None:
    """The value of the one plain assignment `name = <expr>` in its own scope, if that
    is the only binding of the name there (`any_scope`: the one binding the name's
    lookup finds, wherever it is: a module global read in a function)."""
    try:
        _scope, found = name.lookup(name.name)
    except Exception:
        return None
    if len(found) != 1 or not isinstance(found[0], nodes.AssignName):
        return None
    assign = found[0].parent
    if not isinstance(assign, nodes.Assign) or len(assign.targets) != 1:
        return None
    if assign.targets[0] is not found[0]:
        return None
    if not any_scope and assign.scope() is not name.scope():
        return None
    return assign.value


def _is_structure(node: nodes.NodeNG) -> bool:
    return isinstance(node, nodes.BoolOp) or (isinstance(node, nodes.UnaryOp) and node.op == "not")


# A name's one binding elsewhere (a module global, through imports), when the caller can
# find it: `from hardware import IS_HOPPER` then `if IS_HOPPER:`.
Follow = Callable[[nodes.Name], "nodes.NodeNG | None"]


def _split(
    node: nodes.NodeNG,
    atoms: list[nodes.NodeNG],
    depth: int = 0,
    follow: Follow | None = None,
    names: int = MAX_NAME_DEPTH,
) -> _Formula:
    if isinstance(node, nodes.BoolOp):
        return _Op(node.op, tuple(_split(v, atoms, depth, follow, names) for v in node.values))
    if isinstance(node, nodes.UnaryOp) and node.op == "not":
        return _Not(_split(node.operand, atoms, depth, follow, names))
    if isinstance(node, nodes.Name) and depth < names:
        bound = single_binding(node)
        if bound is None and follow is not None:
            bound = follow(node)
        if bound is not None and _is_structure(bound):
            return _split(bound, atoms, depth + 1, follow, names)
    if len(atoms) >= MAX_ATOMS:
        raise _TooLarge
    atoms.append(node)
    return len(atoms) - 1


def _value(formula: _Formula, atoms: Mapping[int, bool]) -> bool:
    if isinstance(formula, int):
        return atoms[formula]
    if isinstance(formula, _Not):
        return not _value(formula.operand, atoms)
    if formula.op == "and":
        return all(_value(f, atoms) for f in formula.operands)
    return any(_value(f, atoms) for f in formula.operands)


def structure(
    node: nodes.NodeNG, follow: Follow | None = None, names: int = MAX_NAME_DEPTH
) -> tuple[_Formula, list[nodes.NodeNG]] | None:
    """The boolean structure of `node` and its atoms, or None (a single atom, or too
    many). `follow`: a name bound once elsewhere, split as its binding's expression;
    `names`: how many such names are followed one inside the other."""
    atoms: list[nodes.NodeNG] = []
    try:
        formula = _split(node, atoms, follow=follow, names=names)
    except _TooLarge:
        return None
    if isinstance(formula, int):
        return None
    return formula, atoms


# Each generation's side of an atom that compares a value the device decides with one
# nothing decides (`arch not in built["arches"]`): generations with the same device
# value share the atom's unknown, the others each have their own.
ClassesOf = Callable[[nodes.NodeNG], "Mapping[str, Hashable] | None"]


def free_true_sets(
    node: nodes.NodeNG,
    truths_of: Callable[[nodes.NodeNG], Mapping[str, Tri]],
    follow: Follow | None = None,
    classes_of: ClassesOf | None = None,
) -> tuple[frozenset[str], ...]:
    """For each assignment of the undecided atoms under which generations answer
    differently, the generations where `node` is then true (empty: it does not depend
    on the generation, or the structure is too large to say). Where following the names
    bound to boolean expressions gives too many undecided atoms, each such name is one
    atom instead, nearest first (`fast = a and b and c and d and e` then `fast and
    (major > 9 or bits != 4)`: `fast` one unknown, not five).

    `classes_of`: an atom unknown on every generation that compares the device's value
    (the arch's name, its capability) with something nothing decides is one unknown per
    value the device gives, not one for all: with data read at run time, `arch not in
    built["arches"]` may be true for "sm_100a" and false for "sm_120a" (FlashInfer's
    build sidecars), the same data for both."""
    for names in range(MAX_NAME_DEPTH, -1, -1):
        atoms: list[nodes.NodeNG] = []
        try:
            formula = _split(node, atoms, follow=follow, names=names)
        except _TooLarge:
            continue
        per_atom = [truths_of(atom) for atom in atoms]
        free = [i for i, truths in enumerate(per_atom) if UNKNOWN in truths.values()]
        if not free:
            return ()
        classes: dict[int, Mapping[str, Hashable]] = {}
        if classes_of is not None:
            for i in free:
                if all(t is UNKNOWN for t in per_atom[i].values()):
                    found = classes_of(atoms[i])
                    if found is not None:
                        classes[i] = found
        if isinstance(formula, int) and not classes:
            return ()  # a single atom: Kleene's answer is the whole answer
        classes = _coarsened(classes, MAX_FREE_ATOMS - (len(free) - len(classes)))
        variables = sum(len(set(classes[i].values())) if i in classes else 1 for i in free)
        if variables <= MAX_FREE_ATOMS:
            return _true_sets(formula, per_atom, free, classes)
    return ()


def _coarsened(
    classes: Mapping[int, Mapping[str, Hashable]], room: int
) -> dict[int, Mapping[str, Hashable]]:
    """`classes` with values merged, two into one, in the largest atom's first, until
    they fit in `room` unknowns (or each atom has one): an `arch: str` parameter read by
    its name is another value on each generation (15 unknowns). Values merged take one
    truth together, which the data may give them: every set found is still one the data
    can make, only fewer are tried (generations stay apart in the registry's order,
    neighbours merged: sm120 with sm121)."""
    merged = {i: dict(each) for i, each in classes.items()}

    def count(i: int) -> int:
        return len(set(merged[i].values()))

    while merged and sum(count(i) for i in merged) > room:
        widest = max(merged, key=lambda i: (count(i), -i))
        if count(widest) == 1:
            break
        order = list(dict.fromkeys(merged[widest].values()))  # first seen, registry order
        pair = {key: n // 2 for n, key in enumerate(order)}
        merged[widest] = {gen: pair[key] for gen, key in merged[widest].items()}
    return dict(merged)


def _true_sets(
    formula: _Formula,
    per_atom: list[Mapping[str, Tri]],
    free: list[int],
    classes: Mapping[int, Mapping[str, Hashable]],
) -> tuple[frozenset[str], ...]:
    generations = list(per_atom[0])
    # Generations whose atoms all answer alike answer alike under every choice: the
    # formula is evaluated once per distinct row of atom truths, not once per generation
    # (and a condition whose atoms no generation tells apart needs no choice at all).
    # Each atom's truth on a generation, with the device's value it is unknown for.
    rows: dict[tuple[tuple[Tri, Hashable], ...], list[str]] = {}
    for gen in generations:
        row = tuple(
            (truths[gen], classes[i][gen] if i in classes else None)
            for i, truths in enumerate(per_atom)
        )
        rows.setdefault(row, []).append(gen)
    if len(rows) < 2:
        return ()
    unknowns = [
        (i, key)
        for i in free
        for key in (sorted(set(classes[i].values()), key=repr) if i in classes else (None,))
    ]
    found: list[frozenset[str]] = []
    for choice in itertools.product((True, False), repeat=len(unknowns)):
        fixed = dict(zip(unknowns, choice, strict=True))
        true_on: set[str] = set()
        for row, gens in rows.items():
            values = {
                i: fixed[(i, key)] if truth is UNKNOWN else bool(truth)
                for i, (truth, key) in enumerate(row)
            }
            if _value(formula, values):
                true_on.update(gens)
        if 0 < len(true_on) < len(generations) and frozenset(true_on) not in found:
            found.append(frozenset(true_on))
    return tuple(found)
