"""The text prefilter of a feature's gates, apart from the gate finder (feature_gates.py):
a run answered from the cache checks changed files with it and imports no astroid."""

from __future__ import annotations

from gatecheck.config.model import Feature
from gatecheck.textsearch import holds_any


def mentions(text: str, feature: Feature) -> bool:
    """Cheap text prefilter: could this file hold one of the feature's gates?"""
    needles = [*feature.flags, *(name.rsplit(".", 1)[-1] for name in feature.gate_functions)]
    return holds_any(needles)(text)
