"""The flag walk of gates/feature_gates.py skips statements whose text spells no flag:
it finds the same nodes, in the same order, as astroid's nodes_of_class filtered by
name, on every module of the fixtures and on shapes where a flag hides in odd places."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from astroid import nodes

from gatecheck.loading.lazy import spelled_nodes
from gatecheck.loading.trees import ProjectBuilder

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CLASSES: list[tuple[type[nodes.NodeNG], ...]] = [
    (nodes.Assign, nodes.AnnAssign),
    (nodes.Attribute, nodes.Name),
    (nodes.AnnAssign,),  # tracing/paths.py's settings fields
]


def _spelled(node: nodes.NodeNG) -> str | None:
    if isinstance(node, (nodes.Attribute, nodes.AssignAttr)):
        return node.attrname
    if isinstance(node, (nodes.Name, nodes.AssignName)):
        return node.name
    if isinstance(node, nodes.Assign):
        return next((s for t in node.targets if (s := _spelled(t))), None)
    if isinstance(node, nodes.AnnAssign):
        return _spelled(node.target)
    return None


def _agree(module: nodes.Module, flags: set[str]) -> None:
    for classes in CLASSES:
        walked = [n for n in spelled_nodes(module, classes, flags) if _spelled(n) in flags]
        full = [n for n in module.nodes_of_class(classes) if _spelled(n) in flags]
        assert walked == full, (module.name, flags, classes)


def _names(module: nodes.Module) -> list[str]:
    found = {_spelled(n) for n in module.nodes_of_class((nodes.Attribute, nodes.Name))}
    return sorted(n for n in found if n)


@pytest.mark.parametrize(
    "path", sorted(FIXTURES.rglob("*.py")), ids=lambda p: str(p.relative_to(FIXTURES))
)
@pytest.mark.parametrize("whole", [True, False], ids=["whole", "lazy"])
def test_same_nodes_on_every_fixture(path: Path, whole: bool) -> None:
    module = ProjectBuilder().string_build(path.read_text("utf-8"), "m", str(path), whole=whole)
    names = _names(module)
    for name in names:
        _agree(module, {name})
    _agree(module, set(names[:2]))
    _agree(module, {"no_such_flag"})
    _agree(module, set())


SHAPES = {
    "decorated": """\
        @register(enable_x)
        def f():
            pass
        """,
    "continued": """\
        value = (a
                 and self.enable_x)
        """,
    "class-field": """\
        class Args:
            enable_x: bool = False

            def check(self):
                if self.enable_x and other:
                    return 1
        """,
    "nested": """\
        def outer():
            def inner():
                if cond:
                    enable_x = True
            return inner
        """,
    "comprehension": """\
        picked = [a for a in items if a.enable_x]
        """,
    "lambda": """\
        pick = lambda args: args.enable_x or False
        """,
}


@pytest.mark.parametrize("source", SHAPES.values(), ids=SHAPES.keys())
@pytest.mark.parametrize("whole", [True, False], ids=["whole", "lazy"])
def test_same_nodes_on_shapes(source: str, whole: bool) -> None:
    module = ProjectBuilder().string_build(textwrap.dedent(source), "m", "m.py", whole=whole)
    _agree(module, {"enable_x"})
    walked = [n for c in CLASSES for n in spelled_nodes(module, c, {"enable_x"})]
    assert any(_spelled(n) == "enable_x" for n in walked)  # the flag is found


@pytest.mark.parametrize(
    "source",
    [
        "def f(a):\r    if a.enable_x:\r        return 1\r\r\rdef g():\r    return 2\r",
        "X = 1\r\ndef f(a):  # a stray CR ends this line:\r    return a.enable_x\r\n",
    ],
    ids=["cr-only", "stray-cr"],
)
@pytest.mark.parametrize("whole", [True, False], ids=["whole", "lazy"])
def test_lone_carriage_returns_are_line_ends_too(source: str, whole: bool) -> None:
    """Python ends a line at a lone CR, the line table does not: such a text is walked
    whole (and no body waits), so the flag is still found where it is."""
    module = ProjectBuilder().string_build(source, "m", "m.py", whole=whole)
    _agree(module, {"enable_x"})
    walked = [n for c in CLASSES for n in spelled_nodes(module, c, {"enable_x"})]
    assert [_spelled(n) for n in walked].count("enable_x") == 1
