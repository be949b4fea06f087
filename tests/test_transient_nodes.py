"""A node made for one question and dropped after it (a fix's candidate test, parsed
where the gate is: fixing/strategies/base.py) must not leave its answers to the next.
The evaluator's facts are keyed by node identity (`id(node)`): once a node dies, Python
gives its id to a new object, often the next node of the same size. Each candidate below
reads `major` in its own function; the bug read one function's binding for another's."""

from __future__ import annotations

import gc
import weakref

import astroid
from astroid import nodes
from astroid.nodes._base_nodes import LookupMixIn

from gatecheck.config.loader import load_registry
from gatecheck.semantics.admitted import Semantics, in_memory_project

SOURCE = """\
import torch

def hopper():
    major, minor = torch.cuda.get_device_capability()
    if major == 9:
        pass

def blackwell():
    major, minor = torch.cuda.get_device_capability()
    major = major - 3
    if major == 9:
        pass
"""


def _anchor(module: nodes.Module, function: str) -> nodes.If:
    found = next(n for n in module.body if getattr(n, "name", None) == function)
    return next(n for n in found.body if isinstance(n, nodes.If))


def _candidate(anchor: nodes.NodeNG, text: str) -> nodes.NodeNG:
    """`text` parsed as if written in `anchor`'s place (as the fix strategies do)."""
    node = astroid.extract_node(f"({text})")
    node.parent = anchor.parent
    for each in node.nodes_of_class(nodes.NodeNG):
        each.lineno = each.end_lineno = anchor.lineno
    return node


def test_a_dropped_node_leaves_nothing_to_the_next() -> None:
    rounds = 40
    registry = load_registry()
    project = in_memory_project({"gate": SOURCE})
    module = project.module("gate")
    assert module is not None
    semantics = Semantics(project, registry, ())
    # Each question asked alone, of a Semantics of its own: nothing to be stale.
    expected = {
        function: Semantics(project, registry, ())
        .admission(_candidate(_anchor(module, function), "major == 9"))
        .can_be_true
        for function in ("hopper", "blackwell")
    }
    assert expected["hopper"] != expected["blackwell"], expected
    seen: list[tuple[str, frozenset[str]]] = []
    for index in range(rounds):
        function = ("hopper", "blackwell")[index % 2]
        candidate = _candidate(_anchor(module, function), "major == 9")
        seen.append((function, semantics.admission(candidate).can_be_true))
        del candidate
        _forget_astroid_lookups()
    wrong = [(i, f, sorted(a)) for i, (f, a) in enumerate(seen) if a != expected[f]]
    assert not wrong, f"expected {expected}"


def test_a_question_s_node_lives_as_long_as_the_answers_keyed_by_it() -> None:
    """What makes the test above deterministic: a node an evaluation started from is
    never freed while the facts keyed by its id are kept (so its id is never reused)."""
    project = in_memory_project({"gate": SOURCE})
    module = project.module("gate")
    assert module is not None
    semantics = Semantics(project, load_registry(), ())
    candidate = _candidate(_anchor(module, "hopper"), "major == 9")
    name = next(candidate.nodes_of_class(nodes.Name))
    semantics.admission(candidate)
    assert ("lookup", id(name)) in semantics._facts  # what would go stale
    alive = weakref.ref(name)
    del candidate, name
    _forget_astroid_lookups()
    assert alive() is not None
    del semantics
    _forget_astroid_lookups()
    assert alive() is None  # kept by the Semantics, not leaked for the process


def _forget_astroid_lookups() -> None:
    """astroid's `lookup` keeps its last 128 nodes alive (a process-wide lru_cache):
    what hid the bug until 128 more names were looked up, as a 200-gate fix does."""
    LookupMixIn.lookup.cache_clear()  # type: ignore[attr-defined]
    gc.collect()
