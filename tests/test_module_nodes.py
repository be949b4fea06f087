"""audit.conditions.module_nodes: one walk of a module gives what the three walks it
replaced gave (slot owners, decorated definitions, calls), in the same order, and the
slots found from it are outermost_slots' own."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from astroid import nodes

from gatecheck.audit.conditions import _SLOT_OWNERS, module_nodes, outermost_slots
from gatecheck.loading.trees import ProjectBuilder

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

SOURCES = {
    "nested": """
        @register(sm90=True)
        class K:
            @staticmethod
            def f(x):
                if x and g(y if z else w):
                    return [a for a in b if a > major]
                assert major >= 9, f"{h()}"
        async def run():
            while await ready():
                pass
    """,
    "empty": "",
}


def _check(module: nodes.Module) -> None:
    walked = module_nodes(module)
    assert walked.owners == list(module.nodes_of_class(_SLOT_OWNERS))
    assert walked.definitions == list(module.nodes_of_class((nodes.FunctionDef, nodes.ClassDef)))
    assert walked.calls == list(module.nodes_of_class(nodes.Call))
    assert outermost_slots(module, walked) == outermost_slots(module)


@pytest.mark.parametrize("source", list(SOURCES.values()), ids=list(SOURCES))
def test_one_walk_finds_what_three_did(source: str) -> None:
    _check(ProjectBuilder().string_build(textwrap.dedent(source), "m", "/x/m.py", whole=True))


@pytest.mark.parametrize(
    "path", sorted(FIXTURES.rglob("*.py")), ids=lambda p: str(p.relative_to(FIXTURES))
)
def test_one_walk_finds_what_three_did_on_fixtures(path: Path) -> None:
    try:
        module = ProjectBuilder().string_build(path.read_text("utf-8"), "m", str(path))
    except Exception:  # a fixture that is meant not to parse
        pytest.skip("not a module astroid builds")
    _check(module)
