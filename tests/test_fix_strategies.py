"""Every fix strategy's own examples as tests (Fixit turns VALID/INVALID into tests the
same way): each (source, fixed) pair through the pure fix_source, fixing twice equals
fixing once, and each noop stays untouched with its refusal reason."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator
from types import ModuleType

import pytest

from gatecheck.fixing.source import FAST_PATH, fix_source, fix_source_report
from gatecheck.fixing.strategies import ORDER

MODULES: dict[str, str] = {}
for _strategy in ORDER:
    MODULES.update(getattr(_strategy, "MODULES", {}))


def _feature(strategy: ModuleType, case: tuple[str, ...]):  # type: ignore[no-untyped-def]
    # A strategy for gate functions' own gates names the examples' gate functions.
    feature = dataclasses.replace(
        FAST_PATH, gate_functions=getattr(strategy, "GATE_FUNCTIONS", FAST_PATH.gate_functions)
    )
    if len(case) < 3:
        return feature
    return dataclasses.replace(feature, require=frozenset(case[2]))


def _cases(attribute: str) -> list[object]:
    return list(_iter_cases(attribute))


def _iter_cases(attribute: str) -> Iterator[object]:
    for strategy in ORDER:
        for index, case in enumerate(getattr(strategy, attribute, [])):
            yield pytest.param(strategy, case, id=f"{strategy.NAME}-{index}")


def test_every_strategy_has_examples_and_noops() -> None:
    for strategy in ORDER:
        assert strategy.EXAMPLES or getattr(strategy, "FORCED", None), strategy.NAME
        assert strategy.NOOPS, strategy.NAME


@pytest.mark.parametrize(("strategy", "case"), _cases("EXAMPLES"))
def test_example(strategy: ModuleType, case: tuple[str, ...]) -> None:
    source, expected = case[0], case[1]
    report = fix_source_report(source, _feature(strategy, case), modules=MODULES)
    assert report.text == expected, report.refused
    assert not report.refused
    ast.parse(report.text)
    assert fix_source(report.text, _feature(strategy, case), modules=MODULES) == report.text


@pytest.mark.parametrize(("strategy", "case"), _cases("FORCED"))
def test_forced_example(strategy: ModuleType, case: tuple[str, ...]) -> None:
    source, expected = case[0], case[1]
    report = fix_source_report(source, _feature(strategy, case), modules=MODULES, force=True)
    assert report.text == expected, report.refused
    assert all("--force" in summary for summary in report.fixed)


@pytest.mark.parametrize(("strategy", "case"), _cases("NOOPS"))
def test_noop(strategy: ModuleType, case: tuple[str, ...]) -> None:
    _assert_refused(strategy, case, force=False)


@pytest.mark.parametrize(("strategy", "case"), _cases("FORCED_NOOPS"))
def test_forced_noop(strategy: ModuleType, case: tuple[str, ...]) -> None:
    _assert_refused(strategy, case, force=True)


def _assert_refused(strategy: ModuleType, case: tuple[str, ...], force: bool) -> None:
    source, reason = case[0], case[1]
    report = fix_source_report(source, _feature(strategy, case), modules=MODULES, force=force)
    assert report.text == source
    assert report.refused, "a noop must be refused, with its reason"
    assert any(reason in refusal for refusal in report.refused), report.refused


def test_behind_points_at_the_allowlist_in_another_module() -> None:
    from gatecheck.config.loader import load_registry
    from gatecheck.config.model import RuleSet
    from gatecheck.fixing.source import analyse_in_memory, memory_path
    from gatecheck.fixing.strategies.follow import behind
    from gatecheck.semantics.culprit import culprit

    helper = "import torch\ndef _use_fast():\n    return torch.cuda.get_device_capability()[0] in [9, 10]\n"
    gate = "from pkg.helpers import _use_fast\ndef enabled(args):\n    return _use_fast() and args.go\n"
    contents = {
        memory_path("gate"): gate.encode(),
        memory_path("pkg", package=True): b"",
        memory_path("pkg.helpers"): helper.encode(),
    }
    analysis = analyse_in_memory(contents, RuleSet(load_registry(), (FAST_PATH,)))
    (result,) = analysis.gate_results
    evaluator = analysis.semantics.evaluator("sm120")
    chain = behind(evaluator, culprit(result.gate.condition, evaluator, needs=True))
    assert [node.as_string() for node in chain] == [
        "_use_fast()",
        "torch.cuda.get_device_capability()[0] in [9, 10]",
    ]
    assert chain[-1].root().name == "pkg.helpers"
    fixed = fix_source_report(gate, modules={"pkg.helpers": helper})
    assert fixed.text == gate, "the gate's own file is not edited"
    assert fixed.changed == {"pkg.helpers": helper.replace("[9, 10]", "[9, 10, 12]")}
    assert fixed.fixed == ("added 12 to `[9, 10]`, behind `_use_fast()` (in pkg.helpers)",)


def test_helper_in_another_module_gets_its_sibling_imported_there() -> None:
    helper = (
        "from pkg.utils import is_sm90_supported, is_sm100_supported\n"
        "def use_fast():\n    return is_sm90_supported() or is_sm100_supported()\n"
    )
    gate = (
        "from pkg.helpers import use_fast\ndef enabled(args):\n    return use_fast() and args.go\n"
    )
    report = fix_source_report(gate, modules={**MODULES, "pkg.helpers": helper})
    assert report.text == gate
    assert report.changed == {
        "pkg.helpers": (
            "from pkg.utils import is_sm90_supported, is_sm100_supported, is_sm120_supported\n"
            "def use_fast():\n"
            "    return is_sm90_supported() or is_sm100_supported() or is_sm120_supported()\n"
        )
    }


@pytest.mark.parametrize(
    ("chain", "brings_sm121"),
    [
        pytest.param("p.is_device_capability_family(100)", True, id="family-120-brings-sm121"),
        pytest.param("p.is_device_capability(100)", False, id="exact-120-does-not"),
        pytest.param("(major, minor) == (10, 0)", False, id="tuple-12-0-does-not"),
        pytest.param("major == 10", True, id="major-12-brings-sm121"),
    ],
)
def test_siblings_come_only_with_the_spelling(chain: str, brings_sm121: bool) -> None:
    from gatecheck.config.loader import load_registry
    from gatecheck.config.model import RuleSet
    from gatecheck.fixing.source import analyse_in_memory, memory_path

    source = (
        "import torch\nfrom pkg.platform import current_platform\n"
        "def enabled(args):\n    p = current_platform\n"
        "    major, minor = torch.cuda.get_device_capability()\n"
        f"    return {chain} and args.go\n"
    )
    feature = dataclasses.replace(FAST_PATH, require=frozenset({"sm100", "sm120"}))
    fixed = fix_source_report(source, feature, modules=MODULES)
    assert fixed.text != source, fixed.refused
    contents = {memory_path("gate"): fixed.text.encode()}
    contents |= {memory_path(name): text.encode() for name, text in MODULES.items()}
    contents[memory_path("pkg", package=True)] = b""
    analysis = analyse_in_memory(contents, RuleSet(load_registry(), (feature,)))
    (result,) = analysis.gate_results
    assert "sm120" in result.feature_admits
    assert ("sm121" in result.feature_admits) is brings_sm121
