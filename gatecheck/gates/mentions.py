"""The text prefilter of a feature's gates, apart from the gate finder (feature_gates.py):
a run answered from the cache checks changed files with it and imports no astroid."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from gatecheck.config.model import Feature
from gatecheck.textsearch import holds_any


def mentions(text: str, feature: Feature) -> bool:
    """Cheap text prefilter: could this file hold one of the feature's gates?"""
    return mentions_any([feature])(text)


def mentions_any(features: Iterable[Feature]) -> Callable[[str], bool]:
    """`lambda text: any(mentions(text, f) for f in features)`, the needles gathered once
    (a project's every file is asked)."""
    return holds_any(feature_needles(features))


def feature_needles(features: Iterable[Feature]) -> list[str]:
    """What mentions_any looks for: a text holds one of these, or none of the features."""
    return [n for feature in features for n in _needles(feature)]


def option_needles(feature: Feature) -> list[str]:
    """What a feature's activation path is searched by: its flags, as settings fields and
    as dashed CLI options (tracing/paths.py)."""
    return [*feature.flags, *(dashed(f) for f in feature.flags)]


def dashed(flag: str) -> str:
    return "--" + flag.replace("_", "-")


def _needles(feature: Feature) -> list[str]:
    return [*feature.flags, *(name.rsplit(".", 1)[-1] for name in feature.gate_functions)]
