"""The classes a classmethod may run for: the implicit `cls` is the class it is called
on, the class that defines it or any subclass.

xFormers' `AttentionOpBase.not_supported_reasons(cls, d)` tests `device_capability <
cls.CUDA_MINIMUM_COMPUTE_CAPABILITY`, and each operator class sets its own bound
(`(8, 0)`, `(9, 0)`, `(10, 0)`): read with the base's value only, the test compared the
device with a bound no operator has (`(5, 0)`) and was true on no generation the audit
knows. A condition in a classmethod that reads through `cls` something a subclass
defines anew is therefore read once for each such class (`receivers`; Semantics.admission
names the class by the RECEIVER flag, which the first parameter's binding answers), each
reading whole (`cls.MAX is not None and cap > cls.MAX` holds together for one class),
and can be true (false) where one reading can.

Subclasses are looked for where dispatch.py looks for platform classes: the top-level
classes of the files below the defining module's folder, found by the names they spell
among a class statement's bases (a file that does not spell the class's name, or a
subclass's, so defines no subclass there: it is not built for the search), at most
MAX_CLASSES of them. A method called on a class (`FlashOp.check(d)`)
reads that class; one called on an instance (`self.x`) is not widened: the instance's
class is whatever made it, followed where it is made.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from astroid import nodes

from gatecheck.loading.resolve import decorator_names
from gatecheck.semantics import classes
from gatecheck.semantics.reads import remembered

if TYPE_CHECKING:
    from gatecheck.semantics.evaluator import Evaluator

# Past this many subclasses the search stops (a registry of hundreds of classes):
# the attribute is then the defining class's own, as if it had no subclass.
MAX_CLASSES = 64
# The flag (Semantics.admission's `flags`) naming the class a classmethod runs for:
# (the method, the class). No name or attribute can be spelled so.
RECEIVER = "<cls>"


def receivers(ev: Evaluator, node: nodes.NodeNG) -> tuple[nodes.ClassDef, ...]:
    """The classes the classmethod around `node` may run for, where it matters: its own
    class, then each subclass that defines anew an attribute the method reads through
    its `cls`; () when no subclass does (or `node` is not in a classmethod)."""
    frame = node.frame()
    if not (isinstance(frame, nodes.FunctionDef) and isinstance(frame.parent, nodes.ClassDef)):
        return ()
    key = ("receivers", id(frame))
    found: tuple[nodes.ClassDef, ...] = remembered(ev, key, lambda: _receivers(ev, frame), ())
    return found


def _receivers(ev: Evaluator, method: nodes.FunctionDef) -> tuple[nodes.ClassDef, ...]:
    if "classmethod" not in decorator_names(method):
        return ()
    params = list(method.args.posonlyargs or []) + list(method.args.args or [])
    if not params:
        return ()
    first = params[0].name
    read = {
        a.attrname
        for a in method.nodes_of_class(nodes.Attribute)
        if isinstance(a.expr, nodes.Name) and a.expr.name == first
    }
    if not read:
        return ()
    cls = method.parent
    assert isinstance(cls, nodes.ClassDef)
    below = tuple(k for k in subclasses(ev, cls) if not read.isdisjoint(k.locals))
    return (cls, *below) if below else ()


def subclasses(ev: Evaluator, cls: nodes.ClassDef) -> tuple[nodes.ClassDef, ...]:
    """The top-level classes below the folder of `cls`'s module whose order holds `cls`
    (itself excluded), nearest first; () past MAX_CLASSES."""
    key = ("subclasses-below", id(cls))
    found: tuple[nodes.ClassDef, ...] = remembered(ev, key, lambda: _search(ev, cls), ())
    return found


def _names_a_base(text: str, name: str) -> bool:
    """Whether a top-level class statement of `text` spells `name` among its bases
    (`class FlashOp(AttentionOpBase):`, `class X(ops.AttentionOpBase, Generic[T])`, over
    several lines): a module built to look for subclasses is one where one may be. A
    file that only imports or calls the class (most that spell it) is not built for it;
    a base bound to another name first (`Base = Op`, `class X(Base)`) is not found."""
    return _base_pattern(name).search(text) is not None


def _base_pattern(name: str) -> re.Pattern[str]:
    return re.compile(
        rf"^class[ \t]+\w+[ \t]*\((?:[^()]|\([^()]*\))*?\b{re.escape(name)}\b", re.MULTILINE
    )


def _search(ev: Evaluator, cls: nodes.ClassDef) -> tuple[nodes.ClassDef, ...]:
    module = cls.root()
    if not isinstance(module, nodes.Module) or not module.file:
        return ()
    prefix = os.path.join(os.path.dirname(str(module.file)), "")
    paths = ev.project.files_below(prefix)
    texts: dict[str, str] = {}
    with ev.project.scanning():  # read as the folder's (files_below), not per file
        for path in paths:
            texts[str(path)] = ev.project.text_of(path) or ""
    found: list[nodes.ClassDef] = []
    seen: set[int] = {id(cls)}
    pending = [str(cls.name)]
    while pending:
        name = pending.pop(0)
        names_a_base = _base_pattern(name)  # compiled once per name, not per file
        for path in paths:
            text = texts[str(path)]
            # The substring test first: most files do not hold the name at all.
            if name not in text or names_a_base.search(text) is None:
                continue
            candidate = ev.project.module_at(path)  # built once (None: failed, said once)
            if candidate is None:
                continue
            for statement in candidate.body:
                if (
                    isinstance(statement, nodes.ClassDef)
                    and id(statement) not in seen
                    and statement.bases
                    and any(k is cls for k in classes.mro(ev, statement))
                ):
                    seen.add(id(statement))
                    found.append(statement)
                    pending.append(str(statement.name))
                    if len(found) > MAX_CLASSES:
                        return ()
    return tuple(found)
