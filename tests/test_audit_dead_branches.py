"""A gate that shuts a generation out of every call of a function that has a path of its
own for that generation (audit/dead_branches.py): a likely gap, its first reason naming
the function and the test whose side no call reaches. Each case a mini project: the
callee's module, the caller's module, the generation audited, and the class and first
words of the caller gate's row (the row at line 7 of layer.py, `_fast_path_ok`'s test).
The shape is TransformerEngine 2.16.0's grouped GEMM (its Hopper path kept in the callee,
every caller requiring `cc >= (10, 0)`; 2.18.0 let sm90 through)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from gatecheck.audit import run_audit
from gatecheck.config.loader import load_ruleset

MakeTree = Callable[[Mapping[str, str]], Path]

CALLER = """\
import torch
from .kernels import grouped


def _fast_path_ok(dtype) -> bool:
    if torch.cuda.get_device_capability() < (10, 0):
        return False
    return dtype in ("bf16", "fp16")


def forward(weights, inputs, dtype):
    if _fast_path_ok(dtype):
        return grouped(weights, inputs)
    return [w * x for w, x in zip(weights, inputs)]
"""

PER_GROUP = """\
import torch


def grouped(weights, inputs):
    per_group = torch.cuda.get_device_capability() >= (10, 0)
    count = len(weights) if per_group else 1
    return [w * x * count for w, x in zip(weights, inputs)]
"""

BRANCHED = """\
import torch


def grouped(weights, inputs):
    if torch.cuda.get_device_capability()[0] == 9:
        return hopper_grouped(weights, inputs)
    return [w * x for w, x in zip(weights, inputs)]
"""

REFUSES = """\
import torch


def grouped(weights, inputs):
    if torch.cuda.get_device_capability() < (10, 0):
        raise RuntimeError("needs Blackwell")
    return [w * x for w, x in zip(weights, inputs)]
"""

TELLS_APART = """\
import torch


def grouped(weights, inputs):
    wide = torch.cuda.get_device_capability() >= (10, 3)
    return [w * x * (2 if wide else 1) for w, x in zip(weights, inputs)]
"""

OFF_FLAG = """\
import torch


def grouped(weights, inputs):
    skip_fusion = torch.cuda.get_device_capability() < (10, 0)
    return [w * x for w, x in zip(weights, inputs)] if skip_fusion else fused(weights, inputs)
"""

BY_TILE = """\
def grouped(weights, inputs, tile):
    if tile == 64:
        return hopper_grouped(weights, inputs)
    return [w * x for w, x in zip(weights, inputs)]
"""

TILE_CALLER = CALLER.replace(
    "        return grouped(weights, inputs)\n",
    "        tile = 64 if torch.cuda.get_device_capability()[0] == 9 else 128\n"
    "        return grouped(weights, inputs, tile)\n",
)

UNGATED_CALLER = (
    CALLER
    + """

def warmup(weights, inputs):
    return grouped(weights, inputs)
"""
)


def caller_row(make_tree: MakeTree, kernels: str, layer: str, generation: str) -> tuple[str, str]:
    tree = make_tree({"pkg/__init__.py": "", "pkg/kernels.py": kernels, "pkg/layer.py": layer})
    report = run_audit([tree], load_ruleset([]), generation)
    (row,) = [g for g in report.gates if g.path.name == "layer.py" and g.found.line == 6]
    return row.gate_class.value, row.reasons[0]


@pytest.mark.parametrize(
    ("kernels", "generation", "expected"),
    [
        pytest.param(
            PER_GROUP,
            "sm90",
            "'grouped' (line 5 of kernels.py), called only past it, has a path for sm90",
            id="a-flag-set-the-other-way",
        ),
        pytest.param(
            PER_GROUP,
            "sm80",
            "'grouped' (line 5 of kernels.py), called only past it, has a path for sm80",
            id="any-generation-on-that-side",
        ),
        pytest.param(
            BRANCHED,
            "sm90",
            "'grouped' (line 5 of kernels.py), called only past it, has a path for sm90",
            id="a-branch-doing-work",
        ),
    ],
)
def test_a_gate_in_front_of_a_path_for_the_generation_is_a_likely_gap(
    make_tree: MakeTree, kernels: str, generation: str, expected: str
) -> None:
    gate_class, reason = caller_row(make_tree, kernels, CALLER, generation)
    assert gate_class == "likely-gap"
    assert reason.startswith(expected), reason


@pytest.mark.parametrize(
    ("kernels", "layer", "generation", "why"),
    [
        pytest.param(REFUSES, CALLER, "sm90", "the callee refuses it too: no path", id="a-refusal"),
        pytest.param(
            TELLS_APART,
            CALLER,
            "sm90",
            "the test tells the generations let through apart: live, not dead",
            id="a-live-test",
        ),
        pytest.param(
            OFF_FLAG, CALLER, "sm90", "an off-state flag set for it: a refusal", id="off-flag"
        ),
        pytest.param(
            BY_TILE,
            TILE_CALLER,
            "sm90",
            "the test reads what the callers pass for their generation, not the device",
            id="a-parameter-read",
        ),
        pytest.param(
            PER_GROUP,
            UNGATED_CALLER,
            "sm90",
            "a call the generation reaches: the path is not dead",
            id="a-call-it-reaches",
        ),
        pytest.param(
            BRANCHED,
            CALLER,
            "sm120",
            "the path is another generation's",
            id="another-generations-path",
        ),
    ],
)
def test_noop_no_dead_path_for_the_generation(
    make_tree: MakeTree, kernels: str, layer: str, generation: str, why: str
) -> None:
    gate_class, reason = caller_row(make_tree, kernels, layer, generation)
    assert "called only past it" not in reason, why
    assert gate_class != "likely-gap", (why, reason)


def test_the_callers_search_is_read_by_the_gate_it_decides(make_tree: MakeTree) -> None:
    """The search runs once, under whichever gate is classified first (kernels.py's here);
    the gate it makes a likely gap reads it too, so `impact` re-audits layer.py when a file
    calling `grouped` changes."""
    tree = make_tree({"pkg/__init__.py": "", "pkg/kernels.py": PER_GROUP, "pkg/layer.py": CALLER})
    report = run_audit([tree], load_ruleset([]), "sm90", record_reads=True)
    reads = {r.path.name: r.reads for r in report.reads}
    assert "calls:grouped" in reads["layer.py"], reads["layer.py"]
