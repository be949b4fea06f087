"""bulk_allocation (loading/project.py) keeps the collector off a run's trees without a
counter of its own: nested inside another it does nothing, the outer one's end unfreezes
the heap; a project freezes the trees it builds only when told (Project.freeze_built),
and a tree nothing holds is collected."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from gatecheck.loading.project import Project, bulk_allocation

_ROOT = Path("/<memory>")
_FILE = _ROOT / "mod.py"


@pytest.fixture
def unfrozen() -> Iterator[None]:
    gc.unfreeze()  # the precondition: nothing frozen (harmless: the heap is collectable)
    saved = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*saved)


def _project(freeze_built: bool) -> Project:
    project = Project([_FILE], [_ROOT], overrides={_FILE: b"def f(x):\n    return x\n"})
    project.freeze_built = freeze_built
    return project


@pytest.mark.usefixtures("unfrozen")
def test_nested_bulk_leaves_the_outer_frozen() -> None:
    before = gc.get_threshold()
    with bulk_allocation():
        frozen = gc.get_freeze_count()
        assert frozen > 0
        raised = gc.get_threshold()
        with bulk_allocation():
            assert gc.get_threshold() == raised
        assert gc.get_freeze_count() >= frozen  # the inner end unfroze nothing
        assert gc.get_threshold() == raised
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == before


@pytest.mark.parametrize("freeze_built", [False, True])
@pytest.mark.usefixtures("unfrozen")
def test_a_tree_nothing_holds_is_collected(freeze_built: bool) -> None:
    with bulk_allocation():
        project = _project(freeze_built)
        before = gc.get_freeze_count()
        module = project.module_at(_FILE)
        assert module is not None
        assert (gc.get_freeze_count() > before) is freeze_built
        tree = weakref.ref(module)
        del module, project
        gc.collect()
        # Frozen, it outlives its project until the run's end; else it goes now.
        assert (tree() is not None) is freeze_built
    gc.collect()
    assert tree() is None
