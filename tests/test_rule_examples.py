"""Every shipped rule carries its own examples (Fixit's VALID/INVALID): each becomes a
test here, so a rule and its documentation cannot drift from what gatecheck does."""

from __future__ import annotations

from pathlib import Path

import pytest

from gatecheck.config.loader import load_ruleset
from gatecheck.config.model import Feature, FeatureExample
from gatecheck.engine import analyse
from tests.conftest import write_tree

SHIPPED = load_ruleset(None)
CASES = [
    pytest.param(feature, example, id=f"{feature.id}-{index}-{example.expect}")
    for feature in SHIPPED.features
    for index, example in enumerate(feature.examples)
]


def test_every_shipped_feature_has_a_failing_and_a_passing_example() -> None:
    for feature in SHIPPED.features:
        assert {e.expect for e in feature.examples} == {"fail", "pass"}, feature.id


@pytest.mark.parametrize(("feature", "example"), CASES)
def test_rule_example(tmp_path: Path, feature: Feature, example: FeatureExample) -> None:
    root = write_tree(tmp_path / "example", dict(example.files))
    generations = [example.generation] if example.generation else None
    analysis = analyse([root], SHIPPED, features=[feature.id], generations=generations)
    found = [f for f in analysis.findings if f.feature == feature.id]
    if example.expect == "fail":
        assert found, example.description
    else:
        assert not found, [f.message for f in found]
