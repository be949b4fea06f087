"""The garbage collector's thresholds while gatecheck builds what it keeps to the end of a
run (modules, classes and functions as it imports them, then trees). Imports nothing
but `gc`: the command line enters it before importing click and its own modules."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def few_collections() -> Iterator[None]:
    """A command's allocations are nearly all kept to its end: the modules, classes and
    functions its imports make (the command's module, the engine, astroid), then its
    trees. The cyclic collector's passes over them at the default thresholds (one every
    700 allocations) were about 40 ms of a cold check of sglang, most of them while
    importing. The thresholds are raised (as loading.project.bulk_allocation does for an
    analysis) and restored after; garbage cycles are still collected."""
    saved = gc.get_threshold()
    gc.set_threshold(max(saved[0], 50_000), max(saved[1], 20), max(saved[2], 100))
    try:
        yield
    finally:
        gc.set_threshold(*saved)
