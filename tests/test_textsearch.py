"""holds_any answers `any(n in text for n in needles)` for every text, core or not."""

from __future__ import annotations

import random

import pytest

from gatecheck.textsearch import common_core, holds_any


@pytest.mark.parametrize(
    ("needles", "core"),
    [
        ((), ""),
        (("abc",), "abc"),
        (("enable_fusion_x", "fusion_x_backend"), "fusion_x"),
        (("--enable-x-fusion", "enable_x_fusion"), "enable"),
        (("abc", "xyz"), ""),
        (("", "abc"), ""),
        (("aaaa", "aa"), "aa"),
    ],
)
def test_common_core(needles: tuple[str, ...], core: str) -> None:
    assert common_core(needles) == core
    assert all(core in n for n in needles)


NEEDLE_SETS = [
    [],
    ["flag"],
    ["enable_flashinfer_fusion", "flashinfer_fusion_backend", "apply_flashinfer_fusion"],
    ["enable_flashinfer_fusion", "--enable-flashinfer-fusion"],
    ["abc", "xyz"],
    ["", "abcdefgh"],
    ["flashinfer", "flashinfer_x"],
]


@pytest.mark.parametrize("needles", NEEDLE_SETS)
def test_holds_any_is_any_in(needles: list[str]) -> None:
    rng = random.Random(len(needles))
    pieces = ["flashinfer", "_fusion", "enable", "-", "_", "apply", "backend", "--", "x"]
    pieces += ["abc", "xyz", "defgh", " ", "\n", "é"]
    pieces += [n for n in needles if n]
    holds = holds_any(needles)
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(10)))
        assert holds(text) is any(n in text for n in needles), (needles, text)
