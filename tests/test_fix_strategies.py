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


def _feature(case: tuple[str, ...]):  # type: ignore[no-untyped-def]
    if len(case) < 3:
        return FAST_PATH
    return dataclasses.replace(FAST_PATH, require=frozenset(case[2]))


def _cases(attribute: str) -> list[object]:
    return list(_iter_cases(attribute))


def _iter_cases(attribute: str) -> Iterator[object]:
    for strategy in ORDER:
        for index, case in enumerate(getattr(strategy, attribute, [])):
            yield pytest.param(strategy, case, id=f"{strategy.NAME}-{index}")


def test_every_strategy_has_examples_and_noops() -> None:
    for strategy in ORDER:
        assert strategy.EXAMPLES, strategy.NAME
        assert strategy.NOOPS, strategy.NAME


@pytest.mark.parametrize(("strategy", "case"), _cases("EXAMPLES"))
def test_example(strategy: ModuleType, case: tuple[str, ...]) -> None:
    source, expected = case[0], case[1]
    report = fix_source_report(source, _feature(case), modules=MODULES)
    assert report.text == expected, report.refused
    assert not report.refused
    ast.parse(report.text)
    assert fix_source(report.text, _feature(case), modules=MODULES) == report.text


@pytest.mark.parametrize(("strategy", "case"), _cases("FORCED"))
def test_forced_example(strategy: ModuleType, case: tuple[str, ...]) -> None:
    source, expected = case[0], case[1]
    report = fix_source_report(source, _feature(case), modules=MODULES, force=True)
    assert report.text == expected, report.refused
    assert all("--force" in summary for summary in report.fixed)


@pytest.mark.parametrize(("strategy", "case"), _cases("NOOPS"))
def test_noop(strategy: ModuleType, case: tuple[str, ...]) -> None:
    source, reason = case[0], case[1]
    report = fix_source_report(source, _feature(case), modules=MODULES)
    assert report.text == source
    assert report.refused, "a noop must be refused, with its reason"
    assert any(reason in refusal for refusal in report.refused), report.refused
