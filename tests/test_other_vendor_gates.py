"""A condition that tells another vendor's generations apart (`if is_gfx95_supported():`
in an sm120 audit, `if is_sm100_supported():` in a gfx950 one) is an architecture gate:
a row, classed as another vendor's gate (probably deliberate: no generation of the
audited vendor takes it, or `admits` where every one does). A vendor test alone
(`if _is_hip:`) tells none of one vendor's generations apart: a row classed `vendor`
(audit/conditions.other_vendor_told_apart)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from gatecheck.audit import run_audit
from gatecheck.config.loader import load_ruleset

MakeTree = Callable[[Mapping[str, str]], Path]

UTILS = """\
import torch


def is_hip():
    return torch.version.hip is not None


def is_gfx95_supported():
    return is_hip() and "gfx950" in torch.cuda.get_device_properties(0).gcnArchName


def is_sm100_supported():
    return torch.cuda.get_device_capability()[0] == 10
"""

MOD = """\
from pkg.utils import is_gfx95_supported, is_hip, is_sm100_supported

_is_hip = is_hip()


def pick(x):
    if _is_hip:
        return 1
    if is_gfx95_supported():
        return 2
    if not is_gfx95_supported():
        x = x + 1
    if is_sm100_supported():
        return 3
    return x
"""


@pytest.mark.parametrize(
    ("generation", "expected", "vendor_gates"),
    [
        (
            "sm120",
            {
                7: ("vendor", "tells vendors apart: admits no nvidia generation"),
                9: ("probably-deliberate", "another vendor's gate: it admits only gfx950"),
                11: ("admits", "admits sm120"),
                13: ("probably-deliberate", "a single-generation gate"),
            },
            1,
        ),
        (
            "gfx950",
            {
                7: ("vendor", "tells vendors apart: admits every amd generation"),
                9: ("admits", "admits gfx950"),
                11: ("probably-deliberate", "excludes it by name"),
                13: ("probably-deliberate", "another vendor's gate: it admits only sm100, sm103"),
            },
            1,
        ),
    ],
)
def test_another_vendors_generations_told_apart_are_rows(
    make_tree: MakeTree,
    generation: str,
    expected: dict[int, tuple[str, str]],
    vendor_gates: int,
) -> None:
    tree = make_tree({"pkg/__init__.py": "", "pkg/utils.py": UTILS, "pkg/mod.py": MOD})
    report = run_audit([tree], load_ruleset([]), generation)
    rows = {g.found.line: g for g in report.gates if g.path.name == "mod.py"}
    assert sorted(rows) == sorted(expected)
    for line, (gate_class, reason) in expected.items():
        assert rows[line].gate_class.value == gate_class
        assert any(reason in r for r in rows[line].reasons), rows[line].reasons
    # `if _is_hip:` tells vendors apart only
    assert report.vendor_gates == vendor_gates


# A refusal on every generation of the audited vendor, in a module that runs the audited
# generation's own paths elsewhere (sglang 0.5.15's MXFP8 MoE `requires SM100`, next to
# its gfx95 paths, widened to gfx950 in 0.5.16): a likely gap, ranked last. (mod.py,
# expected class of the line-5 gate, a piece of its first reason.)
REFUSALS = [
    pytest.param(
        "from pkg.utils import is_gfx95_supported, is_sm100_supported\n\n\n"
        "def process(w):\n"
        "    if not is_sm100_supported():\n"
        "        raise RuntimeError('MXFP8 MoE quantization requires SM100.')\n"
        "    return w\n\n\n"
        "def linear(x):\n"
        "    return x * 2 if is_gfx95_supported() else x\n",
        "likely-gap",
        "refuses every amd generation (it admits only sm100, sm103), while "
        "'is_gfx95_supported' (line 1) admits gfx950 and is used elsewhere",
        id="refusal-in-a-module-serving-the-generation",
    ),
    # Refused with an option on, the option let through on two majors of the other
    # vendor (sglang 0.5.18's `--enable-fp4-indexer requires SM100 or SM120`, widened to
    # gfx950 in 0.5.22): the option's gate, read as the refusal above.
    pytest.param(
        "import torch\nfrom pkg.utils import is_gfx95_supported\n\n"
        "def check(enable_fp4_indexer):\n"
        "    if enable_fp4_indexer and torch.cuda.get_device_capability()[0] not in (10, 12):\n"
        "        raise ValueError('--enable-fp4-indexer requires SM100 or SM120 GPUs')\n\n\n"
        "def linear(x):\n"
        "    return x * 2 if is_gfx95_supported() else x\n",
        "likely-gap",
        "refuses gfx950 when 'enable_fp4_indexer'",
        id="switched-refusal-in-a-module-serving-the-generation",
    ),
    # Noops: the module never tests the generation; a CUDA fast path with a fallback; an
    # option let through on one part of the other vendor (that part's own library).
    pytest.param(
        "from pkg.utils import is_gfx95_supported, is_sm100_supported\n\n\n"
        "def check(enable_tcgen05_moe):\n"
        "    if enable_tcgen05_moe and not is_sm100_supported():\n"
        "        raise ValueError('--enable-tcgen05-moe requires SM100')\n\n\n"
        "def linear(x):\n"
        "    return x * 2 if is_gfx95_supported() else x\n",
        "admits",
        "admits gfx950",
        id="switched-refusal-for-one-part",
    ),
    pytest.param(
        "from pkg.utils import is_sm100_supported\n\n\n"
        "def process(w):\n"
        "    if not is_sm100_supported():\n"
        "        raise RuntimeError('MXFP8 MoE quantization requires SM100.')\n"
        "    return w\n",
        "probably-deliberate",
        "another vendor's gate",
        id="module-without-the-generation",
    ),
    pytest.param(
        "from pkg.utils import is_gfx95_supported, is_sm100_supported\n\n\n"
        "def process(w):\n"
        "    if is_sm100_supported():\n"
        "        return fast(w)\n"
        "    return w\n\n\n"
        "def linear(x):\n"
        "    return x * 2 if is_gfx95_supported() else x\n",
        "probably-deliberate",
        "another vendor's gate",
        id="enabling-fast-path",
    ),
]


@pytest.mark.parametrize(("source", "gate_class", "reason"), REFUSALS)
def test_a_refusal_of_every_generation_in_a_module_serving_it(
    make_tree: MakeTree, source: str, gate_class: str, reason: str
) -> None:
    tree = make_tree({"pkg/__init__.py": "", "pkg/utils.py": UTILS, "pkg/mod.py": source})
    report = run_audit([tree], load_ruleset([]), "gfx950")
    rows = {g.found.line: g for g in report.gates if g.path.name == "mod.py"}
    assert rows[5].gate_class.value == gate_class, rows[5].reasons
    assert reason in rows[5].reasons[0], rows[5].reasons
