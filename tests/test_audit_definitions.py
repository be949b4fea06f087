"""A device predicate's own test is a row (GateSite.definition): the body is where a fix
of the predicate goes, its uses stay rows of their own. Aliases of other predicates'
answers and bodies that tell only vendors apart are counted, not listed (audit/run.py:
_listed_definition); a definition reads its own name (classify.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from gatecheck.audit import run_audit
from gatecheck.config.loader import load_ruleset

MakeTree = Callable[[Mapping[str, str]], Path]

HEAD = "import torch\n\n\ndef major():\n    return torch.cuda.get_device_capability()[0]\n\n\n"
FIRST = HEAD.count("\n") + 1  # the snippet's first line in utils.py


def definitions(make_tree: MakeTree, snippet: str) -> list[tuple[int, str, str]]:
    """(line in the snippet from 0, class, first reason) of the snippet's rows, sm120."""
    root = make_tree({"pkg/__init__.py": "", "pkg/utils.py": HEAD + snippet})
    report = run_audit([root], load_ruleset([]), "sm120")
    return sorted(
        (g.found.line - FIRST, g.gate_class.value, g.reasons[0])
        for g in report.gates
        if g.found.line >= FIRST
    )


CASES = [
    pytest.param(
        "def is_blackwell():\n    return major() == 10\n",
        [(1, "likely-gap", "'is_blackwell' is named for Blackwell but leaves out sm120")],
        id="named-for-the-family-leaving-it-out",
    ),
    pytest.param(
        "def is_sm90_supported():\n    return major() == 9\n\n\n"
        "def is_sm120_supported():\n    return major() == 12\n",
        # The module defines each generation's predicate: no "at hand, never used".
        [
            (1, "probably-deliberate", "a device predicate named for sm90 ('is_sm90_supported')"),
            (5, "admits", "admits sm120"),
        ],
        id="named-for-what-it-admits",
    ),
    pytest.param(
        "def is_sm9x_or_10x_supported():\n    return major() in (9, 10)\n",
        [(1, "likely-gap", "enumerates 2 majors")],
        id="an-allowlist-in-a-predicate",
    ),
    pytest.param(
        "def is_capability_supported(capability):\n    return capability == (9, 0)\n\n\n"
        "OK = is_capability_supported(torch.cuda.get_device_capability())\n",
        # The device passed in, compared with a literal: the allowlist written out.
        [
            (1, "probably-deliberate", "a single-generation gate"),
            (4, "probably-deliberate", "a single-generation gate"),  # its use
        ],
        id="a-parameter-compared-with-a-literal",
    ),
    pytest.param(
        "def is_fp8_arch_ok():\n    ok = major() in (9, 10)\n    return ok\n",
        # The allowlist written out in the body is the row (audit/run.py:
        # _recorded_decision_as_gate); `return ok` only passes it on.
        [(1, "likely-gap", "enumerates 2 majors")],
        id="a-local-in-the-body",
    ),
    pytest.param(
        "def get_cdna_version():\n"
        "    arch = torch.cuda.get_device_properties(0).gcnArchName\n"
        "    return 4 if 'gfx950' in arch else 3\n\n\n"
        "is_cdna4 = get_cdna_version() == 4\n"
        "if is_cdna4:\n"
        "    TILE = 256\n",
        # Another vendor's allowlist written out under a predicate's name is a row in an
        # sm120 audit too, its use a hop (one decision, one row), as for the audited
        # vendor's (`_is_sm10x = major == 10`).
        [
            (2, "probably-deliberate", "another vendor's gate"),
            (5, "probably-deliberate", "another vendor's gate"),
        ],
        id="another-vendors-allowlist-in-a-binding",
    ),
    # A predicate bound by a call (sglang's `is_blackwell_supported = lru_cache(...)(
    # partial(_check, device_capability_majors=[10, 12]))`, where 0.5.9's fix added 11):
    # the binding is its definition, its answer when called the row's set.
    pytest.param(
        "from functools import lru_cache, partial\n\n\n"
        "def _major_in(majors):\n    return major() in majors\n\n\n"
        "is_blackwell = lru_cache(maxsize=1)(partial(_major_in, majors=[10]))\n",
        [(7, "likely-gap", "'is_blackwell' is named for Blackwell but leaves out sm120")],
        id="a-cached-partial",
    ),
    pytest.param(
        "import functools\n\n\n"
        "def _major_in(majors):\n    return major() in majors\n\n\n"
        "is_sm120_supported = is_sm12x = functools.partial(_major_in, [12])\n",
        [(7, "admits", "admits sm120")],
        id="a-partial-under-two-names",
    ),
    pytest.param(
        "def _major_in(majors):\n    return major() in majors\n\n\n"
        "is_hopper = lambda: _major_in([9])  # noqa: E731\n",
        # The helper's test is a row of its own as before (its one caller passes [9]).
        [
            (1, "probably-deliberate", "a single-generation gate"),
            (4, "probably-deliberate", "a single-generation gate"),
        ],
        id="a-lambda-taking-nothing",
    ),
]


@pytest.mark.parametrize(("snippet", "expected"), CASES)
def test_a_predicates_own_test_is_a_row(
    make_tree: MakeTree, snippet: str, expected: list[tuple[int, str, str]]
) -> None:
    found = definitions(make_tree, snippet)
    assert [(line, cls) for line, cls, _ in found] == [(line, cls) for line, cls, _ in expected]
    for (_, _, reason), (_, _, piece) in zip(found, expected, strict=True):
        assert piece in reason, reason


# Each refusal: counted (predicate_definitions), not listed, with why.
NOOPS = [
    pytest.param(
        "def is_sm100_supported():\n    return major() == 10\n\n\n"
        "_is_sm100 = torch.version.hip is None and is_sm100_supported()\n",
        1,
        id="an-alias-in-a-module",  # the body it names is the row
    ),
    pytest.param(
        "def is_blackwell():\n    return major() >= 10\n\n\n"
        "def is_blackwell_system():\n    return is_blackwell()\n",
        1,
        id="one-more-name-for-another-predicate",
    ),
    pytest.param(
        "def is_device_capability(capability):\n    return major() * 10 == capability\n\n\n"
        "A = is_device_capability(90)\nB = is_device_capability(100)\n",
        1,
        id="compared-with-what-each-caller-passes",  # the union of the callers' choices
    ),
    pytest.param(
        "def is_hip():\n    return torch.version.hip is not None\n",
        1,
        id="tells-only-vendors-apart",
    ),
]

# Bindings that are no predicate's definition: no row at the binding.
BOUND_NOOPS = [
    pytest.param(
        "from functools import partial\n\n\n"
        "def _major_in(majors):\n    return major() in majors\n\n\n"
        "hopper_check = partial(_major_in, [9])\n",
        id="not-named-as-a-predicate",
    ),
    pytest.param(
        "def _major_in(majors):\n    return major() in majors\n\n\n"
        "is_in = lambda majors: _major_in(majors)  # noqa: E731\n",
        id="a-lambda-taking-arguments",  # each call is the decision
    ),
    pytest.param(
        "from functools import partial\n\n\n"
        "def _major_in(majors):\n    return major() in majors\n\n\n"
        "def run():\n    is_sm90 = partial(_major_in, [9])\n    return is_sm90\n",
        id="bound-in-a-function",  # a local, not the project's predicate
    ),
]


@pytest.mark.parametrize("snippet", BOUND_NOOPS)
def test_other_bindings_are_no_definition(make_tree: MakeTree, snippet: str) -> None:
    root = make_tree({"pkg/__init__.py": "", "pkg/utils.py": HEAD + snippet})
    report = run_audit([root], load_ruleset([]), "sm120")
    assert [g for g in report.gates if g.found.kind.value == "bound"] == []


@pytest.mark.parametrize(("snippet", "counted"), NOOPS)
def test_aliases_and_vendor_tests_are_counted_only(
    make_tree: MakeTree, snippet: str, counted: int
) -> None:
    root = make_tree({"pkg/__init__.py": "", "pkg/utils.py": HEAD + snippet})
    report = run_audit([root], load_ruleset([]), "sm120")
    listed = [g.found.qualname for g in report.gates if g.found.definition]
    assert report.predicate_definitions == counted
    refused = ("_is_sm100", "is_blackwell_system", "is_hip", "is_device_capability")
    assert not [q for q in listed if q.endswith(refused)]


def test_uses_stay_rows_and_impact_reads_them(make_tree: MakeTree) -> None:
    root = make_tree(
        {
            "pkg/__init__.py": "",
            "pkg/utils.py": HEAD + "def is_blackwell():\n    return major() == 10\n",
            "pkg/mod.py": "from pkg.utils import is_blackwell\n\nif is_blackwell():\n    X = 1\n",
        }
    )
    report = run_audit([root], load_ruleset([]), "sm120")
    rows = sorted((g.path.name, g.found.definition, g.gate_class.value) for g in report.gates)
    assert rows == [("mod.py", False, "likely-gap"), ("utils.py", True, "likely-gap")]
