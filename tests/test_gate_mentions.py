"""The gate prefilter over a feature set (mentions_any) answers as the feature-by-feature
one (mentions) on every text."""

from __future__ import annotations

import pytest

from gatecheck.config.model import Feature
from gatecheck.gates.mentions import mentions, mentions_any


def _feature(flags: tuple[str, ...], gate_functions: tuple[str, ...] = ()) -> Feature:
    return Feature("f", "", flags, gate_functions, frozenset({"sm120"}))


FUSION = _feature(("enable_fusion", "fusion_backend"))
GATED = _feature((), ("pkg.mod.use_fused_kernel",))
OTHER = _feature(("use_triton_attention",))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("x = args.enable_fusion\n", True, id="first-flag"),
        pytest.param("if fusion_backend is None: ...\n", True, id="second-flag"),
        pytest.param("use_fused_kernel(n)\n", True, id="gate-function-by-its-last-name"),
        pytest.param("pkg.mod\n", False, id="gate-function-module-only"),
        pytest.param("if use_triton_attention: ...\n", True, id="other-feature"),
        pytest.param("enable_fusio\n", False, id="a-prefix-only"),
        pytest.param("", False, id="empty"),
    ],
)
def test_any_feature_answers_as_each_feature(text: str, expected: bool) -> None:
    features = [FUSION, GATED, OTHER]
    assert mentions_any(features)(text) is expected
    assert any(mentions(text, f) for f in features) is expected


def test_no_feature_mentions_nothing() -> None:
    assert mentions_any([])("enable_fusion") is False
