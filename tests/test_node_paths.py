"""Where a node sits in its tree (audit/conditions.py node_path / node_at): how a worker
process names the conditions it found, so that the main process puts them on its own
nodes without walking the tree. A path leads back to the node; the same path leads to
the counterpart node in a tree built lazily (loading/lazy.py) or at once; a path that
leads nowhere, or to a node of another class, gives None."""

from __future__ import annotations

import textwrap

import pytest
from astroid import nodes

from gatecheck.audit.conditions import node_at, node_path
from gatecheck.loading.trees import ProjectBuilder
from tests.test_lazy_bodies import SOURCES as BODY_SOURCES

SOURCES = [
    pytest.param("x = 1 if is_sm90() else 2\n", id="module-level"),
    pytest.param(
        """\
        import torch

        @decorate(major >= 9)
        def pick(cap=None, *, flag=not is_hip()):
            major, minor = cap or torch.cuda.get_device_capability()
            if major == 9 and minor in (0, 1):
                return [n for n in range(4) if n > major]
            while major > 10:
                major -= 1
            return lambda: major >= 10
        """,
        id="function",
    ),
    pytest.param(
        """\
        class Backend:
            enabled = is_sm100()

            def supports(self, cc):
                assert cc is not None, "no device"
                return cc[0] in (9, 10)

            async def run(self):
                async with self.lock:
                    return await self.kernel(self.enabled and self.supports((9, 0)))
        """,
        id="class",
    ),
    *(pytest.param(source, id=name) for name, source in BODY_SOURCES.items()),
]


def _built(source: str, whole: bool) -> nodes.Module:
    return ProjectBuilder().string_build(textwrap.dedent(source), "m", "m.py", whole=whole)


@pytest.mark.parametrize("source", SOURCES)
def test_each_node_is_where_its_path_leads(source: str) -> None:
    module = _built(source, whole=True)
    for node in module.nodes_of_class(nodes.NodeNG):
        assert node_at(module, node_path(node)) is node


@pytest.mark.parametrize("source", SOURCES)
def test_a_lazy_tree_has_each_node_where_a_whole_one_has_it(source: str) -> None:
    """A path taken on a tree built at once leads to the same node on a tree whose bodies
    wait (each body on the way is built as the path goes through it)."""
    whole, lazy = _built(source, whole=True), _built(source, whole=False)
    for node in whole.nodes_of_class(nodes.NodeNG):
        found = node_at(lazy, node_path(node))
        assert found is not None
        assert type(found) is type(node)
        assert (found.lineno, found.col_offset) == (node.lineno, node.col_offset)
        assert found.as_string() == node.as_string()


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        pytest.param(((5, "Assign"),), "no fifth statement", id="past-the-children"),
        pytest.param(((0, "If"),), "the first statement is an assignment", id="another-class"),
        pytest.param(((0, "Assign"), (9, "Name")), "an assignment has two children", id="deep"),
    ],
)
def test_a_path_that_leads_nowhere_gives_none(
    path: tuple[tuple[int, str], ...], reason: str
) -> None:
    module = _built("x = 1\n", whole=True)
    assert node_at(module, path) is None, reason
