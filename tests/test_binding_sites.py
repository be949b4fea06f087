"""The calls that bind a gate's parameters are its call sites (audit/binding_sites.py),
each with the gate read under its arguments alone: `require(9)` shuts out what is
below sm90, `require(8)` only sm70 and sm75, while the row admits the union. A
closure's free variables are its factory's parameters (`constraints=[atleast(9, 0)]`,
diffusers' attention backends). Noops: a parameter the condition does not read, a
call the hops already report, calls that all give the row's set, a helper called from
more places than MAX_SITES."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from gatecheck.audit import run_audit
from gatecheck.audit.binding_sites import MAX_SITES
from gatecheck.config.loader import load_ruleset

MakeTree = Callable[[Mapping[str, str]], Path]

BELOW_9 = ["sm70", "sm75", "sm80", "sm86", "sm87", "sm89"]
BELOW_8 = ["sm70", "sm75"]
FROM_9 = ["sm90", "sm100", "sm103", "sm110", "sm120", "sm121", "gfx90a", "gfx942", "gfx950"]

REQUIRE = (
    "import torch\n\n"
    "def require(major):\n"
    "    if torch.cuda.get_device_capability() < (major, 0):\n"
    "        raise ValueError('too old')\n\n"
)
FACTORY = (
    "import torch\n\n"
    "def atleast(major, minor):\n"
    "    def check(q):\n"
    "        if torch.cuda.get_device_capability(q.device) < (major, minor):\n"
    "            raise ValueError('too old')\n"
    "    return check\n\n"
    "def register(name, constraints=()):\n"
    "    return lambda fn: fn\n\n"
)


def sites(make_tree: MakeTree, source: str) -> dict[int, list[tuple[int, str, list[str]]]]:
    """Each gate row of mod.py by line: its call sites (line, text, admitted)."""
    tree = make_tree({"pkg/__init__.py": "", "pkg/mod.py": source})
    report = run_audit([tree], load_ruleset([]), "sm120")
    order = list(report.registry.names)
    return {
        g.found.line: [
            (s.line, s.condition, sorted(s.admitted, key=order.index)) for s in g.call_sites
        ]
        for g in report.gates
        if g.path.name == "mod.py"
    }


CASES = [
    pytest.param(
        REQUIRE + "def fa3():\n    require(9)\n\ndef fa2():\n    require(8)\n",
        {4: [(8, "require(9)", BELOW_9), (11, "require(8)", BELOW_8)]},
        id="statement-calls",
    ),
    pytest.param(
        REQUIRE
        + "def fa2(major=8):\n    return major\n\nCHECKS = [require(9), require(major=8)]\n",
        {4: [(10, "require(9)", BELOW_9), (10, "require(major=8)", BELOW_8)]},
        id="items-of-a-list-by-position-and-keyword",
    ),
    pytest.param(
        FACTORY + "@register('fp8', constraints=[atleast(9, 0)])\ndef fp8(q):\n    return q\n\n"
        "@register('fp16', constraints=[atleast(8, 0)])\ndef fp16(q):\n    return q\n",
        {5: [(12, "atleast(9, 0)", BELOW_9), (16, "atleast(8, 0)", BELOW_8)]},
        id="a-closure's-factory",
    ),
    pytest.param(
        REQUIRE.replace("def require(major):", "def require(major=9):")
        + "def run():\n    require()\n\ndef old():\n    require(8)\n",
        {4: [(8, "require()", BELOW_9), (11, "require(8)", BELOW_8)]},
        id="the-default-where-none-is-passed",
    ),
    # noops
    pytest.param(
        "import torch\n\ndef check(x):\n"
        "    if torch.cuda.get_device_capability() < (9, 0):\n        raise ValueError(x)\n\n"
        "def run():\n    check(1)\n",
        {4: []},
        id="noop-a-parameter-the-condition-does-not-read",
    ),
    pytest.param(
        "import torch\n\ndef ok(major):\n"
        "    return torch.cuda.get_device_capability() >= (major, 0)\n\n"
        "def run():\n    if ok(9):\n        return 1\n",
        {4: [(7, "ok(9)", FROM_9)]},  # the hop's, once
        id="noop-a-call-the-hops-report",
    ),
    pytest.param(
        REQUIRE + "def a():\n    require(9)\n\ndef b(t):\n    require(major=9)\n",
        {4: []},
        id="noop-every-call-gives-the-row's-set",
    ),
    pytest.param(
        REQUIRE
        + "".join(f"def f{i}():\n    require({i % 3 + 8})\n\n" for i in range(MAX_SITES + 1)),
        {4: []},
        id="noop-called-from-too-many-places",
    ),
]


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_binding_sites(make_tree: MakeTree, source: str, expected: object) -> None:
    assert sites(make_tree, source) == expected
