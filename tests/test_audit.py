"""audit without rules: which conditions are gates, which are call-site hops, vendor checks
or predicate definitions, and how each gate is classified for a new generation."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gatecheck.audit import AuditedGate, AuditReport, GateClass, run_audit
from gatecheck.audit.prefilter import ARCH_IDIOM, is_predicate_name, mentions_arch
from gatecheck.config.loader import load_ruleset
from gatecheck.config.model import RuleSet
from gatecheck.reporting.audit_json import render_audit_json
from tests.conftest import FIXTURES

MakeTree = Callable[[Mapping[str, str]], Path]

# Device predicates with readable bodies, as engines write them.
UTILS = """\
import torch


def is_sm90_supported():
    return torch.cuda.get_device_capability()[0] == 9


def is_sm100_supported():
    return torch.cuda.get_device_capability()[0] == 10


def is_sm120_supported():
    return torch.cuda.get_device_capability()[0] == 12


def is_hip():
    return torch.version.hip is not None
"""
IMPORTS = "import torch\nfrom pkg.utils import is_hip, is_sm90_supported, is_sm100_supported\n"


def audit(make_tree: MakeTree, source: str, generation: str = "sm120", **kw: object) -> AuditReport:
    # Two import lines either way, so a snippet's first line is line 3 of mod.py; the
    # sm120 predicate is imported only where the snippet uses it (an unused one at hand
    # is itself evidence of a gap).
    imports = IMPORTS.replace("is_sm100_supported", "is_sm100_supported, is_sm120_supported")
    if "is_sm120_supported" not in source:
        imports = IMPORTS
    root = make_tree(
        {
            "pkg/__init__.py": "",
            "pkg/utils.py": UTILS,
            "pkg/mod.py": imports + textwrap.dedent(source),
        }
    )
    ruleset = kw.pop("ruleset", None) or load_ruleset([])
    assert isinstance(ruleset, RuleSet)
    return run_audit([root], ruleset, generation)


def verdicts(report: AuditReport) -> list[tuple[int, str]]:
    """(line in mod.py, class) of the gates found there."""
    return sorted(
        (g.found.line, g.gate_class.value) for g in report.gates if g.path.name == "mod.py"
    )


def assert_first_reason(report: AuditReport, file_name: str, reason: str) -> None:
    """The first gate of `file_name` (by line) gives `reason` among its reasons."""
    first = min((g for g in report.gates if g.path.name == file_name), key=lambda g: g.found.line)
    assert any(reason in r for r in first.reasons), first.reasons


def mod_gates(report: AuditReport) -> tuple[AuditedGate, ...]:
    """The gates in mod.py (utils.py's predicates' own tests are rows too)."""
    return tuple(g for g in report.gates if g.path.name == "mod.py")


@pytest.fixture
def empty_rules() -> RuleSet:
    return load_ruleset([])


# Line numbers count the two import lines: the snippet's first line is line 3.
CLASSIFY_CASES = [
    pytest.param(
        "def use_fast():\n    return is_sm90_supported() or is_sm100_supported()\n",
        [(4, "likely-gap")],
        id="enumeration-of-two-majors-is-a-likely-gap",
    ),
    pytest.param(
        "if is_sm100_supported():\n    kernel = 'trtllm'\n",
        [(3, "probably-deliberate")],
        id="single-generation-kernel-gate",
    ),
    pytest.param(
        "if is_sm100_supported() or is_sm120_supported():\n    kernel = 'cutlass'\n",
        [(3, "admits")],
        id="admits-the-generation",
    ),
    pytest.param(
        "if not (is_sm90_supported() or is_sm100_supported()):\n    raise RuntimeError('no')\n",
        [(3, "likely-gap")],
        id="disabling-shape-reads-the-false-side",
    ),
    pytest.param(
        "if torch.cuda.get_device_capability()[0] < 9:\n    kernel = 'old'\n",
        [(3, "probably-deliberate")],
        id="older-hardware-threshold",
    ),
    pytest.param(
        "major = torch.cuda.get_device_capability()[0]\n"
        "if major < 9:\n"
        "    if major == 7 or major == 8:\n"
        "        kernel = 'volta-ampere'\n",
        [(4, "probably-deliberate"), (5, "probably-deliberate")],
        id="nested-gate-only-reached-on-older-hardware",
    ),
    # Gates that single out the audited generation itself are about it, not a gap.
    pytest.param(
        "def pick():\n"
        "    if torch.cuda.get_device_capability() != (12, 0):\n"
        "        return 'generic'\n"
        "    return 'mma_sm120'\n",
        [(4, "probably-deliberate")],
        id="singles-out-the-generation",
    ),
    # A reason returned by a `*_reason` / `unsupported*` helper disables: the feature is
    # where the condition is false, here sm120 only.
    pytest.param(
        "def unsupported():\n"
        "    if torch.cuda.get_device_capability() != (12, 0):\n"
        "        return 'device is not SM120'\n"
        "    return None\n",
        [(4, "admits")],
        id="reason-helper-for-the-generation-admits-it",
    ),
    # Polarity of bodies that switch off without raise/return False (issue 17 item 4).
    pytest.param(
        "use_fa = True\nif torch.cuda.get_device_capability() == (12, 0):\n    use_fa = False\n",
        [(4, "probably-deliberate")],
        id="flag-set-false-disables",
    ),
    pytest.param(
        "def test_x():\n"
        "    if not (is_sm90_supported() or is_sm100_supported()):\n"
        "        pytest.skip('needs SM90 or SM100')\n",
        [(4, "likely-gap")],
        id="pytest-skip-disables",
    ),
    pytest.param(
        "def check_support():\n"
        "    if not (is_sm90_supported() or is_sm100_supported()):\n"
        "        return False, 'needs SM90 or SM100'\n"
        "    return True, ''\n",
        [(4, "likely-gap")],
        id="return-false-reason-disables",
    ),
    pytest.param(
        "if torch.cuda.get_device_capability()[0] != 12:\n    kernel = 'generic'\n",
        [(3, "probably-deliberate")],
        id="singles-out-the-generation-family",
    ),
    pytest.param(
        "if is_hip():\n    kernel = 'aiter'\n",
        [(3, "vendor")],
        id="vendor-gate-is-listed-in-a-class-of-its-own",
    ),
    pytest.param(
        "if 'H20' in name:\n    kernel = 'slow'\n",
        [],
        id="device-names-are-unknown-not-a-gate",
    ),
]


@pytest.mark.parametrize(("source", "expected"), CLASSIFY_CASES)
def test_classification(make_tree: MakeTree, source: str, expected: list[tuple[int, str]]) -> None:
    assert verdicts(audit(make_tree, source)) == expected


def test_vendor_gates_are_listed_never_as_gaps(make_tree: MakeTree) -> None:
    # A condition that only tells vendors apart is an architecture decision all the
    # same: a row, classed `vendor` (the audited generation's vendor is all on one side:
    # no gap, no choice about it), with that side, ranked after every other class.
    report = audit(
        make_tree,
        "if is_hip():\n    x = 1\nif not is_hip():\n    x = 2\n"
        "if is_sm90_supported():\n    x = 3\n",
    )
    assert verdicts(report) == [(3, "vendor"), (5, "vendor"), (7, "probably-deliberate")]
    assert report.vendor_gates == 2
    vendor = [g for g in mod_gates(report) if g.gate_class.value == "vendor"]
    assert [g.reasons for g in vendor] == [
        (
            "tells vendors apart: admits no nvidia generation (of the others: gfx90a, gfx942, gfx950)",
        ),
        ("tells vendors apart: admits every nvidia generation",),
    ]
    assert [g.found.line for g in mod_gates(report)][-2:] == [3, 5]
    assert report.counts()[GateClass.VENDOR] == 2


@pytest.mark.parametrize(
    ("source", "line"),
    [
        # `not is_hip() or flag` can be true on every generation (the flag may be set on
        # AMD), but with the flag unset it is true on NVIDIA and false on AMD: the same
        # unknowns, another vendor, another outcome (conditions.varies), as for any gate.
        pytest.param(
            "if not is_hip() or flag:\n    x = 1\n", 3, id="enables-on-one-vendor-or-a-flag"
        ),
        # The mirror: switched off on AMD where a flag is set; the feature may be on
        # everywhere, the decision is AMD's only.
        pytest.param(
            "use_ws = flag\nif use_ws and is_hip():\n    use_ws = False\n",
            4,
            id="disables-on-one-vendor-with-a-flag",
        ),
    ],
)
def test_a_vendor_test_with_an_unknown_operand_is_listed(
    make_tree: MakeTree, source: str, line: int
) -> None:
    report = audit(make_tree, source)
    assert verdicts(report) == [(line, "vendor")]
    assert report.vendor_gates == 1


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param(
            "if torch.cuda.get_device_capability()[0] < 7:\n    x = 1\n",
            [(3, "torch.cuda.get_device_capability()[0] < 7 is false")],
            id="pre-volta-test-false-on-the-registry",
        ),
        pytest.param(
            "if torch.cuda.get_device_capability() >= (7, 0) and flag:\n    x = 1\n",
            [(3, "torch.cuda.get_device_capability() >= (7, 0) is true")],
            id="a-leaf-true-on-the-registry-beside-an-unknown",
        ),
        pytest.param(
            "arch = torch.cuda.get_device_properties(0).gcnArchName\n"
            "if arch.startswith('gfx11'):\n    x = 1\n",
            [(4, "arch.startswith('gfx11') is false")],
            id="a-part-outside-the-registry-by-name",
        ),
        pytest.param(
            "modern = any(torch.cuda.get_device_capability(i)[0] >= 6"
            " for i in range(torch.cuda.device_count()))\n",
            [(3, "torch.cuda.get_device_capability(i)[0] >= 6 is true")],
            id="a-floor-below-the-registry-tested-on-every-device",
        ),
        pytest.param(
            "if all(torch.cuda.get_device_capability(i)[0] < 7 for i in range(n)):\n    x = 1\n",
            [(3, "torch.cuda.get_device_capability(i)[0] < 7 is false")],
            id="all-devices-before-the-registry",
        ),
        pytest.param(
            "modern = any(torch.cuda.get_device_capability(i)[0] >= 9 for i in range(n))\n",
            [],
            id="noop-a-gate-on-every-device",
        ),
        pytest.param(
            "def major_or_none():\n    if not torch.cuda.is_initialized():\n"
            "        return None\n    return torch.cuda.get_device_properties(0).major\n"
            "def usable():\n    major = major_or_none()\n"
            "    if major is not None and major < 6:\n        return False\n",
            [(9, "major < 6 is false")],
            id="a-helper-that-may-give-none",  # DeepSpeed's op builders
        ),
        pytest.param(
            "def half_ok():\n    major, _ = torch.cuda.get_device_capability()\n"
            "    return major >= 7\n"
            "def dtypes():\n    if half_ok():\n        return 2\n    return 1\n",
            [(5, "major >= 7 is true"), (7, "half_ok() is true")],
            id="a-call-of-a-constant-predicate",  # DeepSpeed's accelerator (recall study, R5)
        ),
        pytest.param(
            "MODERN = torch.cuda.get_device_capability()[0] >= 6\nif not MODERN:\n    x = 1\n",
            [(3, "torch.cuda.get_device_capability()[0] >= 6 is true"), (4, "MODERN is true")],
            id="a-name-bound-to-a-constant-test",
        ),
        pytest.param(
            "arch = torch.cuda.get_device_properties(0).gcnArchName\n"
            "ON_GFX1X = any(a in arch for a in ['gfx11', 'gfx12'])\n",
            [(4, "any((a in arch for a in ['gfx11', 'gfx12'])) is false")],
            id="an-arch-searched-for-each-of-a-few-literals",  # vLLM's ROCm on_gfx1x()
        ),
        pytest.param(
            "arch = torch.cuda.get_device_properties(0).gcnArchName\n"
            "ON_GFX1250 = 'gfx1250' in arch\n"
            "def on_gfx1250():\n    return ON_GFX1250\n"
            "def tiles():\n    big = on_gfx1250()\n    return 2 if big else 1\n",
            [(4, "'gfx1250' in arch is false"), (9, "big is false")],
            id="a-flag-of-a-call-of-a-module-flag",  # three deep: name, call, name
        ),
        pytest.param(
            "arch = torch.cuda.get_device_properties(0).gcnArchName\n"
            "ON_MI3 = any(a in arch for a in ['gfx942', 'gfx950'])\n",
            [],
            id="noop-an-arch-searched-for-literals-that-vary",
        ),
        pytest.param(
            "def half_ok(dev):\n    return torch.cuda.get_device_capability(dev)[0] >= 9\n"
            "def dtypes():\n    if half_ok(0):\n        return 2\n    return 1\n",
            [],
            id="noop-a-call-of-a-predicate-that-varies",
        ),
        # Noops: no value the device decides is compared (device presence, a count
        # nothing models, a plain number), or the test varies (a gate).
        pytest.param("if torch.cuda.is_available():\n    x = 1\n", [], id="noop-presence"),
        pytest.param("if torch.cuda.device_count() > 1:\n    x = 1\n", [], id="noop-count"),
        pytest.param("if n < 7:\n    x = 1\n", [], id="noop-no-device"),
        pytest.param(
            "if torch.cuda.get_device_capability()[0] < 9:\n    x = 1\n", [], id="noop-a-gate"
        ),
        pytest.param(
            "flag = False\nif torch.cuda.get_device_capability()[0] == 9 and flag:\n    x = 1\n",
            [],
            id="noop-a-varying-test-another-operand-keeps-constant",
        ),
    ],
)
def test_tests_constant_over_the_registry_are_listed_apart(
    make_tree: MakeTree, source: str, expected: list[tuple[int, str]]
) -> None:
    # A comparison of a value the device decides with a constant that is the same on every
    # registered generation is about hardware outside the registry (pre-Volta, RDNA): a
    # row classed `constant`, never weighed for GEN, ranked last.
    report = audit(make_tree, source)
    constant = [g for g in mod_gates(report) if g.gate_class is GateClass.CONSTANT]
    assert [(g.found.line, g.reasons[0]) for g in constant] == [
        (line, f"constant over the registry: {text} on every registered generation")
        for line, text in expected
    ]
    assert all(g.gate_class is GateClass.CONSTANT for g in mod_gates(report)) or not expected


def test_nvidia_gates_are_gates_for_an_amd_generation(make_tree: MakeTree) -> None:
    # They tell NVIDIA generations apart: rows, classed for gfx950 as any gate (a
    # capability major of 9 is true on ROCm's gfx9 parts: it admits gfx950); a vendor
    # test alone stays counted (tests/test_other_vendor_gates.py).
    report = audit(
        make_tree, "if is_sm90_supported() or is_sm100_supported():\n    x = 1\n", "gfx950"
    )
    assert verdicts(report) == [(3, "admits")]
    assert report.columns == ("gfx90a", "gfx942", "gfx950")


def test_call_site_of_a_gate_function_is_a_hop_of_its_gate(make_tree: MakeTree) -> None:
    # The rule: a condition whose every generation-dependent operand is a call to a
    # project function holding a gate (or hop), and that is not named like a device
    # predicate, only passes that gate's answer on. It is listed under the gate.
    report = audit(
        make_tree,
        """\
        def apply_fusion(n):
            return (is_sm90_supported() or is_sm100_supported()) and n > 0


        def forward(x):
            if apply_fusion(x) and x > 2:
                return 1
            return 0
        """,
    )
    assert verdicts(report) == [(4, "likely-gap")]
    (gate,) = mod_gates(report)
    assert [(s.line, s.qualname) for s in gate.call_sites] == [(8, "pkg.mod.forward")]
    assert [h.line for h in report.hops] == [8]


def test_call_site_mixing_a_gate_function_and_a_predicate_is_a_gate(make_tree: MakeTree) -> None:
    report = audit(
        make_tree,
        """\
        def apply_fusion(n):
            return is_sm90_supported() and n > 0


        def forward(x):
            if apply_fusion(x) or is_sm120_supported():
                return 1
        """,
    )
    assert verdicts(report) == [(4, "probably-deliberate"), (8, "admits")]
    assert report.hops == ()


def test_device_predicate_call_sites_are_gates_not_hops(make_tree: MakeTree) -> None:
    # is_sm9x_or_10x is named like a device predicate: each call site is a decision
    # (reported), and so is its own test (where a fix of the predicate goes), marked as
    # its definition; not a hop.
    report = audit(
        make_tree,
        """\
        def is_sm9x_or_10x():
            return torch.cuda.get_device_capability()[0] in (9, 10)


        if is_sm9x_or_10x():
            kernel = 'wgmma'
        if is_sm9x_or_10x():
            other = 'tma'
        """,
    )
    assert verdicts(report) == [(4, "likely-gap"), (7, "likely-gap"), (9, "likely-gap")]
    assert [g.found.line for g in mod_gates(report) if g.found.definition] == [4]
    # Listed: this one and the four bodies in utils.py; is_hip's tells only vendors apart.
    assert report.predicate_definitions == 1
    assert report.hops == ()


def test_predicate_built_on_a_gate_holding_helper_is_still_a_predicate(
    make_tree: MakeTree,
) -> None:
    # The helper holds a gate of its own (`>= 8`), but it is called as is_sm9x(): a
    # device predicate, so the call site is the decision; the binding (where a fix of
    # the predicate goes: its constants) is the predicate's definition, a row too.
    report = audit(
        make_tree,
        """\
        from functools import partial


        def _major_in(majors):
            major = torch.cuda.get_device_capability()[0]
            return major >= 8 and major in majors


        is_sm9x = partial(_major_in, [9])
        if is_sm9x():
            kernel = 'wgmma'
        """,
    )
    assert verdicts(report) == [
        (8, "admits"),
        (11, "probably-deliberate"),
        (12, "probably-deliberate"),
    ]
    assert [g.found.line for g in mod_gates(report) if g.found.definition] == [11]
    assert report.hops == ()


def test_gate_binding_uses_are_hops(make_tree: MakeTree) -> None:
    report = audit(
        make_tree,
        """\
        ENABLE_FAST = is_sm90_supported() or is_sm100_supported()
        if ENABLE_FAST:
            kernel = 'fast'
        """,
    )
    assert verdicts(report) == [(3, "likely-gap")]
    assert [h.line for h in report.hops] == [4]
    assert report.gates[0].feature == "ENABLE_FAST"


@pytest.mark.parametrize(
    ("source", "gate_line", "sites"),
    [
        # (A callee named for the arch, `_match_sm("100")`, spells the allowlist at the
        # call: the assignment is the row, tests/test_audit_written_comparisons.py.)
        pytest.param(
            """\
            def _matches(version):
                major, minor = torch.cuda.get_device_capability()
                return f"{major * 10 + minor}" == version


            def gemm(names):
                is_sm100 = _matches("100")
                if "cutlass" in names and is_sm100:
                    return 1
            """,
            5,
            [10],
            id="a-local-set-from-a-gate-function",
        ),
        pytest.param(
            """\
            def fp8_fnuz():
                return torch.cuda.get_device_capability()[0] == 9


            _fnuz = fp8_fnuz()
            _also = _fnuz
            if _also:
                kernel = 'fnuz'
            """,
            4,
            [9],
            id="a-copy-of-a-module-constant-set-from-a-gate-function",
        ),
        pytest.param(
            """\
            def fp8_fnuz():
                return torch.cuda.get_device_capability()[0] == 9


            use_fnuz = fp8_fnuz()
            if use_fnuz:
                kernel = 'fnuz'
            """,
            4,
            [7, 8],
            id="noop-a-switch-kept-from-the-call-is-its-readers-source",
        ),
    ],
)
def test_readers_of_a_binding_set_from_a_gate_function_are_its_hops(
    make_tree: MakeTree, source: str, gate_line: int, sites: list[int]
) -> None:
    # A name assigned a gate function's result, with no condition of its own there, only
    # passes on what the function decided: its readers are that function's call sites,
    # listed under the gate inside it (they were hops of nothing). A switch kept from the
    # call (`use_*`, a hop of its own where it is set) stays its readers' source.
    report = audit(make_tree, source)
    gates = {g.found.line: g for g in mod_gates(report)}
    assert [s.line for s in gates[gate_line].call_sites] == sites
    attached = {s.line for g in mod_gates(report) for s in g.call_sites}
    assert [h.line for h in report.hops if h.line not in attached] == []


@pytest.mark.parametrize("negated", [False, True])
def test_a_hop_carries_its_own_admitted_set(make_tree: MakeTree, negated: bool) -> None:
    """`if not ENABLE_FAST:` passes the gate on, true where the gate's condition is false:
    the row's set would tell a reader the opposite."""
    reader = "not ENABLE_FAST" if negated else "ENABLE_FAST"
    report = audit(
        make_tree,
        f"""\
        ENABLE_FAST = is_sm90_supported() or is_sm100_supported()
        if {reader}:
            kernel = 'fast'
        """,
    )
    (gate,), (hop,) = mod_gates(report), report.hops
    gates_set = gate.found.admission.can_be_true
    assert hop.admitted == (report.registry.all_names() - gates_set if negated else gates_set)
    data = json.loads(render_audit_json(report))
    assert data["hops"][0]["admitted"] == report.registry.ordered(hop.admitted)
    assert data["gates"][0]["call_sites"][0]["admitted"] == data["hops"][0]["admitted"]


def test_predicate_alias_definition_is_vocabulary(make_tree: MakeTree) -> None:
    report = audit(
        make_tree,
        """\
        _is_sm9x = is_sm90_supported() or is_sm100_supported()
        if _is_sm9x:
            kernel = 'fast'
        """,
    )
    assert verdicts(report) == [(4, "likely-gap")]
    assert report.predicate_definitions >= 1


def test_nested_condition_is_part_of_the_outermost_one(make_tree: MakeTree) -> None:
    report = audit(
        make_tree,
        "if (1 if is_sm90_supported() else 0) or is_sm100_supported():\n    x = 1\n",
    )
    assert len([g for g in report.gates if g.path.name == "mod.py"]) == 1


def test_generation_predicate_at_hand_but_unused_makes_a_likely_gap(make_tree: MakeTree) -> None:
    source = "if is_sm100_supported():\n    kernel = 'tcgen05'\n"
    report = audit(make_tree, source + "# is_sm120_supported is imported, never called\n")
    (gate,) = mod_gates(report)
    assert gate.gate_class is GateClass.LIKELY_GAP
    assert any("'is_sm120_supported'" in r and "never used" in r for r in gate.reasons)


@pytest.mark.parametrize(
    ("gate", "expected"),
    [
        # The module tests sm120 elsewhere: a gate admitting only other majors of its
        # family (Blackwell) was more often left behind than meant (release history).
        ("is_sm100_supported()", "likely-gap"),
        # A gate of another family (a Hopper kernel) stays a single-generation gate.
        ("is_sm90_supported()", "probably-deliberate"),
    ],
)
def test_generation_predicate_used_elsewhere(make_tree: MakeTree, gate: str, expected: str) -> None:
    report = audit(
        make_tree,
        f"""\
        if {gate}:
            kernel = 'fast'
        if is_sm120_supported():
            other = 'mma_sm120'
        """,
    )
    assert verdicts(report) == [(3, expected), (5, "admits")]
    first = report.gates[0] if report.gates[0].found.line == 3 else report.gates[1]
    assert any("used elsewhere" in r for r in first.reasons)
    if expected == "likely-gap":
        assert first.reasons[0] == "admits only sm100, sm103, of sm120's family (Blackwell)"
    else:
        assert first.reasons[0] == "a single-generation gate: admits only sm90"


def test_rules_exclude_is_the_decision_ledger(make_tree: MakeTree, tmp_path: Path) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text(
        textwrap.dedent(
            """\
            features:
              - id: fused-moe
                description: fused MoE
                flags: [enable_fused_moe]
                require: [sm90, sm100]
                exclude: {sm120: "no tcgen05 on SM120"}
            """
        )
    )
    source = """\
    class Args:
        def post_init(self):
            if is_sm90_supported() or is_sm100_supported():
                self.enable_fused_moe = True
    """
    report = audit(make_tree, source, ruleset=load_ruleset([rules]))
    (gate,) = mod_gates(report)
    assert gate.gate_class is GateClass.DECIDED
    assert gate.feature == "fused-moe"
    assert gate.reasons == ("rules exclude sm120 from 'fused-moe': no tcgen05 on SM120",)


@pytest.mark.parametrize(
    ("require", "expected", "reason"),
    [
        # Required: what `check` reports, though a single-generation gate reads as meant.
        ("[sm90, sm100, sm120]", GateClass.LIKELY_GAP, "the rule 'fused-moe' requires sm120"),
        ("[sm100]", GateClass.DELIBERATE, "a single-generation gate: admits only sm100, sm103"),
    ],
    ids=["required-by-the-rules", "not-required"],
)
def test_rules_require_is_a_likely_gap(
    make_tree: MakeTree, tmp_path: Path, require: str, expected: GateClass, reason: str
) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text(
        "features:\n  - id: fused-moe\n    description: fused MoE\n"
        f"    flags: [enable_fused_moe]\n    require: {require}\n"
    )
    source = """\
    class Args:
        def post_init(self):
            if is_sm100_supported():
                self.enable_fused_moe = True
    """
    (gate,) = mod_gates(audit(make_tree, source, ruleset=load_ruleset([rules])))
    assert (gate.gate_class, gate.feature) == (expected, "fused-moe")
    assert gate.reasons[0].startswith(reason)


def test_inline_suppression_is_a_decision(make_tree: MakeTree) -> None:
    source = """\
    # gatecheck: ignore[fused-moe] sm120 has no TMA multicast
    if is_sm90_supported() or is_sm100_supported():
        kernel = 'fast'
    """
    (gate,) = mod_gates(audit(make_tree, source))
    assert gate.gate_class is GateClass.DECIDED
    assert gate.reasons == ("suppressed inline (line 3): sm120 has no TMA multicast",)


FEATURE_CASES = [
    pytest.param(
        "class A:\n    def f(self):\n        if is_sm90_supported() or is_sm100_supported():\n            self.enable_fusion = True\n",
        ("enable_fusion", "assigned"),
        id="flag-switched-on-in-the-branch",
    ),
    pytest.param(
        "def f(args):\n    return args.use_fp8_gemm and (is_sm90_supported() or is_sm100_supported())\n",
        ("use_fp8_gemm", "read"),
        id="flag-read-in-the-condition",
    ),
    pytest.param(
        "def pick(n):\n    if is_sm90_supported() or is_sm100_supported():\n        return n\n",
        ("pkg.mod.pick", "function"),
        id="enclosing-function",
    ),
    pytest.param(
        "if is_sm90_supported() or is_sm100_supported():\n    KERNEL = 'x'\n",
        ("pkg.mod", "module"),
        id="module",
    ),
    pytest.param(
        "use_tma = is_sm90_supported() or is_sm100_supported()\n",
        ("use_tma", "assigned"),
        id="assigned-name",
    ),
]


@pytest.mark.parametrize(("source", "expected"), FEATURE_CASES)
def test_feature_names(make_tree: MakeTree, source: str, expected: tuple[str, str]) -> None:
    (gate,) = mod_gates(audit(make_tree, source))
    assert (gate.feature, gate.feature_source) == expected


def test_likely_gaps_come_first_and_features_stay_together(make_tree: MakeTree) -> None:
    report = audit(
        make_tree,
        """\
        def a():
            if is_sm100_supported() or is_sm120_supported():
                return 1
            if is_sm90_supported():
                return 2


        def b():
            if is_sm90_supported() or is_sm100_supported():
                return 3
        """,
    )
    order = [(g.feature, g.gate_class.value) for g in mod_gates(report)]
    assert order == [
        ("pkg.mod.b", "likely-gap"),
        ("pkg.mod.a", "probably-deliberate"),
        ("pkg.mod.a", "admits"),
    ]


def test_seed_fixture(empty_rules: RuleSet) -> None:
    shipped = load_ruleset(None)
    report = run_audit([FIXTURES / "seed_alias"], shipped, "sm120")
    top = [(g.path.name, g.start.line, g.gate_class.value, g.feature) for g in report.gates[:2]]
    assert sorted(top) == [
        ("communicator.py", 21, "likely-gap", "flashinfer-allreduce-fusion"),
        ("server_args.py", 27, "likely-gap", "flashinfer-allreduce-fusion"),
    ]
    # The use of is_sm120_supported, and its binding (partial(..., majors=[12])).
    assert report.counts()[GateClass.ADMITS] == 2
    assert len(report.hops) == 1  # `if apply_flashinfer_allreduce_fusion(...)`
    # Without rules the same gates are found, named by the flag they read and switch.
    bare = run_audit([FIXTURES / "seed_alias"], empty_rules, "sm120")
    assert [g.feature for g in bare.gates[:2]] == ["enable_flashinfer_allreduce_fusion"] * 2


PREDICATE_NAMES = [
    ("is_sm100_supported", True),
    ("_is_sm90_supported", True),
    ("is_blackwell", True),
    ("has_device_capability", True),
    ("is_hip", True),
    ("is_hopper_with_cuda_12_3", True),
    ("apply_flashinfer_allreduce_fusion", False),
    ("should_use_tma", False),
    ("is_flashinfer_available", False),
    ("set_cuda_arch", False),
]


@pytest.mark.parametrize(("name", "expected"), PREDICATE_NAMES)
def test_predicate_names(name: str, expected: bool) -> None:
    assert is_predicate_name(name) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("major, minor = torch.cuda.get_device_capability()", True),
        ("if is_sm100_supported():", True),
        ("arch = props.gcnArchName", True),
        ("model_arch = config.architectures[0]", False),
        ("search(query)", False),
        ("@unittest.skipIf(get_device_sm() < 90, 'needs Hopper')", True),
        # The alternatives found where "arch" or "get_device_" is (mentions_arch).
        ("cuda_arch = 90", True),
        ("os.environ['TORCH_CUDA_ARCH_LIST']", True),
        ("name = props.gcnArchName.split(':')[0]", True),
        ("GCN_ARCH in SUPPORTED", True),
        ("archive = open(path)", False),
        ("torch.cuda.get_device_properties(0).multi_processor_count", True),
        ("get_device_smem_bytes()", True),  # a literal: no word boundary after it
        ("torch.cuda.get_device_name(0)", False),
        ("torch.cuda.get_device_name(0); search_arch = 1", False),
        # nvidia-smi's capability query (idioms/nvidia_smi.py), not another of its fields.
        ('["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"]', True),
        ('["nvidia-smi", "--query-gpu=name", "--format=csv"]', False),
        # TVM's device (idioms/tvm_device.py).
        ("version = tvm.cuda(0).compute_version", True),
        ("version = tvm.cuda(0).exist", False),
        # Vendor and target idioms: a file testing only them holds vendor gates.
        ("IS_ROCM = torch.version.hip is not None", True),
        ("if torch.version.cuda is None: raise", True),
        ("backend = triton.runtime.driver.active.get_current_target().backend", True),
        ("from triton.language.target_info import is_hip_cdna4", True),
        ("info = amdsmi_get_gpu_asic_info(handle)", True),
        # torch's bfloat16 test (idioms/bf16_support.py), not another dtype's.
        ("dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16", True),
        ("ok = torch.cuda.is_tf32_supported()", False),
        ("version = torch.__version__", False),
    ],
)
def test_file_prefilter(text: str, expected: bool) -> None:
    assert mentions_arch(text) is expected


# Pieces of every ARCH_IDIOM alternative, word characters around them, and the characters
# where lowercasing differs from re.IGNORECASE (Kelvin sign, long s, dotted/dotless i).
_IDIOM_PIECES = st.sampled_from(
    [
        *("arch", "ARCH", "is_", "get_", "sm", "SM", "_", "9", "10", "gfx", "capab", "ility"),
        *("x", "é", "gcn", "Gcn", "cuda", "CUDA", "name", "list", "device", "properties"),
        *("version", ".", "hip", "HIP", "target", "info", "get_current", "compute"),
        *("is_bf16", "_supported", "BF16"),
    ]
)
_CASE_SPECIALS = st.sampled_from([" ", ".", "\u212a", "\u017f", "\u0130", "\u0131", "gcnArchName"])


@given(st.lists(_IDIOM_PIECES | _CASE_SPECIALS, max_size=8).map("".join))
def test_file_prefilter_is_the_idiom_regex(text: str) -> None:
    assert mentions_arch(text) is (ARCH_IDIOM.search(text) is not None)


def test_predicate_named_attribute_is_a_row_and_its_readers_are_hops(make_tree: MakeTree) -> None:
    # Issue 17 item 6: one decision and its N readers are one row with N hops.
    report = audit(
        make_tree,
        """\
        class Runner:
            def __init__(self):
                self.is_hopper_or_sm100 = is_sm90_supported() or is_sm100_supported()

            def forward(self):
                if self.is_hopper_or_sm100:
                    return 1

            def backward(self):
                if self.is_hopper_or_sm100:
                    return 2
        """,
    )
    assert verdicts(report) == [(5, "likely-gap")]
    (gate,) = mod_gates(report)
    assert sorted(s.line for s in gate.call_sites) == [8, 12]


def test_module_level_predicate_alias_stays_vocabulary(make_tree: MakeTree) -> None:
    report = audit(make_tree, "_is_sm9x = is_sm90_supported()\nif _is_sm9x:\n    x = 1\n")
    assert verdicts(report) == [(4, "probably-deliberate")]


@pytest.mark.parametrize(
    "allowlist",
    [
        "torch.cuda.get_device_capability()[0] in (9, 10)",
        # written out over every device: the comparison inside any()
        "any(torch.cuda.get_device_capability(i)[0] in (9, 10) for i in range(n))",
        # a string test against literals
        'f"sm{torch.cuda.get_device_capability()[0]}".startswith(("sm9", "sm10"))',
    ],
)
def test_predicate_named_allowlist_is_one_row_with_its_readers_as_hops(
    make_tree: MakeTree, allowlist: str
) -> None:
    report = audit(
        make_tree,
        f"""\
        _is_sm9x_or_10x = {allowlist}
        if _is_sm9x_or_10x:
            kernel = 'wgmma'
        if _is_sm9x_or_10x:
            other = 'tma'
        """,
    )
    assert verdicts(report) == [(3, "likely-gap")]
    assert sorted(s.line for s in report.gates[0].call_sites) == [4, 6]
