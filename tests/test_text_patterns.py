"""`re.match(pattern, text)` on a pattern and a text the evaluation knows is Python's own
answer (semantics/text_patterns.py): a ROCm platform reading its capability off the gfx
name (`re.match(r"gfx(\\d+)", arch)`, then `m.group(1)`) is known on AMD parts; patterns
that could take long, texts past the bound, flags or patterns not known stay unknown. A
pattern compiled once (`re.compile`) matches as the functions do; one of a few texts
gives one of a few matches."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from gatecheck.semantics.text_patterns import computable
from tests.admission import EVERY, assert_can_be_true

SOURCE = """
import os
import re
import regex
import torch

ARCH = torch.cuda.get_device_properties(0).gcnArchName


def amd_capability():
    m = re.match(r"gfx(\\d+)", ARCH)
    if not m:
        return None
    digits = m.group(1)
    return int(digits[0]), int(digits[1])


_GFX = re.compile(r"gfx(\\d+)")
SUFFIXED = ARCH + (":sramecc+" if os.environ.get("SRAMECC") else "")


def compiled_capability():
    m = _GFX.match(ARCH)
    if not m:
        return None
    digits = m.group(1)
    return int(digits[0]), int(digits[1])


def sm_of(arch_str):
    match = re.fullmatch(r"(?:sm_)?(\\d+)(\\d)([af]?)", arch_str)
    major, minor, _ = match.groups()
    return int(major) * 10 + int(minor)
"""
AMD = {"gfx90a", "gfx942", "gfx950"}
NVIDIA = {"sm70", "sm75", "sm80", "sm86", "sm87", "sm89", "sm90"}
NVIDIA |= {"sm100", "sm103", "sm110", "sm120", "sm121"}


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        # gcnArchName is "" on NVIDIA parts: no match there (None). Compared with None,
        # an ordering raises: no value, true there maybe.
        pytest.param("amd_capability() == (9, 4)", {"gfx942"}, id="match-group"),
        pytest.param("amd_capability() >= (9, 4)", NVIDIA | {"gfx942", "gfx950"}, id="ordered"),
        pytest.param('re.search(r"gfx9[45]", ARCH) is not None', {"gfx942", "gfx950"}, id="search"),
        pytest.param(
            're.match(r"gfx9(\\d)", ARCH).span() == (0, 5)', NVIDIA | AMD, id="span-of-each"
        ),
        # `import regex as re`; no match on NVIDIA: `.group` of None raises there.
        pytest.param(
            r'regex.match(r"gfx9(\d)", ARCH).group(1) == "5"',
            NVIDIA | {"gfx950"},
            id="regex-package",
        ),
        # Compiled once at the module's top, matched in the function.
        pytest.param("compiled_capability() == (9, 4)", {"gfx942"}, id="a-compiled-pattern"),
        # One of two texts (with or without a feature suffix): each one's match.
        pytest.param(
            're.match(r"gfx(\\d+)", SUFFIXED).group(1) == "942"',
            NVIDIA | {"gfx942"},
            id="one-of-two-texts",
        ),
        pytest.param('sm_of("sm_100a") == 100', EVERY, id="a-constant-text-is-no-gate"),
        pytest.param('sm_of("sm_90") == 100', set(), id="a-constant-text-is-known"),
    ],
)
def test_known_pattern_on_known_text(ruleset: RuleSet, expr: str, expected: object) -> None:
    assert_can_be_true(ruleset, SOURCE, expr, expected)


# Each refusal: the answer stays unknown (true on every generation, maybe).
NOOPS = [
    pytest.param('re.match(r"(g+)+x", ARCH) is None', id="a-repeated-group"),
    pytest.param('re.match(r"g*f*x*9*", ARCH) is None', id="more-than-three-repeats"),
    pytest.param('re.match(r"gfx9", ARCH + "-" * 300) is None', id="a-text-past-the-bound"),
    pytest.param('re.match(r"GFX9", ARCH, re.IGNORECASE) is None', id="flags-not-known"),
    pytest.param('re.match(pattern=r"gfx9", string=ARCH) is None', id="keywords"),
    pytest.param('re.match(r"gfx(", ARCH) is None', id="a-pattern-python-refuses"),
    pytest.param("re.match(PATTERN, ARCH) is None", id="a-pattern-not-known"),
    pytest.param('re.compile(r"(g+)+x").match(ARCH) is None', id="compiled-a-repeated-group"),
    pytest.param('re.compile(r"gfx9").match(ARCH, 2) is None', id="compiled-with-a-position"),
]


@pytest.mark.parametrize("expr", NOOPS)
def test_refusals_stay_unknown(ruleset: RuleSet, expr: str) -> None:
    assert_can_be_true(ruleset, SOURCE + "\nfrom elsewhere import PATTERN\n", expr, EVERY)


@pytest.mark.parametrize(
    ("pattern", "quick"),
    [
        (r"gfx(\d+)", True),
        (r"^(?:sm_?|SM_?)?(\d+)(\d)([af]?)$", True),  # an optional group, at most once
        (r"(a+)+$", False),
        (r"(?:ab)*", False),
        (r"(x){2,}", False),
        (r"\d*\d*\d*\d*", False),
        ("x" * 300, False),
        (r"(?P<major>\d)", False),  # read alike, but named groups are left out
        (r"[[:digit:]]", False),  # a POSIX class in `regex`, a set in `re`
        (r"(?i)gfx", False),  # inline flags
    ],
)
def test_computable(pattern: str, quick: bool) -> None:
    assert computable(pattern) is quick
