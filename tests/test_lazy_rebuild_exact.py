"""The rebuilder's own visits of the commonest nodes (gatecheck/loading/lazy.py) make
what astroid's make: every attribute of every node, in the order astroid sets them (the
order keeps a node's dict as small as astroid's), the same parents, the same locals and
recorded attributes in the same order. Compared here more strictly than a dump: each
node's whole `__dict__`, over trees built with every body at once."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from astroid import nodes

from gatecheck.loading.lazy import EMPTY
from gatecheck.loading.trees import ProjectBuilder
from tests.conftest import corpus_package
from tests.test_lazy_attributes import corpus_sample
from tests.test_lazy_bodies import SOURCES as BODY_SOURCES

# What gatecheck adds to a module it builds: the rebuilder, read by lazy.Spelling.
_OURS = frozenset({"_gatecheck_rebuilder"})


def _same(mine: Any, theirs: Any, seen: dict[int, Any], where: str) -> None:
    """`mine` and `theirs` hold the same: nodes compared attribute by attribute (a node
    met again, a parent say, must be the counterpart of the one met first)."""
    if isinstance(theirs, nodes.NodeNG):
        assert type(mine) is type(theirs), where
        if id(theirs) in seen:
            assert seen[id(theirs)] is mine, f"{where}: another node"
            return
        seen[id(theirs)] = mine
        own = {k: v for k, v in vars(mine).items() if k not in _OURS}  # see _OURS
        assert list(own) == list(vars(theirs)), f"{where}: attributes"
        for key, value in vars(theirs).items():
            _same(own[key], value, seen, f"{where}.{type(theirs).__name__}.{key}")
    elif isinstance(theirs, (list, tuple)):
        # An empty child list is the tree's shared one (lazy.EMPTY: a list too).
        assert type(mine) is type(theirs) or (mine is EMPTY and theirs == []), where
        assert len(mine) == len(theirs), where
        for index, (a, b) in enumerate(zip(mine, theirs, strict=True)):
            _same(a, b, seen, f"{where}[{index}]")
    elif isinstance(theirs, dict):
        assert isinstance(mine, dict), where
        assert list(mine) == list(theirs), f"{where}: keys"
        for key, value in theirs.items():
            _same(mine[key], value, seen, f"{where}[{key!r}]")
    elif isinstance(theirs, (str, bytes, int, float, complex, bool, type(None), type(...))):
        assert type(mine) is type(theirs) and mine == theirs, where
    else:  # a Position, a builder's helper object: compared as a value
        assert repr(mine) == repr(theirs), where


def assert_built_alike(
    text: str, path: str = "/x/mod.py", theirs: nodes.Module | None = None
) -> None:
    """`theirs`: astroid's build of `text`, when the caller has made it already."""
    if theirs is None:
        theirs = ProjectBuilder(lazy=False).string_build(text, "mod", path)
    mine = ProjectBuilder().string_build(text, "mod", path, whole=True)
    _same(mine, theirs, {}, "module")


SOURCES = {
    "names-every-context": """
        a = b
        del a
        (c, [d, *e]) = f
        for g in h: pass
        with i as j: pass
        k += 1
        l: int = 2
        import m.n as o
        print(p, q=r)
    """,
    "parameters-every-kind": """
        def f(a, /, b: int = 1, *args: str, c, d=2, **kwargs) -> None:
            g = lambda x, *y, z=3, **w: x
        def h(
            p,  # type: int
            q,  # type: str
        ):
            # type: (...) -> None
            pass
        class K:
            def m(self, *, key): pass
    """,
    "attributes-every-context": """
        class C:
            def __init__(self, v):
                self.x = v
                self.y.z = v
                (self.a, self.b) = v, v
                del self.x
                try:
                    pass
                except E as err:
                    self.err = err
                for self.i in v: pass
                with v as self.w: pass
                self.n += 1
                self.t: int = 3
            @property
            def p(self):
                return self.x.y.z
    """,
    "constants": """
        a = 1, 2.5, 3j, "s", u"u", b"b", r"r", f"{a}", None, True, False, ..., -1
        '''doc after'''
        x = 10 ** 100
    """,
    "calls-and-keywords": """
        f()
        f(a)(b)
        f(*a, **b)
        g(a, *b, c=1, **d)
        h(k=lambda: 1, m=[x for x in y])
        obj.method(arg).chain(key=value)
    """,
    "globals": """
        def f():
            global G
            G = 1
            del G
            G += 2
        x = G
    """,
    "type-comments": """
        a = []  # type: list[int]
        b = {}  # type: ignore
        c = 1  # type: # not a type
        d = 2  # type: (
        def f(x, y):
            # type: (int, str) -> None
            z = x  # type: int
    """,
    "expressions": """
        x = a if b else c
        y = not a and b or c
        z = [a[1:2, ::3], {k: v for k, v in d.items()}, {*s}, (yield_ := 1)]
        async def g():
            await h()
            async for i in j: pass
            async with k as m: pass
            return [n async for n in o]
        match p:
            case [q, *r] if q: pass
            case {"k": s, **t}: pass
            case C(u, v=w) | None: pass
    """,
    "assignments-in-handlers": """
        try:
            pass
        except (A, B) as e:
            e = 1
        try:
            pass
        except* C as f:
            pass
    """,
    "deep-lines": "\n" * 300 + "x = f(a.b, 'c')\ny = x\n" + "\n" * 700 + "z = y.w\n",
}

# A body whose last line continues onto the blank line after it (vLLM 0.8.5 has one):
# parsed alone, as a waiting body is when first read, its lines end inside the
# continuation.
CONTINUED_LAST_LINE = (
    "def f():\n    return a \\\n        and b \\\n\n\nclass C:\n"
    "    def m(self):\n        return x \\\n\n    y = 1\n"
)


@pytest.mark.parametrize("source", list(SOURCES.values()), ids=list(SOURCES))
def test_built_as_astroid_builds(source: str) -> None:
    assert_built_alike(textwrap.dedent(source))


@pytest.mark.parametrize("source", list(BODY_SOURCES.values()), ids=list(BODY_SOURCES))
def test_the_bodies_shapes_built_as_astroid_builds(source: str) -> None:
    assert_built_alike(textwrap.dedent(source))


def test_a_body_ending_in_a_continuation_built_as_astroid_builds() -> None:
    assert_built_alike(CONTINUED_LAST_LINE)
    theirs = ProjectBuilder(lazy=False).string_build(CONTINUED_LAST_LINE, "mod", "/x/mod.py")
    waiting = ProjectBuilder().string_build(CONTINUED_LAST_LINE, "mod", "/x/mod.py")
    # Each body is built as it is read (its nodes are the lazy module's own classes).
    assert waiting.as_string() == theirs.as_string()
    assert [n.lineno for n in waiting.nodes_of_class(nodes.Name)] == [
        n.lineno for n in theirs.nodes_of_class(nodes.Name)
    ]


def test_a_fixture_project_built_as_astroid_builds() -> None:
    fixtures = Path(__file__).resolve().parent.parent / "fixtures"
    files = sorted(fixtures.rglob("*.py"))
    assert files
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
            theirs = ProjectBuilder(lazy=False).string_build(text, "mod", str(path))
        except Exception:  # a file astroid cannot build (a fixture of bad input)
            continue
        assert_built_alike(text, str(path), theirs)


@pytest.mark.corpus
def test_sglang_built_as_astroid_builds() -> None:
    """The sample of tests/test_lazy_attributes.py, compared node by node."""
    root = corpus_package("sglang==0.5.9")
    files = corpus_sample(root)
    assert len(files) > 100
    for path in files:
        text = path.read_text(encoding="utf-8")
        try:
            theirs = ProjectBuilder(lazy=False).string_build(text, "mod", str(path))
        except Exception:  # a file astroid cannot build is not this test's
            continue
        assert_built_alike(text, str(path), theirs)
