"""Every registered idiom's examples and noops, as tests (Fixit-style: the idiom carries
them; this module only turns them into cases). Pure: nothing touches the disk."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from gatecheck.semantics.admitted import admission_of
from gatecheck.semantics.idioms._model import Example, Idiom, Noop
from gatecheck.semantics.oracle import default_idioms

IDIOMS = default_idioms().idioms


def _cases(kind: str) -> list[object]:
    found = []
    for idiom in IDIOMS:
        for case in idiom.examples if kind == "examples" else idiom.noops:
            found.append(pytest.param(idiom, case, id=f"{idiom.name}:{case.id}"))
    return found


@pytest.mark.parametrize(("idiom", "example"), _cases("examples"))
def test_example(ruleset: RuleSet, idiom: Idiom, example: Example) -> None:
    admission = admission_of(example.source, example.expr, ruleset.registry)
    assert set(admission.can_be_true) == set(example.admitted)
    assert bool(admission.assumed) == example.assumed, admission.assumed


@pytest.mark.parametrize(("idiom", "noop"), _cases("noops"))
def test_noop(ruleset: RuleSet, idiom: Idiom, noop: Noop) -> None:
    admission = admission_of(noop.source, noop.expr, ruleset.registry)
    assert admission.can_be_true == ruleset.registry.all_names(), noop.reason
    assert admission.can_be_false == ruleset.registry.all_names(), noop.reason


def test_every_idiom_carries_examples_and_noops() -> None:
    assert len(IDIOMS) >= 9
    for idiom in IDIOMS:
        assert idiom.examples and idiom.noops, idiom.name


def test_no_two_idioms_claim_one_name() -> None:
    """The registry asks idioms in turn: overlapping names would make the order matter."""
    intrinsics = [(idiom.name, i) for idiom in IDIOMS for i in (*idiom.calls, *idiom.attributes)]
    for owner, intrinsic in intrinsics:
        claimants = {other for other, i in intrinsics if i.matches(intrinsic.name)}
        assert claimants == {owner}, intrinsic.name
