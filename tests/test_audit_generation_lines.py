"""A generation's own line (config/model.Generation.same_line): the same vendor, major and
family. AMD's CDNA2, CDNA3 and CDNA4 parts all report major 9, so "the generation's own
test", "a gate about the generation itself" and the exact-minor sibling are read by line,
not by major: a test all three AMD generations pass is nobody's own, and a gfx942-only
gate audited for gfx950 is another line's gate (sglang's FNUZ fp8 checks: CDNA3's own
format), not a gate about gfx950 nor an exact-minor test that forgot it. Each
case a mini project audited for one generation: (source of mod.py, generation, expected
class of its one gate, a piece of its first reason)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from gatecheck.audit import run_audit
from gatecheck.config.loader import load_ruleset

MakeTree = Callable[[Mapping[str, str]], Path]

UTILS = """\
import os

import torch


def is_hip():
    return torch.version.hip is not None


def arch_name():
    return torch.cuda.get_device_properties(0).gcnArchName


def is_gfx942():
    return is_hip() and "gfx942" in arch_name()


def is_gfx95_supported():
    return is_hip() and "gfx950" in arch_name()


def get_device_sm():
    major, minor = torch.cuda.get_device_capability()
    return major * 10 + minor


def prefill_cp_enabled():
    return os.environ.get("PREFILL_CP") == "1"
"""

IMPORTS = (
    "from pkg.utils import get_device_sm, is_gfx942, is_gfx95_supported, prefill_cp_enabled\n\n\n"
)

CASES = [
    pytest.param(
        "def fast():\n"
        "    if is_gfx942():\n"
        "        return 'aiter'\n"
        "    return 'triton'\n\n\n"
        "def is_wide():\n"
        "    return is_gfx95_supported()\n",
        "gfx950",
        "probably-deliberate",
        "a single-generation gate: admits only gfx942",
        id="a-gfx942-only-gate-is-another-lines",
    ),
    pytest.param(
        "def choose(n):\n"
        "    sm = get_device_sm()\n"
        "    return (sm == 90 or 100 <= sm < 110) and n <= 4096 and not prefill_cp_enabled()\n",
        "gfx950",
        "probably-deliberate",
        "it admits only gfx90a",  # `sm == 90` is gfx90a's (9, 0); nobody's own test
        id="a-test-every-amd-generation-passes-is-nobodys-own",
    ),
    pytest.param(
        # A list of the CDNA parts before gfx950, named for the whole line: it admits
        # everything up to gfx950 of the three AMD generations known, but it is written
        # as an allowlist, not a cut-off, and names no test of gfx950 (xFormers 0.0.30).
        "import triton\n\n\n"
        "def is_cdna():\n"
        "    target = triton.runtime.driver.active.get_current_target()\n"
        "    return is_hip() and target.arch in ('gfx940', 'gfx942', 'gfx90a')\n\n\n"
        "def configs():\n"
        "    if is_cdna():\n"
        "        return 'cdna'\n"
        "    raise ValueError('Unknown Device Type')\n",
        "gfx950",
        "likely-gap",
        "'is_cdna' is named for CDNA but leaves out gfx950, a CDNA4 generation",
        id="an-allowlist-named-for-the-cdna-line",
    ),
    pytest.param(
        "def fast():\n"
        "    if get_device_sm() // 10 in (7, 8, 9, 10, 11):\n"
        "        return 'tiled'\n"
        "    raise ValueError('unsupported')\n",
        "sm120",
        "likely-gap",
        "enumerates 5 majors",
        id="an-enumeration-of-every-older-major-is-no-cut-off",
    ),
    pytest.param(
        # Thor reported (10, 1) before CUDA 13.0: a major-10 test took it in then (vLLM
        # 0.15.1's FA4 `major != 10`, widened to Thor in 0.18.0).
        "def fast():\n"
        "    if get_device_sm() // 10 == 10:\n"
        "        return 'tcgen05'\n"
        "    return 'generic'\n",
        "sm110",
        "likely-gap",
        "admits sm100, sm103, every generation of major 10, but not sm110, which reported "
        "(10, 1) under earlier toolkits",
        id="a-major-test-the-generation-was-renamed-out-of",
    ),
    # Noops: the generation's own test, and NVIDIA's lines as they were.
    pytest.param(
        "def fast():\n"
        "    if get_device_sm() == 100:\n"
        "        return 'tcgen05'\n"
        "    return 'generic'\n",
        "sm110",
        "probably-deliberate",
        "a single-generation gate: admits only sm100",
        id="an-exact-test-never-took-the-old-name-in",
    ),
    pytest.param(
        # A list of the parts it knew never took (10, 1) in.
        "def fast():\n"
        "    if get_device_sm() in (100, 103):\n"
        "        return 'tcgen05'\n"
        "    return 'generic'\n",
        "sm110",
        "probably-deliberate",
        "a single-generation gate: admits only sm100, sm103",
        id="a-list-of-the-parts-it-knew",
    ),
    pytest.param(
        "def fast():\n"
        "    if get_device_sm() // 10 == 10:\n"
        "        return 'tcgen05'\n"
        "    return 'generic'\n",
        "sm120",
        "probably-deliberate",
        "a single-generation gate: admits only sm100, sm103",
        id="no-former-name-no-renaming",
    ),
    pytest.param(
        "import triton\n\n\n"
        "def is_cdna3():\n"
        "    target = triton.runtime.driver.active.get_current_target()\n"
        "    return is_hip() and target.arch in ('gfx940', 'gfx942')\n\n\n"
        "def configs():\n"
        "    if is_cdna3():\n"
        "        return 'cdna3'\n"
        "    return 'generic'\n",
        "gfx950",
        "probably-deliberate",
        "a single-generation gate: admits only gfx942",
        id="a-name-for-one-cdna-part-promises-no-line",
    ),
    pytest.param(
        "def fast():\n"
        "    if get_device_sm() < 120:\n"
        "        return 'tiled'\n"
        "    raise ValueError('unsupported')\n",
        "sm120",
        "probably-deliberate",
        "an older-hardware branch",
        id="a-written-cut-off-stays-one",
    ),
    pytest.param(
        "def fast():\n"
        "    if get_device_sm() == 100:\n"
        "        return 'tcgen05'\n"
        "    return 'generic'\n",
        "sm103",
        "likely-gap",
        "admits sm100 but not sm103, of the same major 10: an exact-minor test",
        id="nvidia-exact-minor-sibling",
    ),
    pytest.param(
        "def fast():\n"
        "    if is_gfx942() and not is_gfx95_supported():\n"
        "        return 'aiter'\n"
        "    return 'triton'\n",
        "gfx950",
        "probably-deliberate",
        "names gfx950's own test 'is_gfx95_supported()'",
        id="its-own-test-named",
    ),
    pytest.param(
        "def fast():\n"
        "    if get_device_sm() // 10 != 12:\n"
        "        return 'generic'\n"
        "    return 'sm120'\n",
        "sm121",
        "probably-deliberate",
        "shuts out only sm120, sm121: a gate about sm121 itself; sm121 takes the other branch",
        id="nvidia-major-is-a-line",
    ),
    pytest.param(
        # A disabling gate about the generation: it goes into the branch, not past it.
        "def fused_ok():\n"
        "    use_fused = True\n"
        "    if get_device_sm() == 120:\n"
        "        use_fused = False\n"
        "    return use_fused\n",
        "sm120",
        "probably-deliberate",
        "a gate about sm120 itself; sm120 takes the branch that turns it off",
        id="a-disabling-gate-about-the-generation",
    ),
]


@pytest.mark.parametrize(("source", "generation", "gate_class", "reason"), CASES)
def test_generation_lines(
    make_tree: MakeTree, source: str, generation: str, gate_class: str, reason: str
) -> None:
    tree = make_tree({"pkg/__init__.py": "", "pkg/utils.py": UTILS, "pkg/mod.py": IMPORTS + source})
    report = run_audit([tree], load_ruleset([]), generation)
    row = min((g for g in report.gates if g.path.name == "mod.py"), key=lambda g: g.found.line)
    assert row.gate_class.value == gate_class, row.reasons
    assert any(reason in r for r in row.reasons), row.reasons


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        ("sm120", "sm121", True),
        ("sm100", "sm103", True),
        ("sm100", "sm110", False),
        ("sm86", "sm89", False),  # Ampere and Ada share major 8
        ("gfx942", "gfx950", False),  # CDNA3 and CDNA4 share major 9
        ("gfx950", "gfx950", True),
        ("sm90", "gfx90a", False),  # capability (9, 0) both
    ],
)
def test_same_line(first: str, second: str, expected: bool) -> None:
    registry = load_ruleset([]).registry
    assert registry.get(first).same_line(registry.get(second)) is expected


def test_a_cut_off_written_as_arithmetic(make_tree: MakeTree) -> None:
    """A hardware quantity's cut-off written as arithmetic (sglang 0.5.23's Blackwell
    flavours by shared memory): sm120 takes the small-memory branch of its own."""
    source = (
        "import torch\n\n\n"
        "def flavour():\n"
        "    if get_device_sm() >= 100:\n"
        "        smem = torch.cuda.get_device_properties(0).shared_memory_per_multiprocessor\n"
        "        if smem >= 150 * 1024:\n"
        "            return 'datacenter'\n"
        "        return 'spark'\n"
        "    return 'ampere'\n"
    )
    tree = make_tree({"pkg/__init__.py": "", "pkg/utils.py": UTILS, "pkg/mod.py": IMPORTS + source})
    report = run_audit([tree], load_ruleset([]), "sm120")
    (row,) = (g for g in report.gates if g.path.name == "mod.py" and "smem" in g.found.condition)
    assert row.gate_class.value == "probably-deliberate", row.reasons
    assert row.reasons[0].startswith("an older-hardware branch: it admits only sm100, sm103, sm110")
