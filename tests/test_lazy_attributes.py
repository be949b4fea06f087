"""Methods that assign attributes of their first parameter wait too (loading/lazy.py):
their class's `instance_attrs`, read, builds them (one name: those spelling it) and is
what an eager build records, names and lists in the same order, however it is read."""

from __future__ import annotations

import copy
import hashlib
import re
import textwrap
from pathlib import Path

import pytest
from astroid import nodes

from gatecheck.loading.lazy import WaitingAttributes, is_waiting
from gatecheck.loading.trees import ProjectBuilder
from tests.conftest import corpus_package
from tests.test_lazy_bodies import _attributes, _classes, _dump, read_every_way


def _build(source: str, *, lazy: bool = True) -> nodes.Module:
    return ProjectBuilder(lazy=lazy).string_build(textwrap.dedent(source), "mod", "/x/mod.py")


# (source, {class name: instance_attrs as (name, [(line, column, method)]) in order}).
# Lines count from the one after the opening quotes.
SHAPES: dict[str, tuple[str, dict[str, list[tuple[str, list[tuple[int, int, str]]]]]]] = {
    "names-in-the-order-first-assigned": (
        """\
        class C:
            def b(self):
                self.y = 1
            def __init__(self):
                self.x = 0
                self.y = 2
            @staticmethod
            def helper(obj):
                obj.z = 3
        """,
        {
            "C": [
                ("y", [(3, 8, "b"), (6, 8, "__init__")]),
                ("x", [(5, 8, "__init__")]),
                ("z", [(9, 8, "helper")]),
            ]
        },
    ),
    "a-method-with-global-is-built-at-once-between-waiting-ones": (
        """\
        COUNT = 0
        class C:
            def a(self):
                self.p = 1
            def g(self):
                global COUNT
                COUNT += 1
                self.q = 1
                self.p = 2
            def h(self):
                self.q = 3
        """,
        {"C": [("p", [(4, 8, "a"), (9, 8, "g")]), ("q", [(8, 8, "g"), (11, 8, "h")])]},
    ),
    "cls-in-a-classmethod-is-its-first-parameter": (
        """\
        class C:
            @classmethod
            def make(cls):
                cls.registry = {}
                return cls()
            def __init__(self):
                self.registry = None
        """,
        {"C": [("registry", [(4, 8, "make"), (7, 8, "__init__")])]},
    ),
    "methods-under-an-if-are-not-the-class-s": (
        """\
        class C:
            if FLAG:
                def __init__(self):
                    self.a = 1
            else:
                def __init__(self):
                    self.b = 1
            def m(self):
                self.c = 1
        """,
        {"C": [("c", [(9, 8, "m")])]},
    ),
    "nested-classes": (
        """\
        class Outer:
            def __init__(self):
                self.o = 1
            class Inner:
                def __init__(self):
                    self.i = 1
            def make(self):
                class Local:
                    def __init__(this):
                        this.l = 1
                self.local = Local
        """,
        {
            "Outer": [("o", [(3, 8, "__init__")]), ("local", [(11, 8, "make")])],
            "Inner": [("i", [(6, 12, "__init__")])],
            "Local": [("l", [(10, 16, "__init__")])],
        },
    ),
    "every-target-shape": (
        """\
        class C:
            def m(self, other):
                self.a = self.b = 1
                self.c, (self.d, *self.e) = 1, (2, 3)
                with open("f") as self.f:
                    pass
                for self.g in range(2):
                    pass
                self.h: int
                self.a += 1
                other.z = 1
                self.x.y = 1
                def inner():
                    self.n = 1
                [1 for self.k in ()]
        """,
        {
            "C": [
                ("a", [(3, 8, "m"), (10, 8, "m")]),
                ("b", [(3, 17, "m")]),
                ("c", [(4, 8, "m")]),
                ("d", [(4, 17, "m")]),
                ("e", [(4, 26, "m")]),
                ("f", [(5, 26, "m")]),
                ("g", [(7, 12, "m")]),
                ("h", [(9, 8, "m")]),
            ]
        },
    ),
    "a-target-over-lines": (
        """\
        class C:
            def m(self):
                self \\
                    .x = 1
            def n(self):
                (self
                 .x) = 2
        """,
        {"C": [("x", [(3, 8, "m"), (6, 9, "n")])]},
    ),
    "a-parenthesized-first-parameter": (
        """\
        class C:
            def m(self):
                (self).x = 1
                ( self  # a comment
                ).y = 2
                (self)\
                    .z = 3
        """,
        {"C": [("x", [(3, 8, "m")]), ("y", [(4, 8, "m")]), ("z", [(6, 8, "m")])]},
    ),
    "async-positional-only-and-no-parameter": (
        """\
        class C:
            async def start(self):
                self.task = 1
            def __init__(self, /, a):
                self.a = a
            def free():
                x.y = 1
        """,
        {"C": [("task", [(3, 8, "start")]), ("a", [(5, 8, "__init__")])]},
    ),
    "a-property-and-its-setter": (
        """\
        class C:
            @property
            def v(self):
                return self._v
            @v.setter
            def v(self, value):
                self._v = value
            def v(self):
                self._w = 0
        """,
        {"C": [("_v", [(7, 8, "v")]), ("_w", [(9, 8, "v")])]},
    ),
    "slots-and-class-level-names-are-not-instance-attributes": (
        """\
        class C:
            __slots__ = ("a",)
            b = 1
            def __init__(self):
                self.a = 1
        """,
        {"C": [("a", [(5, 8, "__init__")])]},
    ),
}


def _class_attributes(module: nodes.Module) -> dict[str, object]:
    return {cls.name: _attributes(cls) for cls in module.nodes_of_class(nodes.ClassDef)}


@pytest.mark.parametrize(("source", "expected"), list(SHAPES.values()), ids=list(SHAPES))
def test_instance_attributes_read_as_recorded(source: str, expected: dict[str, object]) -> None:
    assert _class_attributes(_build(source, lazy=False)) == expected  # the table is right
    assert _class_attributes(_build(source)) == expected
    read_every_way(lambda: _build(source), _build(source, lazy=False))


@pytest.mark.parametrize(("source", "expected"), list(SHAPES.values()), ids=list(SHAPES))
def test_each_name_read_first_is_read_whole(source: str, expected: dict[str, object]) -> None:
    """One name read first, on a tree nothing else was read of: its assignments, all of
    them (the methods that may assign it are built), then the whole tree as eager."""
    eager = _build(source, lazy=False)
    for index, eager_cls in enumerate(_classes(eager)):
        for name in [*eager_cls.instance_attrs, "no_such_attribute"]:
            module = _build(source)
            cls = list(_classes(module))[index]
            found = cls.instance_attrs.get(name, [])
            assert _places(found) == _places(eager_cls.instance_attrs.get(name, [])), name
            assert _dump(module) == _dump(eager), name


def _places(found: list[nodes.NodeNG]) -> list[tuple[int, int]]:
    return [(n.lineno, n.col_offset) for n in found]


def _methods(module: nodes.Module) -> list[tuple[int, str]]:
    """Every function, by its place in a walk (which builds the bodies)."""
    return [
        (i, f.name)
        for i, f in enumerate(module.nodes_of_class((nodes.FunctionDef, nodes.AsyncFunctionDef)))
    ]


@pytest.mark.parametrize(("source", "expected"), list(SHAPES.values()), ids=list(SHAPES))
def test_one_method_built_first_ends_in_the_eager_order(
    source: str, expected: dict[str, object]
) -> None:
    """A method whose body is read first records its attributes then; the class's
    attributes, read afterwards, are still in the order of an eager build."""
    eager = _dump(_build(source, lazy=False))
    for index, _ in _methods(_build(source)):
        module = _build(source)
        method = list(module.nodes_of_class((nodes.FunctionDef, nodes.AsyncFunctionDef)))[index]
        assert method.body is not None  # built (with the bodies the walk to it entered)
        assert _dump(module) == eager, method.name


def _method(module: nodes.Module, cls: str, name: str) -> nodes.FunctionDef:
    (found,) = [
        n for n in next(c for c in _classes(module) if c.name == cls).body if n.name == name
    ]
    return found


def test_reading_one_name_builds_only_the_methods_assigning_it() -> None:
    module = _build(
        """\
        class C:
            def b(self):
                self.y = 1
            def __init__(self):
                self.x = self.y
            def uses(self):
                self.z = self.y + self.x
        """
    )
    (cls,) = _classes(module)
    b, init, uses = (_method(module, "C", n) for n in ("b", "__init__", "uses"))
    assert all(is_waiting(m) for m in (b, init, uses))  # attribute methods wait
    assert isinstance(cls.instance_attrs, WaitingAttributes)
    assert [n.lineno for n in cls.instance_attrs["y"]] == [3]
    assert not is_waiting(b)
    assert is_waiting(init) and is_waiting(uses)  # they read `y`, never assign it
    assert "x" in cls.instance_attrs and cls.instance_attrs.get("w") is None
    assert not is_waiting(init) and is_waiting(uses)
    assert list(cls.instance_attrs) == ["y", "x", "z"]  # the whole dict: all built
    assert not is_waiting(uses)


def test_a_list_read_by_name_is_the_one_kept() -> None:
    """A list read for one name is the class's own (the whole read later keeps it)."""
    module = _build(SHAPES["a-method-with-global-is-built-at-once-between-waiting-ones"][0])
    (cls,) = _classes(module)
    first = cls.instance_attrs.get("q")
    assert [n.lineno for n in first] == [8, 11]
    assert dict(cls.instance_attrs.items())["q"] is first
    assert [n.lineno for n in copy.copy(cls.instance_attrs)["p"]] == [4, 9]


def test_a_change_sees_the_whole_dict() -> None:
    module = _build(SHAPES["names-in-the-order-first-assigned"][0])
    (cls,) = _classes(module)
    cls.instance_attrs.setdefault("new", []).append(cls)
    assert list(cls.instance_attrs) == ["y", "x", "z", "new"]
    assert not any(is_waiting(m) for m in cls.body)


# The corpus test reads a deterministic sample, not every file: each tree is built four
# times and dumped three (read_every_way), which over all 1,404 files of sglang 0.5.9 took
# ~220 s, a quarter of the CI run. The sample keeps its power: a fixed share of the files
# by a hash of their path (any shape of file, the same ones on every machine and run)
# and the files defining the most functions (where the waiting bodies and attributes
# are most, and a wrong order would show).
_SAMPLE_SHARE = 5  # one file in this many, by path hash
_MOST_FUNCTIONS = 20
_DEF = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]", re.MULTILINE)


def corpus_sample(root: Path) -> list[Path]:
    """The files of `root` the corpus test reads: those whose relative path hashes into
    one share of _SAMPLE_SHARE, and the _MOST_FUNCTIONS files with the most `def`s."""
    files = sorted(root.rglob("*.py"))
    texts = {path: path.read_text(encoding="utf-8") for path in files}
    most = sorted(files, key=lambda p: (-len(_DEF.findall(texts[p])), p.as_posix()))
    chosen = set(most[:_MOST_FUNCTIONS])
    for path in files:
        digest = hashlib.sha256(path.relative_to(root).as_posix().encode()).digest()
        if int.from_bytes(digest[:8], "big") % _SAMPLE_SHARE == 0:
            chosen.add(path)
    return [path for path in files if path in chosen]


@pytest.mark.corpus
def test_sglang_trees_read_the_same() -> None:
    """A sample of the modules of a real engine (corpus_sample), read every way
    (tests/test_lazy_bodies.py)."""
    root = corpus_package("sglang==0.5.9")
    files = corpus_sample(root)
    assert len(files) > 100
    for path in files:
        text = path.read_text(encoding="utf-8")
        try:
            eager = ProjectBuilder(lazy=False).string_build(text, "m", str(path))
        except Exception:  # a file astroid cannot build is not this test's
            continue
        read_every_way(lambda: ProjectBuilder().string_build(text, "m", str(path)), eager)  # noqa: B023
