"""Rows at each class's own value of a bound its classmethod's gate reads through `cls`.

xFormers' attention operators declare the capabilities they run on as class attributes
(`CUDA_MINIMUM_COMPUTE_CAPABILITY = (8, 0)`, `CUDA_MAXIMUM_COMPUTE_CAPABILITY = (9, 0)`),
and their base's classmethod refuses where `device_capability < cls.CUDA_MINIMUM_...`.
That test is read once for each class the classmethod may run for (semantics/subclasses.py)
and is one row; a fix for one operator goes where that operator assigns its bound. So each
class that assigns anew an attribute the condition reads through the method's first
parameter has a row there (SlotKind.ATTRIBUTE, a declaration): the generations the feature
may be on through this condition when it runs for that class (the condition's side: true
where it enables, false where it disables). An assignment several gates read lets through
the generations every one of them does. A gate that answers the same for every class
tells nothing of any class's bound, and the defining class's own value is the default the
gate's row already reads. No name is looked at: a bound is what the classmethod's
condition reads, whatever it is called.

The row sits in the class's file and is derived from the gate in the base's: its file's
reads hold the base's module (impact audits both when either changes).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

from astroid import nodes

from gatecheck.audit.conditions import ArchCondition, Role, SlotKind, module_path, varies
from gatecheck.findings import Polarity
from gatecheck.gates.model import qualname_of
from gatecheck.loading.project import Project
from gatecheck.loading.readlog import reading_for
from gatecheck.semantics.admitted import Admission, Semantics


def class_bound_conditions(
    project: Project,
    semantics: Semantics,
    conditions: Sequence[ArchCondition],
    vendor_gens: frozenset[str],
    only: Collection[Path] | None = None,
) -> list[ArchCondition]:
    """A row at each class's own assignment of a bound that a gate read once per class
    reads through `cls` (see the module's docstring), in the order the gates come;
    `only`: the files rows may sit in (impact's files), None for any."""
    evaluator = semantics.evaluator(semantics.registry.names[0])
    sides = BoundSides()
    for found in conditions:
        receivers = found.admission.receivers
        if found.role is not Role.GATE or not receivers or found.kind.is_declaration:
            continue
        read = read_through_receiver(found.condition)
        if not read:
            continue
        with reading_for(project, found.path):
            classes = evaluator.receivers(found.condition)
        if len(classes) != len(receivers):
            continue  # not the classes the admission was read for: no row is sure
        enables = found.polarity is Polarity.ENABLES
        each = [true if enables else false for _, true, false in receivers]
        if len(set(each)) == 1:
            continue  # the same answer for every class: no class's bound decides it
        # The defining class's own value is the default the others override; its
        # answer is what the gate's row says where no subclass is read.
        for cls, side in zip(classes[1:], each[1:], strict=True):
            for name in read:
                assigned = own_assignment(cls, name)
                if assigned is not None:
                    sides.keep(assigned, side, found.module)
    return sides.rows(project, semantics.registry.all_names(), vendor_gens, only)


class BoundSides:
    """The bounds a gate reads (a class's own value, a construction's: the value's node),
    each with the generations the gates reading it let through, met, and the modules of
    those gates; made into declaration rows (SlotKind.ATTRIBUTE)."""

    def __init__(self) -> None:
        self._sides: dict[int, tuple[nodes.NodeNG, frozenset[str], set[str]]] = {}

    def keep(self, node: nodes.NodeNG, side: frozenset[str], module: str) -> None:
        kept = self._sides.get(id(node))
        if kept is None:
            self._sides[id(node)] = (node, side, {module})
        else:
            self._sides[id(node)] = (node, kept[1] & side, kept[2] | {module})

    def rows(
        self,
        project: Project,
        every: frozenset[str],
        vendor_gens: frozenset[str],
        only: Collection[Path] | None,
    ) -> list[ArchCondition]:
        """A row at each bound whose generations tell the vendor's apart, in the files
        `only` names (None: any); its file's reads hold the gates' modules (impact)."""
        rows: list[ArchCondition] = []
        for node, side, read_from in self._sides.values():
            admission = Admission(side, every - side)
            if not varies(admission, vendor_gens):
                continue
            module = node.root()
            assert isinstance(module, nodes.Module)
            path = module_path(module)
            if only is not None and path not in only:
                continue
            log = project.read_log
            if log is not None:
                with log.reading_for(path):
                    for name in sorted(read_from):
                        log.note(name)
            # A decorator's construction: its statement is the definition it decorates.
            statement = node.statement()
            rows.append(
                ArchCondition(
                    node,
                    statement,
                    SlotKind.ATTRIBUTE,
                    path,
                    str(module.name),
                    qualname_of(statement),
                    admission,
                    Polarity.ENABLES,
                    side,
                    Role.GATE,
                    (node,),
                )
            )
        return rows


def read_through_receiver(condition: nodes.NodeNG) -> tuple[str, ...]:
    """The attributes `condition` reads through the first parameter of the classmethod
    around it (`cls.CUDA_MINIMUM_COMPUTE_CAPABILITY`), in the order it spells them."""
    method = condition.frame()
    if not (isinstance(method, nodes.FunctionDef) and isinstance(method.parent, nodes.ClassDef)):
        return ()
    params = [*(method.args.posonlyargs or []), *(method.args.args or [])]
    if not params:
        return ()
    first = params[0].name
    found: list[str] = []
    for attribute in condition.nodes_of_class(nodes.Attribute):
        expr = attribute.expr
        if isinstance(expr, nodes.Name) and expr.name == first and attribute.attrname not in found:
            found.append(str(attribute.attrname))
    return tuple(found)


def own_assignment(cls: nodes.ClassDef, name: str) -> nodes.NodeNG | None:
    """The value `cls`'s body assigns to `name` at its top level, once (`NAME = (8, 0)`,
    `NAME: tuple = (8, 0)`); None where it does not, or assigns it more than once."""
    found: list[nodes.NodeNG] = []
    for statement in cls.body:
        if isinstance(statement, nodes.Assign):
            targets = statement.targets
            if any(isinstance(t, nodes.AssignName) and t.name == name for t in targets):
                if len(targets) != 1:
                    return None
                found.append(statement.value)
        elif (
            isinstance(statement, nodes.AnnAssign)
            and isinstance(statement.target, nodes.AssignName)
            and statement.target.name == name
            and statement.value is not None
        ):
            found.append(statement.value)
    return found[0] if len(found) == 1 else None
