"""Property tests (hypothesis): random gate conditions mixing predicates, aliases,
capability comparisons and non-arch terms, with random layout and comments. The evaluator
and fixer never raise, and every fix keeps the autofix safety properties.

CI runs a short profile; `HYPOTHESIS_PROFILE=long python -m pytest tests/test_fix_properties.py`
runs the long one."""

from __future__ import annotations

import ast
import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gatecheck.config.loader import load_ruleset
from gatecheck.engine import analyse
from gatecheck.fixing.fixer import plan_fixes, write_changes
from tests.test_fix import RULE, UTILS

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
