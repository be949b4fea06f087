"""Property tests (hypothesis): random gate conditions mixing predicates, aliases,
capability comparisons and non-arch terms, with random layout and comments. The evaluator
and fixer never raise, and every fix keeps the autofix safety properties.

CI runs a short profile; `HYPOTHESIS_PROFILE=long python -m pytest tests/test_fix_properties.py`
runs the long one."""

from __future__ import annotations

import ast
import dataclasses
import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gatecheck.config.loader import load_registry, load_ruleset
from gatecheck.config.model import Feature, RuleSet
from gatecheck.engine import analyse
from gatecheck.fixing.fixer import plan_fixes, write_changes
from gatecheck.fixing.source import (
    FAST_PATH,
    analyse_in_memory,
    fix_source,
    fix_source_report,
    memory_path,
)
from tests.test_fix import RULE, UTILS
from tests.test_fix_strategies import MODULES

settings.register_profile(
    "ci", max_examples=25, deadline=None, suppress_health_check=list(HealthCheck)
)
settings.register_profile(
    "long", max_examples=2000, deadline=None, suppress_health_check=list(HealthCheck)
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

PRELUDE = """\
import torch
from pkg.utils import is_sm90_supported, is_sm100_supported, is_sm120_supported, is_blackwell
_is_sm90 = is_sm90_supported()
_is_sm100 = is_sm100_supported()
MAJOR = torch.cuda.get_device_capability()[0]
"""

ATOMS = st.sampled_from(
    [
        "is_sm90_supported()",
        "is_sm100_supported()",
        "is_sm120_supported()",
        "is_blackwell()",
        "_is_sm90",
        "_is_sm100",
        "MAJOR == 9",
        "MAJOR in (9, 10)",
        "MAJOR >= 10",
        "torch.cuda.get_device_capability() >= (9, 0)",
        "args.flag",
        "n > 0",
        "torch.version.cuda is not None",
    ]
)


def _combine(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(
            children,
            st.sampled_from([" and ", " or ", "\n        and ", " or  # why\n        "]),
            children,
        ).map(lambda t: f"({t[0]}{t[1]}{t[2]})"),
        children.map(lambda c: f"(not {c})"),
    )


CONDITIONS = st.recursive(ATOMS, _combine, max_leaves=6)


def _analyse(root: Path):  # type: ignore[no-untyped-def]
    ruleset = load_ruleset([root / "rules.yaml"])
    return ruleset, analyse([root], ruleset)


@given(condition=CONDITIONS)
def test_fixes_are_safe_and_idempotent(condition: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "pkg").mkdir()
        (root / "pkg" / "__init__.py").write_text("")
        (root / "pkg" / "utils.py").write_text(UTILS)
        (root / "rules.yaml").write_text(RULE)
        gate = root / "pkg" / "gate.py"
        source = (
            PRELUDE
            + f"def enabled(args, n):\n    return (\n        {condition}\n    ) and args.enable_fast_path\n"
        )
        gate.write_text(source)
        ruleset, before = _analyse(root)
        report = plan_fixes(before, ruleset, [root])
        write_changes(report, [root])
        after_bytes = gate.read_bytes()
        ast.parse(after_bytes)  # never unparseable
        if not report.changes:
            assert after_bytes == source.encode()
            return
        _ruleset, after = _analyse(root)
        registry = ruleset.registry
        old = {r.gate.qualname: r for r in before.gate_results}
        new = {r.gate.qualname: r for r in after.gate_results}
        for name, old_result in old.items():
            new_result = new[name]
            assert old_result.feature_admits <= new_result.feature_admits, (
                "a generation was dropped"
            )
            gained = new_result.feature_admits - old_result.feature_admits
            majors = {registry.get(g).major for g in old_result.missing}
            assert all(registry.get(g).major in majors for g in gained), f"gained {gained}"
        assert not after.findings
        # fixing twice equals fixing once
        ruleset2, again = _analyse(root)
        assert not plan_fixes(again, ruleset2, [root]).changes


@given(condition=CONDITIONS)
def test_evaluator_never_raises(condition: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "pkg").mkdir()
        (root / "pkg" / "__init__.py").write_text("")
        (root / "pkg" / "utils.py").write_text(UTILS)
        (root / "rules.yaml").write_text(RULE)
        (root / "pkg" / "gate.py").write_text(PRELUDE + f"X = ({condition})\n")
        _ruleset, analysis = _analyse(root)
        module = analysis.project.module("pkg.gate")
        assert module is not None
        value = module.locals["X"][0].parent.value
        admission = analysis.semantics.admission(value)
        assert (
            admission.can_be_true | admission.can_be_false
            == analysis.semantics.registry.all_names()
        )


# -- or-chains of the shapes engines write, through the pure fix_source ------------------

CHAIN_HEAD = (
    "import torch\n"
    "from pkg.utils import is_sm90_supported, is_sm100_supported, is_sm120_supported\n"
    "from pkg.platform import current_platform\n"
    "def enabled(args):\n"
    "    p = current_platform\n"
    "    major, minor = torch.cuda.get_device_capability()\n"
)

SHAPES = {
    "predicate": ["is_sm90_supported()", "is_sm100_supported()"],
    "major": ["major == 9", "major == 10"],
    "capability": ["(major, minor) == (9, 0)", "(major, minor) == (10, 0)", "major == 10"],
    "platform": [
        "p.is_device_capability(90)",
        "p.is_device_capability(100)",
        "p.is_device_capability_family(100)",
    ],
}

CHAINS = st.sampled_from(sorted(SHAPES)).flatmap(
    lambda shape: st.lists(st.sampled_from(SHAPES[shape]), min_size=1, max_size=3, unique=True)
)
LAYOUTS = st.sampled_from([" or ", "\n        or ", " or\n        "])
REQUESTS = st.sets(st.sampled_from(["sm103", "sm120", "sm121"]), min_size=1, max_size=2)


def _admits(source: str, feature: Feature) -> frozenset[str]:
    files = {"gate": source, **MODULES}
    contents = {memory_path(name): text.encode() for name, text in files.items()}
    contents[memory_path("pkg", package=True)] = b""
    analysis = analyse_in_memory(contents, RuleSet(load_registry(), (feature,)))
    (result,) = analysis.gate_results
    return result.feature_admits


@given(chain=CHAINS, layout=LAYOUTS, requested=REQUESTS)
def test_or_chain_fixes_admit_exactly_the_request(
    chain: list[str], layout: str, requested: set[str]
) -> None:
    source = CHAIN_HEAD + f"    return (\n        {layout.join(chain)}\n    ) and args.go\n"
    registry = load_registry()
    probe = dataclasses.replace(FAST_PATH, require=frozenset({"sm90"}))
    before = _admits(source, probe)
    feature = dataclasses.replace(FAST_PATH, require=frozenset(before | requested))
    report = fix_source_report(source, feature, modules=MODULES)
    ast.parse(report.text)
    if report.text == source:
        assert report.refused or requested <= before
        return
    after = _admits(report.text, feature)
    missing = requested - before
    assert missing <= after, "the fix admits what was requested"
    siblings = {
        g.name for g in registry.generations if g.major in {registry.get(m).major for m in missing}
    }
    assert after - before <= siblings, f"gained {sorted(after - before)} beyond {missing}"
    assert fix_source(report.text, feature, modules=MODULES) == report.text, "idempotent"
