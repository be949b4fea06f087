"""oracle.FirstMatch finds, for a dotted name, the intrinsic that asking each in turn
(`Intrinsic.matches`, in order) finds. Pure: no files."""

from __future__ import annotations

import pytest

from gatecheck.semantics.idioms._model import Intrinsic
from gatecheck.semantics.oracle import FirstMatch, default_idioms


def _none(generation: object, args: object) -> None:
    return None


def _in_turn(intrinsics: tuple[Intrinsic, ...], dotted: str) -> Intrinsic | None:
    return next((i for i in intrinsics if i.matches(dotted)), None)


# Overlapping names, both kinds, in an order where a later exact name must lose to an
# earlier suffix or tail (and the other way round).
MIXED = (
    Intrinsic("cuda.is_available", _none),
    Intrinsic("torch.cuda.is_available", _none),
    Intrinsic("is_available", _none, match="tail"),
    Intrinsic("get_device_capability", _none),
    Intrinsic("capability", _none, match="tail"),
    Intrinsic("torch.version.cuda", _none, match="tail"),
    Intrinsic("version.cuda", _none),
    Intrinsic("", _none),
)

DOTTED = [
    "torch.cuda.is_available",
    "cuda.is_available",
    "is_available",
    "torch.xpu.is_available",
    "xis_available",
    "torch.cuda.get_device_capability",
    "get_device_capability",
    "xget_device_capability",
    "device_capability",
    "torch.version.cuda",
    "version.cuda",
    "my_torch.version.cuda",
    "cuda",
    "a.b.",
    "",
    ".",
    "..x",
    "torch..cuda.is_available",
    "get_current_target",
    "triton.runtime.driver.active.get_current_target",
    "torch.cuda.get_device_properties",
    "torch.backends.mps.is_available",
    "unrelated.name",
]


@pytest.mark.parametrize("dotted", DOTTED)
def test_mixed_intrinsics_in_turn(dotted: str) -> None:
    assert FirstMatch(MIXED).first(dotted) is _in_turn(MIXED, dotted)


@pytest.mark.parametrize("dotted", DOTTED)
@pytest.mark.parametrize("kind", ["calls", "attributes"])
def test_shipped_idioms_in_turn(kind: str, dotted: str) -> None:
    intrinsics = tuple(i for idiom in default_idioms().idioms for i in getattr(idiom, kind))
    assert FirstMatch(intrinsics).first(dotted) is _in_turn(intrinsics, dotted)


def test_shipped_names_find_themselves() -> None:
    for idiom in default_idioms().idioms:
        for intrinsics in (idiom.calls, idiom.attributes):
            for intrinsic in intrinsics:
                assert FirstMatch(intrinsics).first(intrinsic.name) is intrinsic
