"""Function bodies built when first read.

Most modules an audit builds are built for a few names: an import followed to its
definition, or the callers of one function. A function body is most of a module's tree
(nine tenths of astroid's rebuild time on sglang 0.5.9), so the rebuilder here keeps a
function's statements as the stdlib `ast` they were parsed into and turns them into
astroid nodes the first time anything reads the function's `body` or `locals` (a walk, a
lookup inside it, an evaluation of a call of it). The tree is then the one an eager build
makes: the same nodes in the same places, the same locals in the same order, the
function's imports and `self.x = ...` attributes recorded the way the builder records
them at the end of a module.

A waiting body is parsed again, from its own lines, when it is built. It waits only
where waiting cannot change what is read before it is built, and where its lines parse
alone (the `def` or its first decorator begins its line): no `global` statement in it
(one would add names to the module's locals; a conservative test of the text).

A method whose body may assign an attribute of its first parameter (`self.x = ...`, an
`ast` walk, conservative too) waits as well, but those assignments are its class's
instance attributes, read without entering it: the class's `instance_attrs` keeps its
waiting methods (WaitingAttributes). A read of one name builds those that may assign
it (the names their targets spell), any other read all of them; either way what is
read is in the order an eager build records it (each assignment where the module's
visit, which is its text's order, reaches it). A check reads one name of sglang's
ServerArgs (2,000 lines of such methods): one of its 38, of 8 lines, is built.
"""

from __future__ import annotations

import array
import ast
import bisect
import copy
import itertools
import re
from collections.abc import Callable, Collection, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from astroid import nodes
from astroid._ast import BIN_OP_CLASSES, CMP_OP_CLASSES, CONTEXT_CLASSES
from astroid.const import Context
from astroid.nodes.utils import Position
from astroid.rebuilder import REDIRECT, TreeRebuilder

from gatecheck.textsearch import Words, offsets

if TYPE_CHECKING:
    from astroid.manager import AstroidManager

_F = TypeVar("_F", nodes.FunctionDef, nodes.AsyncFunctionDef)

# The builder's end-of-module steps, applied to what a body adds when it is built: an
# `ImportFrom` (with the global names in force) and an `AssignAttr`.
AddImport = Callable[[nodes.ImportFrom, Any], None]
AddAttribute = Callable[[nodes.AssignAttr], None]


class _Pending:
    """Where a waiting body is: its statements are parsed again from these lines when it
    is built (keeping their `ast` would keep most of what waiting saves)."""

    __slots__ = ("first", "last", "rebuilder")

    def __init__(self, rebuilder: LazyRebuilder, first: int, last: int) -> None:
        self.rebuilder = rebuilder
        self.first = first  # the first decorator's line, else the `def` line
        self.last = last

    def statements(self) -> list[ast.stmt]:
        """The body after its docstring, as the module's parse gave it."""
        return _statements(self.definition())

    def definition(self) -> ast.FunctionDef | ast.AsyncFunctionDef:
        """The whole `def` as the module's parse gave it: the same lines parsed alone
        (inside `if 1:` when indented), at their own line numbers: blank lines stand for
        the lines above (moving every node afterwards, ast.increment_lineno, took three
        times the parse itself: a Python loop over every node)."""
        # A last line continued with a backslash is ended by the module's next line; a
        # blank line ends it here.
        text = self.rebuilder.lines(self.first, self.last) + "\n\n"
        indented = text[:1].isspace()
        above = self.first - (2 if indented else 1)  # lines to stand in for
        if indented:
            text = "if 1:\n" + text
        shift = 0
        if above >= 0:
            text = "\n" * above + text
        else:
            shift = above  # cannot be (an indented first line does not parse): moved after
        try:
            tree = ast.parse(text, type_comments=True)
        except SyntaxError:
            tree = ast.parse(text)  # as astroid does when type comments do not parse
        if shift:
            ast.increment_lineno(tree, shift)
        (node,) = tree.body[0].body if indented else tree.body  # type: ignore[attr-defined]
        assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        return node


class _Waiting:
    """`body` and `locals` of a function whose body may not be built yet (a mixin of
    astroid's FunctionDef / AsyncFunctionDef: the node is one of those for everyone)."""

    _pending: _Pending | None = None
    _body: list[nodes.NodeNG]
    _locals: dict[str, list[nodes.NodeNG]]

    @property
    def body(self) -> list[nodes.NodeNG]:
        if self._pending is not None:
            self._build()
            return self.body  # a plain attribute now
        return self._body

    @body.setter
    def body(self, value: list[nodes.NodeNG]) -> None:
        self._body = value

    @property
    def locals(self) -> dict[str, list[nodes.NodeNG]]:
        if self._pending is not None:
            self._build()
            return self.locals  # a plain attribute now
        return self._locals

    @locals.setter
    def locals(self, value: dict[str, list[nodes.NodeNG]]) -> None:
        self._locals = value

    def _build(self) -> None:
        pending = self._pending
        assert pending is not None
        self._pending = None  # the visits below add to self.locals
        rebuilder = pending.rebuilder
        statements = pending.statements()
        imports = len(rebuilder._import_from_nodes)
        attributes = len(rebuilder._delayed_assattr)
        rebuilder._global_names.append({})
        try:
            self._body = [rebuilder.visit(s, self) for s in statements]
        finally:
            rebuilder._global_names.pop()
        for node, global_names in rebuilder._import_from_nodes[imports:]:
            rebuilder.add_import(node, global_names)
        del rebuilder._import_from_nodes[imports:]
        for attribute in rebuilder._delayed_assattr[attributes:]:
            rebuilder.add_attribute(attribute)
        del rebuilder._delayed_assattr[attributes:]
        # Built: the node becomes astroid's own class again, its body and locals plain
        # attributes (nothing checks for a pending body on every read from now on).
        state = self.__dict__
        body, local_names = state.pop("_body"), state.pop("_locals")
        state.pop("_pending", None)
        self.__class__ = _BUILT[type(self)]
        state["body"], state["locals"] = body, local_names


class WaitingFunctionDef(_Waiting, nodes.FunctionDef):
    pass


class WaitingAsyncFunctionDef(_Waiting, nodes.AsyncFunctionDef):
    pass


class WaitingAttributes(dict[str, list[nodes.NodeNG]]):
    """A class's `instance_attrs` while some of its methods that may assign attributes
    of their first parameter wait: reading one name (`get`, `in`, `[]`) builds the
    waiting methods that may assign it; anything else (iterating, `len`, a change)
    builds them all. What is then read is what an eager build records (each list, and
    the names, in the order of the assignments' positions: the builder's visit, a
    pre-order one, reaches them in the text's order; no two start at one place and
    none is inside another, a recorded target being `name.attr`)."""

    def __init__(self, recorded: dict[str, list[nodes.NodeNG]]) -> None:
        super().__init__(recorded)
        self._methods: list[nodes.FunctionDef] = []  # those that waited
        self._storing: dict[str, list[nodes.FunctionDef]] = {}  # by a name they may store
        self._settled: set[str] = set()
        self._complete = False

    def wait_for(self, method: nodes.FunctionDef, names: set[str]) -> None:
        """`method` waits, and may record attributes of these names when built."""
        self._methods.append(method)
        for name in names:
            self._storing.setdefault(name, []).append(method)

    def _settle(self, name: object) -> None:
        if self._complete or name in self._settled or not isinstance(name, str):
            return
        self._settled.add(name)  # before the builds: a read during them builds nothing
        for method in self._storing.get(name, ()):
            if getattr(method, "_pending", None) is not None:
                method._build()
        found = dict.get(self, name)
        if found:
            found.sort(key=_position)

    def _finish(self) -> None:
        if self._complete:
            return
        self._complete = True
        for method in self._methods:
            if getattr(method, "_pending", None) is not None:
                method._build()
        self._methods, self._storing = [], {}
        found = list(dict.values(self))
        for nodes_of_name in found:
            nodes_of_name.sort(key=_position)
        found.sort(key=lambda nodes_of_name: _position(nodes_of_name[0]))
        dict.clear(self)
        for nodes_of_name in found:  # the same lists: one read before holds the answer
            dict.__setitem__(self, nodes_of_name[0].attrname, nodes_of_name)

    def get(self, name: str, default: Any = None) -> Any:
        self._settle(name)
        return dict.get(self, name, default)

    def __contains__(self, name: object) -> bool:
        self._settle(name)
        return dict.__contains__(self, name)

    def __getitem__(self, name: str) -> list[nodes.NodeNG]:
        self._settle(name)
        return dict.__getitem__(self, name)

    def __reduce_ex__(self, protocol: Any) -> Any:  # a copy is a plain dict
        self._finish()
        return (dict, (dict(self),))


def _whole_read(method: str) -> Callable[..., Any]:
    plain = getattr(dict, method)

    def read(self: WaitingAttributes, *args: Any, **kwargs: Any) -> Any:
        self._finish()
        return plain(self, *args, **kwargs)

    read.__name__ = method
    return read


# Every other way to read or change the dict sees all of it.
_WHOLE_READS = (
    *("__iter__", "__len__", "__repr__", "__eq__", "__ne__", "__reversed__"),
    *("__or__", "__ror__", "__ior__", "__setitem__", "__delitem__"),
    *("keys", "values", "items", "copy", "pop", "popitem", "setdefault", "update", "clear"),
)
for _method in _WHOLE_READS:
    setattr(WaitingAttributes, _method, _whole_read(_method))


def _position(node: nodes.NodeNG) -> tuple[int, int]:
    return (node.lineno or 0, node.col_offset or 0)


def record_attribute(cls: nodes.ClassDef, node: nodes.AssignAttr) -> None:
    """Add `node` to `cls.instance_attrs` as the builder records one, building nothing
    (the waiting methods of a class record theirs when built)."""
    dict.setdefault(cls.instance_attrs, node.attrname, []).append(node)


# Named as astroid's classes: a printed tree or a message naming the node's type reads
# the same however the body was built.
for _cls in (WaitingFunctionDef, WaitingAsyncFunctionDef):
    _cls.__name__ = _cls.__qualname__ = _cls.__mro__[2].__name__


_LONE_CR = re.compile("\r(?!\n)")

_WAITING: dict[type, type] = {
    nodes.FunctionDef: WaitingFunctionDef,
    nodes.AsyncFunctionDef: WaitingAsyncFunctionDef,
}
_BUILT: dict[type, type] = {waiting: built for built, waiting in _WAITING.items()}


def node_class(node: nodes.NodeNG) -> type:
    """The astroid class of `node`: a function waiting for its body is a FunctionDef
    (AsyncFunctionDef) as it will be once built."""
    kind = type(node)
    return _BUILT.get(kind, kind)


def is_waiting(node: nodes.NodeNG) -> bool:
    """Whether `node` is a function whose body is not built yet."""
    return isinstance(node, _Waiting)


def waiting_definition(node: nodes.NodeNG) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The stdlib `ast` of a function whose body is not built yet (parsed again from its
    lines; nothing is built): a search that may find nothing in the body reads it
    without building it. None for any other node."""
    pending = node._pending if isinstance(node, _Waiting) else None
    return None if pending is None else pending.definition()


class LazyRebuilder(TreeRebuilder):
    """astroid's rebuilder, with function bodies left to be built when read."""

    def __init__(
        self,
        manager: AstroidManager,
        data: str,
        add_import: AddImport,
        add_attribute: AddAttribute,
        *,
        lines: list[int] | None = None,
        wait: bool = True,
    ) -> None:
        super().__init__(manager, None)
        # Every line number of the project's trees, one int object each (line n at index
        # n): the parser makes a new int for every position above 256 of every node, and
        # the trees keep them to the end of the run (sglang 0.5.9: 42 MB of 324 MB),
        # where a project's distinct line numbers are a few thousand. Columns are left
        # alone (almost all are below 257: the interpreter's own small ints).
        self._shared_lines: list[int] = [] if lines is None else lines
        # The line table below splits at LF, as astroid does; Python also ends a line at a
        # lone CR (old Mac line ends, a stray CR). In such a text a node's line numbers
        # do not find its lines: no body waits, and Spelling never prunes by the text.
        self._lines_match = _LONE_CR.search(data) is None
        self._wait = wait and self._lines_match  # False: every body built at once
        self.add_import = add_import
        self.add_attribute = add_attribute
        self._source = data
        # Where each line starts: astroid's lines and a node's text are slices of the
        # module's text (a list of its lines would be kept for as long as the tree).
        lengths = map((1).__add__, map(len, data.split("\n")))  # each with its LF
        self._starts = array.array("L", itertools.accumulate(lengths, initial=0))
        self._data = _Lines(data, self._starts)
        _grow(self._shared_lines, len(self._starts))  # every line of the text
        # The lines that spell `global` (in code, a string or a comment): none waits.
        self._global_lines: list[int] = []
        at = data.find("global")
        while at >= 0:
            self._global_lines.append(bisect.bisect_right(self._starts, at))
            at = data.find("global", at + 1)

    def _get_position_info(
        self,
        node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef,
        parent: nodes.ClassDef | nodes.FunctionDef | nodes.AsyncFunctionDef,
    ) -> Position | None:
        """astroid's (the keyword(s) and the name of a `def` or `class`), read off the
        definition's line where the keywords and the name sit on it as the parser put
        them; else astroid's own, which tokenizes the lines up to the body (1.4% of a
        cold audit, for every definition of every tree)."""
        first = node.lineno - 1
        if self._lines_match and 0 <= first < len(self._starts) - 1:
            line = self._source[self._starts[first] : self._starts[first + 1] - 1]
            if isinstance(parent, nodes.AsyncFunctionDef):
                head = _ASYNC_DEF
            elif isinstance(parent, nodes.FunctionDef):
                head = _DEF
            else:
                head = _CLASS
            # Only blanks precede the keyword: the parser's byte column is the column.
            found = head.match(line, node.col_offset)
            end = -1 if found is None else found.end() + len(node.name)
            if (
                found is not None
                and line.startswith(node.name, found.end())
                and not _IDENTIFIER_GOES_ON.match(line, end)
            ):
                return Position(node.lineno, node.col_offset, node.lineno, end)
        return super()._get_position_info(node, parent)

    def visit(self, node: Any, parent: nodes.NodeNG) -> Any:
        if node is None:
            return None
        kind = node.__class__
        own = _OWN_VISITS.get(kind)
        if own is not None:  # the commonest nodes, made with their lines shared
            return own(self, node, parent)
        # TreeRebuilder.visit's own dispatch, inline once it knows the node's class: this
        # runs for every node of every tree built (a Python call per node fewer).
        visit_method = self._visit_meths.get(kind)
        if visit_method is None:
            made = TreeRebuilder.visit(self, node, parent)  # finds and keeps the method
        else:
            made = visit_method(node, parent)
        if made is not None:
            shared = self._shared_lines
            made.lineno = _shared(shared, made.lineno)
            made.end_lineno = _shared(shared, made.end_lineno)
            fields = _LIST_FIELDS.get(made.__class__)
            if fields is not None:
                _share_empty(made, fields)
        return made

    # The visits of the nodes most of a tree is (sglang 0.5.9: names, attributes,
    # constants, calls and keywords, expression statements and assignments, three
    # nodes of four; with `if`, `return`, comparisons, binary operations, subscripts
    # and tuples, 85%): each makes the node astroid's visit makes, with the same
    # attributes set in the same order (a node's dict then shares its keys with every
    # other node of its class, as astroid's do), its children visited in the same order
    # (the locals and recorded attributes their visits add come in that order), and
    # its line numbers shared at once; in one call where astroid's takes four or five
    # (visit, its visit_*, the context, the node's __init__ and its base's).

    def _name(self, node: ast.Name, parent: nodes.NodeNG) -> nodes.NodeNG:
        context = node.ctx.__class__
        if context is ast.Load:
            made = _new(nodes.Name)
        elif context is ast.Store:
            made = _new(nodes.AssignName)
        else:
            return self._shared_visit(node, parent)
        made.name = node.id
        self._place(made, node, parent)
        if context is ast.Store:
            self._save_assignment(made)
        return made

    def _argument(self, node: ast.arg, parent: nodes.NodeNG) -> nodes.NodeNG:
        made = _new(nodes.AssignName)  # a parameter is a name it assigns
        made.name = node.arg
        self._place(made, node, parent)
        self._save_assignment(made)
        return made

    def _attribute(self, node: ast.Attribute, parent: nodes.NodeNG) -> nodes.NodeNG:
        if node.ctx.__class__ is not ast.Load:
            return self._shared_visit(node, parent)
        made = _new(nodes.Attribute)
        made.attrname = node.attr
        self._place(made, node, parent)
        made.expr = self.visit(node.value, made)
        return made

    def _constant(self, node: ast.Constant, parent: nodes.NodeNG) -> nodes.NodeNG:
        made = _new(nodes.Const)
        made.value = node.value
        made.kind = node.kind
        self._place(made, node, parent)
        return made

    def _call(self, node: ast.Call, parent: nodes.NodeNG) -> nodes.NodeNG:
        made = _new(nodes.Call)
        self._place(made, node, parent)
        visit = self.visit
        made.func = visit(node.func, made)
        made.args = [visit(child, made) for child in node.args] if node.args else EMPTY
        made.keywords = [visit(child, made) for child in node.keywords] if node.keywords else EMPTY
        return made

    def _keyword(self, node: ast.keyword, parent: nodes.NodeNG) -> nodes.NodeNG:
        made = _new(nodes.Keyword)
        made.arg = node.arg
        self._place(made, node, parent)
        made.value = self.visit(node.value, made)
        return made

    def _expression(self, node: ast.Expr, parent: nodes.NodeNG) -> nodes.NodeNG:
        made = _new(nodes.Expr)
        self._place(made, node, parent)
        made.value = self.visit(node.value, made)
        return made

    def _assign(self, node: ast.Assign, parent: nodes.NodeNG) -> nodes.NodeNG:
        made = _new(nodes.Assign)
        self._place(made, node, parent)
        # As astroid's: the type comment first, then the targets, then the value.
        annotation = self.check_type_comment(node, parent=made) if node.type_comment else None
        visit = self.visit
        made.targets = [visit(child, made) for child in node.targets]
        made.value = visit(node.value, made)
        made.type_annotation = annotation
        return made

    def _if(self, node: ast.If, parent: nodes.NodeNG) -> nodes.NodeNG:
        made = _new(nodes.If)
        self._place(made, node, parent)
        visit = self.visit
        made.test = visit(node.test, made)
        made.body = [visit(child, made) for child in node.body]
        made.orelse = [visit(child, made) for child in node.orelse] if node.orelse else EMPTY
        return made

    def _return(self, node: ast.Return, parent: nodes.NodeNG) -> nodes.NodeNG:
        made = _new(nodes.Return)
        self._place(made, node, parent)
        made.value = self.visit(node.value, made)
        return made

    def _compare(self, node: ast.Compare, parent: nodes.NodeNG) -> nodes.NodeNG:
        made = _new(nodes.Compare)
        self._place(made, node, parent)
        visit = self.visit
        made.left = visit(node.left, made)
        made.ops = [
            (CMP_OP_CLASSES[op.__class__], visit(operand, made))
            for op, operand in zip(node.ops, node.comparators, strict=False)
        ]
        return made

    def _binary(self, node: ast.BinOp, parent: nodes.NodeNG) -> nodes.NodeNG:
        made = _new(nodes.BinOp)
        made.op = BIN_OP_CLASSES[node.op.__class__]
        self._place(made, node, parent)
        visit = self.visit
        made.left = visit(node.left, made)
        made.right = visit(node.right, made)
        return made

    def _subscript(self, node: ast.Subscript, parent: nodes.NodeNG) -> nodes.NodeNG:
        made = _new(nodes.Subscript)
        made.ctx = CONTEXT_CLASSES.get(node.ctx.__class__, Context.Load)
        self._place(made, node, parent)
        visit = self.visit
        made.value = visit(node.value, made)
        made.slice = visit(node.slice, made)
        return made

    def _tuple(self, node: ast.Tuple, parent: nodes.NodeNG) -> nodes.NodeNG:
        made = _new(nodes.Tuple)
        made.ctx = CONTEXT_CLASSES.get(node.ctx.__class__, Context.Load)
        made.elts = []  # where astroid's __init__ sets it
        self._place(made, node, parent)
        made.elts = [self.visit(child, made) for child in node.elts]
        return made

    def _place(self, made: nodes.NodeNG, node: Any, parent: nodes.NodeNG) -> None:
        """NodeNG.__init__'s attributes, in its order, the line numbers shared."""
        shared = self._shared_lines
        first, last = node.lineno, node.end_lineno
        try:  # a parsed node's lines are 1 or more (an index from the end cannot be)
            first = shared[first]
            last = first if last == first else shared[last]
        except (IndexError, TypeError):  # not a line of this text (or None)
            first = first if first is None else _shared(shared, first)
            last = last if last is None else _shared(shared, last)
        made.lineno = first
        made.col_offset = node.col_offset
        made.parent = parent
        made.end_lineno = last
        made.end_col_offset = node.end_col_offset
        made.position = None

    def _shared_visit(self, node: Any, parent: nodes.NodeNG) -> Any:
        """astroid's own visit of `node`, the line numbers shared."""
        kind = node.__class__
        method = self._visit_meths.get(kind)
        if method is None:
            name = "visit_" + REDIRECT.get(kind.__name__, kind.__name__).lower()
            method = self._visit_meths[kind] = getattr(self, name)
        made = method(node, parent)
        shared = self._shared_lines
        made.lineno = _shared(shared, made.lineno)
        made.end_lineno = _shared(shared, made.end_lineno)
        return made

    def _visit_functiondef(self, cls: type[_F], node: Any, parent: nodes.NodeNG) -> _F:
        statements: list[ast.stmt] = _statements(node)
        if not (self._wait and statements and self._may_wait(node, statements, parent)):
            return super()._visit_functiondef(cls, node, parent)
        stored = self._stored_attributes(node, statements, parent)
        if stored and self._deep(statements):
            # As before methods assigning attributes waited: built with the module, where
            # a body too deep to build makes the module's diagnostic (built later, the
            # error would reach whatever read the body).
            return super()._visit_functiondef(cls, node, parent)
        # Built without its statements: a `pass` where the first one starts stands in for
        # them (astroid finds the `def` keyword in the lines above the first statement).
        first = statements[0]
        placeholder = ast.Pass(
            lineno=first.lineno,
            col_offset=first.col_offset,
            end_lineno=first.lineno,
            end_col_offset=first.col_offset,
        )
        head = copy.copy(node)
        head.body = [*node.body[: len(node.body) - len(statements)], placeholder]
        function = super()._visit_functiondef(_WAITING[cls], head, parent)
        function._body = EMPTY
        first_line = min([d.lineno for d in node.decorator_list] + [node.lineno])
        function._pending = _Pending(self, first_line, node.end_lineno or node.lineno)
        if stored:
            attributes = parent.instance_attrs
            if not isinstance(attributes, WaitingAttributes):
                attributes = parent.instance_attrs = WaitingAttributes(attributes)
            attributes.wait_for(function, stored)
        return function

    def visit_module(
        self, node: ast.Module, modname: str, modpath: str, package: bool
    ) -> nodes.Module:
        module = super().visit_module(node, modname, modpath, package)
        if self._lines_match:
            module._gatecheck_rebuilder = self  # read by Spelling
        return module

    def lines(self, first: int, last: int) -> str:
        """Lines `first` to `last` (1-based, inclusive), without the last line break."""
        starts = self._starts
        end = starts[min(last, len(starts) - 1)] - 1
        return self._source[starts[max(first, 1) - 1] : max(end, 0)]

    def spells(self, node: nodes.NodeNG, word: str) -> bool:
        """Whether the lines of `node`, its decorators' included, hold `word`."""
        span = self.span(node)
        return span is None or self._source.find(word, *span) >= 0

    def span(self, node: nodes.NodeNG) -> tuple[int, int] | None:
        """Where the lines of `node` (its decorators' included) are in the text: (start,
        end) offsets; None when the node has no line numbers."""
        first, last = node.lineno, node.end_lineno
        if first is None or last is None:
            return None
        decorators = getattr(node, "decorators", None)  # above a class's own line
        if decorators is not None and decorators.lineno is not None:
            first = min(first, decorators.lineno)
        starts = self._starts
        return starts[max(first, 1) - 1], starts[min(last, len(starts) - 1)]

    def spans(self, words: Collection[str]) -> list[tuple[int, int]]:
        """(start, end) of every occurrence of every word in the text, sorted."""
        return Words(words).spans(self._source)

    def occurrences(self, word: str) -> list[int]:
        """Every offset where `word` starts in the text, overlapping ones included (the
        offsets `str.find` can answer), in order."""
        return list(offsets(self._source, word))

    def _may_wait(
        self,
        node: ast.FunctionDef | ast.AsyncFunctionDef,
        statements: list[ast.stmt],
        parent: nodes.NodeNG,
    ) -> bool:
        last = node.end_lineno or node.lineno
        first_line = min([d.lineno for d in node.decorator_list] + [node.lineno])
        opening = self.lines(first_line, first_line).lstrip()
        if not opening.startswith(("@", "def", "async")):
            return False  # `if x: def f(): ...`: its lines do not parse alone
        at = bisect.bisect_left(self._global_lines, node.lineno)
        return not (at < len(self._global_lines) and self._global_lines[at] <= last)

    def _deep(self, statements: list[ast.stmt]) -> bool:
        """Whether something under `statements` may nest _DEEP levels (blocks and
        expressions). A statement whose own text (its header, for a compound one) is
        shorter than the levels left cannot (each level spells one character at least):
        only longer ones are walked."""
        stack: list[tuple[Any, int]] = [(s, 1) for s in statements]
        while stack:
            statement, depth = stack.pop()
            if depth >= _DEEP:
                return True
            if self._own_length(statement) >= _DEEP - depth and _nests(statement, _DEEP - depth):
                return True
            for block in _BLOCKS:
                stack.extend((s, depth + 1) for s in getattr(statement, block, ()))
        return False

    def _own_length(self, statement: Any) -> int:
        """At least the characters of `statement` outside its blocks (UTF-8 bytes on
        one line, whole lines over several)."""
        first: int | None = getattr(statement, "lineno", None)  # a `case` has none
        if first is None:
            return _DEEP
        decorators = getattr(statement, "decorator_list", None)
        if decorators:
            first = min(first, *(d.lineno for d in decorators))
        blocks = [s for block in _BLOCKS for s in getattr(statement, block, ())]
        if blocks:
            begins = min(getattr(s, "lineno", first) for s in blocks)
            last = max(first, begins - 1) if begins > first else first
        else:
            last = statement.end_lineno or first
            if last == first and first == statement.lineno:
                return int(statement.end_col_offset or 0) - int(statement.col_offset or 0)
        starts = self._starts
        return int(starts[min(last, len(starts) - 1)] - starts[first - 1])

    def _stored_attributes(
        self,
        node: ast.FunctionDef | ast.AsyncFunctionDef,
        statements: list[ast.stmt],
        parent: nodes.NodeNG,
    ) -> set[str]:
        """The names of the instance attributes of `parent` the builder may record in
        this body (a superset: see _stored_attributes_of)."""
        if not isinstance(parent, nodes.ClassDef):
            return set()
        first = _first_parameter(node)
        if first is None:
            return set()
        text = self.lines(node.lineno, node.end_lineno or node.lineno)
        # Between a name and the `.` of its attribute: spaces, line breaks, closing
        # brackets, continuations and comments only (`(self  # x\n).y`).
        if not re.search(rf"\b{re.escape(first)}(?:[\s\\)]|#[^\n]*)*\.", text):
            return set()  # its attributes are never spelled
        return _stored_attributes_of(statements, first)


_OWN_VISITS: dict[type, Callable[[LazyRebuilder, Any, nodes.NodeNG], Any]] = {
    ast.Name: LazyRebuilder._name,
    ast.arg: LazyRebuilder._argument,
    ast.Attribute: LazyRebuilder._attribute,
    ast.Constant: LazyRebuilder._constant,
    ast.Call: LazyRebuilder._call,
    ast.keyword: LazyRebuilder._keyword,
    ast.Expr: LazyRebuilder._expression,
    ast.Assign: LazyRebuilder._assign,
    ast.If: LazyRebuilder._if,
    ast.Return: LazyRebuilder._return,
    ast.Compare: LazyRebuilder._compare,
    ast.BinOp: LazyRebuilder._binary,
    ast.Subscript: LazyRebuilder._subscript,
    ast.Tuple: LazyRebuilder._tuple,
}

_new = object.__new__  # a node made without its __init__: _place sets what it would


class _Empty(list[Any]):
    """The one empty list every empty child list of a built tree is (a call without
    keywords, a function's positional-only parameters, an `if` without `else`): 716,713
    of the 2,074,794 lists of a cold sglang 0.5.23 audit, 64 bytes each. Nothing writes
    to a tree once built; what would grow it raises rather than change every tree."""

    __slots__ = ()

    def _refused(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("the shared empty list of a tree is not to be changed")

    append = extend = insert = __setitem__ = __iadd__ = __imul__ = _refused


EMPTY: list[Any] = _Empty()

# The child lists astroid's own visits make that are often empty, per node class.
_ARGUMENT_LISTS = (
    *("args", "defaults", "kwonlyargs", "posonlyargs", "posonlyargs_annotations"),
    *("kw_defaults", "annotations", "kwonlyargs_annotations", "type_comment_args"),
    *("type_comment_kwonlyargs", "type_comment_posonlyargs"),
)
_LIST_FIELDS: dict[type, tuple[str, ...]] = {
    nodes.Arguments: _ARGUMENT_LISTS,
    nodes.FunctionDef: ("type_params",),
    nodes.AsyncFunctionDef: ("type_params",),
    WaitingFunctionDef: ("type_params",),
    WaitingAsyncFunctionDef: ("type_params",),
    nodes.ClassDef: ("bases", "keywords", "type_params"),
    nodes.For: ("orelse",),
    nodes.AsyncFor: ("orelse",),
    nodes.While: ("orelse",),
    nodes.Try: ("orelse", "finalbody"),
    nodes.Comprehension: ("ifs",),
    nodes.List: ("elts",),
    nodes.Dict: ("items",),
}


def _share_empty(made: nodes.NodeNG, fields: tuple[str, ...]) -> None:
    for name in fields:
        value = getattr(made, name)
        if value.__class__ is list and not value:
            setattr(made, name, EMPTY)


def _grow(shared: list[int], size: int) -> None:
    """Make `shared` hold the lines below `size` (each its own int object)."""
    if len(shared) < size:
        shared.extend(range(len(shared), size))


def _shared(shared: list[int], line: int | None) -> int | None:
    """The one int object of line `line` (a line above 256 is a new int per node)."""
    if line is None or line < 0:
        return line
    if line >= len(shared):
        _grow(shared, line + 1)
    return shared[line]


# A definition's keywords as the tokenizer reads them, up to its name (tokens are separated
# by spaces, tabs and form feeds; anything else -- a line continuation -- is left to astroid).
_ASYNC_DEF = re.compile(r"async[ \t\f]+def[ \t\f]+")
_DEF = re.compile(r"def[ \t\f]+")
_CLASS = re.compile(r"class[ \t\f]+")
_IDENTIFIER_GOES_ON = re.compile(r"\w")


class _Lines:
    """astroid's `_data` (the module's lines, sliced to find where a `def` or `class`
    keyword is) read from the text: a slice is one string, which astroid joins as is."""

    def __init__(self, source: str, starts: array.array[int]) -> None:
        self._source = source
        self._starts = starts

    def __bool__(self) -> bool:
        return True

    def __getitem__(self, lines: slice) -> list[str]:
        first, stop = lines.start or 0, lines.stop
        count = len(self._starts) - 1
        stop = count if stop is None else min(stop, count)
        if stop <= first:
            return []
        return [self._source[self._starts[first] : self._starts[stop] - 1]]


def _statements(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.stmt]:
    """The body after its docstring (what astroid builds as `body`)."""
    body = node.body
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        return body[1:]
    return list(body)


def _first_parameter(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    params: Sequence[ast.arg] = [*node.args.posonlyargs, *node.args.args]
    return params[0].arg if params else None


_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


# Levels of nesting a body built when first read may have: far more than code is
# written with, few enough to build at any point of a run at the default recursion
# limit (astroid's rebuilder recurses two or three frames a level; 199 nested `not`s in
# a method, built by the flag walk at the limit of 1,000, build). Not lower: the longer
# statements are walked, at a cost (sglang's ServerArgs: 295 at 100 levels).
_DEEP = 200


def _nests(statement: Any, levels: int) -> bool:
    """Whether the expressions of `statement` (not its blocks) nest `levels` deep."""
    stack: list[tuple[ast.AST, int]] = [
        (child, 1)
        for field, value in ast.iter_fields(statement)
        if field not in _BLOCKS
        for child in (value if isinstance(value, list) else [value])
        if isinstance(child, ast.AST)
    ]
    while stack:
        node, depth = stack.pop()
        if depth >= levels:
            return True
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return False


def _stored_attributes_of(statements: list[ast.stmt], name: str) -> set[str]:
    """Every `attr` of a `name.attr` a statement under `statements` assigns (an
    assignment, an augmented or annotated one, a `for` or `with` target; nested scopes
    included, a superset of what the builder records; a target inside an expression is
    a comprehension's, whose scope is the comprehension: the builder records none.)"""
    stored: set[str] = set()
    stack: list[Any] = list(statements)
    while stack:
        statement = stack.pop()
        if isinstance(statement, ast.Assign):
            targets: list[ast.expr] = statement.targets
        elif isinstance(statement, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)):
            targets = [statement.target]
        elif isinstance(statement, (ast.With, ast.AsyncWith)):
            targets = [i.optional_vars for i in statement.items if i.optional_vars is not None]
        else:
            targets = []
        for target in targets:
            _add_attributes_of(target, name, stored)
        for block in _BLOCKS:
            stack.extend(getattr(statement, block, ()))
    return stored


def _add_attributes_of(target: ast.expr, name: str, stored: set[str]) -> None:
    if isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            _add_attributes_of(element, name, stored)
    elif isinstance(target, ast.Starred):
        _add_attributes_of(target.value, name, stored)
    elif (
        isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id == name
    ):
        stored.add(target.attr)


class Spelling:
    """What the text of a module's nodes holds, read from its source (builds nothing):
    a walk looking for one name skips what cannot spell it, waiting bodies included."""

    def __init__(self, module: nodes.Module) -> None:
        rebuilder = getattr(module, "_gatecheck_rebuilder", None)
        self._rebuilder = rebuilder if isinstance(rebuilder, LazyRebuilder) else None
        # Where each word asked for occurs in the module's text: a walk asks of every
        # statement, nested ones inside their parents' lines, so one search of the text
        # per word, then a bisection per statement (not a scan of its lines).
        self._occurrences: dict[str, list[int]] = {}

    def may_spell(self, node: nodes.NodeNG, word: str) -> bool:
        """False only when the lines of `node` do not hold `word` (so nothing under it is
        spelled `word`); True for a tree this module did not build."""
        rebuilder = self._rebuilder
        if rebuilder is None:
            return True
        span = rebuilder.span(node)
        if span is None:
            return True
        found = self._occurrences.get(word)
        if found is None:
            found = self._occurrences[word] = rebuilder.occurrences(word)
        # The first occurrence at or after the start is the one that may end in time.
        start, end = span
        at = bisect.bisect_left(found, start)
        return at < len(found) and found[at] + len(word) <= end

    def spelling_any(self, words: Collection[str]) -> Callable[[nodes.NodeNG], bool] | None:
        """`node -> any(self.may_spell(node, w) for w in words)`, one bisection per node
        whatever the words: None when every node may spell them (a tree this module did
        not build). Every occurrence of every word, by start, with the earliest end of
        those starting at or after each: some occurrence lies within a node's lines
        when the earliest end after its first line's start is by its last line's end."""
        rebuilder = self._rebuilder
        if rebuilder is None:
            return None
        wanted = set(words)
        found = rebuilder.spans(wanted)
        begins = [at for at, _ in found]
        ends = [end for _, end in found]
        for index in range(len(ends) - 2, -1, -1):  # the earliest end from here on
            if ends[index + 1] < ends[index]:
                ends[index] = ends[index + 1]
        ends.append(-1)  # past the last start: no occurrence (an end is never below 0)
        span = rebuilder.span
        bisect_left = bisect.bisect_left
        some = bool(wanted)  # a node without lines may spell any word

        def spells_any(node: nodes.NodeNG) -> bool:
            lines = span(node)
            if lines is None:
                return some
            start, end = lines
            return 0 <= ends[bisect_left(begins, start)] <= end

        return spells_any


def spelled_nodes(
    module: nodes.Module,
    classes: tuple[type[nodes.NodeNG], ...],
    words: set[str],
    enter: Callable[[nodes.NodeNG], bool] | None = None,
) -> Iterator[nodes.NodeNG]:
    """`module.nodes_of_class(classes)`, in the same order, skipping every statement
    whose lines spell none of `words`: a walk for nodes named by one of them (flags,
    a callee's name) need not visit it, nor build the bodies waiting under it.
    `enter`: asked of each node visited before it is yielded; False leaves what is
    under it unvisited (a caller that reads a waiting body another way)."""
    spells_any = Spelling(module).spelling_any(words)
    stack: list[nodes.NodeNG] = [module]
    while stack:
        node = stack.pop()
        if spells_any is not None and node.is_statement and not spells_any(node):
            continue
        below = enter is None or enter(node)
        if isinstance(node, classes):
            yield node
        if below:
            stack.extend(reversed(list(node.get_children())))
