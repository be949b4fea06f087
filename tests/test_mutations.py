"""A list, dict or set holds what it was made with only while nothing changes it
(gatecheck/semantics/mutations.py): which statements change a local in place, and the
gates that were lost when a filled container was read as its empty literal."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import astroid
import pytest

from gatecheck.audit import run_audit
from gatecheck.config.loader import load_ruleset
from gatecheck.semantics.mutations import names_changed

MakeTree = Callable[[Mapping[str, str]], Path]


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        ("d[k] = v", {"d", "v"}),  # v is now held by d too: changed through it
        ("d[a][b] = v", {"d", "v"}),
        ("del d[k]", {"d"}),
        ("d[k] += 1", {"d"}),
        ("d += more", set()),  # rebinds the name: the walk binds it unknown itself
        ("d.append(x)", {"d", "x"}),  # x handed to a call
        ("d.setdefault(k, []).append(x)", {"d", "k", "x"}),
        ("v = d.get(k)", set()),
        ("n = len(d) + sum(d)", set()),
        ("fill(d)", {"d"}),
        ("fill(table=d)", {"d"}),
        ("fill(*d)", {"d"}),
        ("heapq.heappush(h, 1)", {"h", "heapq"}),  # a module: never a container
        ("e = d", {"d", "e"}),  # both hold one container: a change of d is one of e
        ("pair = (d, 1)", {"d"}),
        ("x = d[k]", set()),
        ("for k in d:\n    total = k", {"k", "total"}),  # d is only read
        ("if d:\n    d.clear()", {"d"}),
    ],
)
def test_names_changed(statement: str, expected: set[str]) -> None:
    module = astroid.parse(statement)
    found: set[str] = set()
    for node in module.body:
        found |= names_changed(node)
    assert found == expected


GATE = "    if {test} and major() == 10:\n        return 1\n"


def rows(make_tree: MakeTree, source: str) -> list[int]:
    files = {"pkg/__init__.py": "", "pkg/mod.py": source}
    report = run_audit([make_tree(files)], load_ruleset([]), "sm120")
    return sorted(g.found.line for g in report.gates if g.path.name == "mod.py")


# The device read in mod.py itself (it then spells an arch idiom and is searched).
HEAD = "import torch\n\n\ndef major():\n    return torch.cuda.get_device_capability()[0]\n\n\n"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param(
            HEAD + "def schemes(ks):\n    d = {}\n    for k in ks:\n        d[k] = 1\n"
            "    return d\n\n\ndef run(ks):\n" + GATE.format(test="len(schemes(ks)) >= 1"),
            [16],
            id="a-local-dict-filled-in-a-loop-and-returned",
        ),
        pytest.param(
            HEAD
            + "def run(ks):\n    found = []\n    collect(found, ks)\n"
            + GATE.format(test="found"),
            [11],
            id="a-local-list-filled-by-a-helper",
        ),
        pytest.param(
            HEAD + "def run(ks):\n    seen = []\n    for k in ks:\n"
            "    " + GATE.format(test="seen").replace("return 1", "    seen.append(k)"),
            [11],
            id="read-in-a-loop-that-changes-it-later-in-the-body",
        ),
        pytest.param(
            HEAD + "_CACHE = {}\n\n\ndef remember(k, v):\n    _CACHE[k] = v\n\n\n"
            "def run():\n" + GATE.format(test="len(_CACHE) > 0"),
            [16],
            id="a-module-dict-filled-by-a-function",
        ),
        pytest.param(
            HEAD + "class Registry:\n    def __init__(self):\n        self.backends = []\n\n"
            "    def add(self, b):\n        self.backends.append(b)\n\n"
            "    def run(self):\n"
            + GATE.format(test="self.backends")
            .replace("    ", "        ", 1)
            .replace("\n        return", "\n            return"),
            [16],
            id="an-attribute-list-appended-by-a-method",
        ),
        pytest.param(
            HEAD
            + "def run():\n    d = {}\n\n    def probe():\n"
            + GATE.format(test="len(d) >= 1")
            .replace("    ", "        ", 1)
            .replace("\n        return", "\n            return")
            + "\n    d['a'] = 1\n    return probe\n",
            [12],
            id="a-closure-reads-what-its-function-changes-after-defining-it",
        ),
    ],
)
def test_a_filled_container_is_not_its_literal(
    make_tree: MakeTree, source: str, expected: list[int]
) -> None:
    assert rows(make_tree, source) == expected


MEMO_INT = (
    "_FP8 = {}\n\n\n"
    "def use_e4b15(device=0):\n"
    "    if device not in _FP8:\n"
    "        cap = torch.cuda.get_device_capability(device)\n"
    "        _FP8[device] = 1 if cap < (8, 9) else 0\n"
    "    return _FP8[device]\n\n\n"
    "def run():\n"
    "    if use_e4b15() == 1:\n"
    "        return 1\n"
)
MEMO_GET = (
    "_ARCH = {}\n\n\n"
    "def arch(device=0):\n"
    "    found = _ARCH.get(device)\n"
    "    if found is not None:\n"
    "        return found\n"
    "    found = torch.cuda.get_device_capability(device)\n"
    "    _ARCH[device] = found\n"
    "    return found\n\n\n"
    "def run():\n"
    "    if arch()[0] == 10:\n"
    "        return 1\n"
)
MEMO_CHAINED = (
    "_CAPS = {}\n\n\n"
    "def cap(device=0):\n"
    "    c = _CAPS.get(device)\n"
    "    if c is None:\n"
    "        c = _CAPS[device] = torch.cuda.get_device_capability(device)\n"
    "    return c\n\n\n"
    "def run():\n"
    "    if cap() == (7, 5):\n"
    "        return 1\n"
)
BELOW_89 = ("sm70", "sm75", "sm80", "sm86", "sm87")


def admitted(make_tree: MakeTree, source: str) -> list[tuple[int, tuple[str, ...]]]:
    report = run_audit(
        [make_tree({"pkg/__init__.py": "", "pkg/mod.py": source})], load_ruleset([]), "sm120"
    )
    return sorted(
        (g.found.line, tuple(sorted(g.admits))) for g in report.gates if g.path.name == "mod.py"
    )


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param(
            "import torch\n\n" + MEMO_INT,
            # The stored choice itself (line 9) and the test of what the table returns.
            [(9, BELOW_89), (14, BELOW_89)],
            id="a-memo-table-read-by-item",  # vLLM's turboquant _use_fp8_e4b15
        ),
        pytest.param(
            "import torch\n\n" + MEMO_GET,
            [(16, ("sm100", "sm103"))],
            id="a-memo-table-read-by-get-none-until-filled",
        ),
        pytest.param(
            "import torch\n\n" + MEMO_CHAINED,
            [(14, ("sm75",))],
            id="a-memo-table-filled-by-a-chained-assignment",  # exllamav3's capability memo
        ),
        pytest.param(
            "import torch\n\n\ndef hopper():\n    seen = {}\n"
            "    major = seen[0] = torch.cuda.get_device_capability()[0]\n"
            "    return seen[0] == 9\n\n\n"
            "def run():\n    if hopper():\n        return 1\n",
            [(11, ("gfx90a", "gfx942", "gfx950", "sm90"))],  # AMD reports major 9
            id="a-local-dict-filled-by-a-chained-assignment",
        ),
    ],
)
def test_a_memo_table_gives_what_is_stored(
    make_tree: MakeTree, source: str, expected: list[tuple[int, tuple[str, ...]]]
) -> None:
    assert admitted(make_tree, source) == expected


def test_a_chained_assignment_rebinding_the_table_is_no_store(make_tree: MakeTree) -> None:
    """`_CAPS = _CAPS[device] = ...` rebinds the table itself: not an item store, and
    the read through it is unknown (no row)."""
    source = "import torch\n\n" + MEMO_CHAINED.replace("c = _CAPS[device]", "_CAPS = _CAPS[device]")
    assert admitted(make_tree, source) == []


def test_a_table_changed_otherwise_is_unknown(make_tree: MakeTree) -> None:
    """`_ARCH.update(...)` is no item store: what the table holds is not followed, and
    the read through it is unknown (no row)."""
    source = "import torch\n\n" + MEMO_GET + "\n\ndef reset(table):\n    _ARCH.update(table)\n"
    assert admitted(make_tree, source) == []


# Each refusal: the container is read as what it was made with, so the test is false on
# every generation and the condition is no gate.
NOOPS = [
    pytest.param(
        HEAD + "def run(ks):\n    d = {}\n" + GATE.format(test="len(d) >= 1") + "    fill(d)\n",
        id="read-before-the-function-changes-it",
    ),
    pytest.param(
        HEAD
        + "_TABLE = {}\n\n\ndef run():\n"
        + GATE.format(test="len(_TABLE) >= 1")
        + "    return len(_TABLE)\n",
        id="a-module-dict-only-read",
    ),
    pytest.param(
        HEAD + "SM10X = []\n\n\n@register(SM10X)\ndef run():\n" + GATE.format(test="SM10X"),
        id="a-module-constant-handed-to-a-decorator",
    ),
]


@pytest.mark.parametrize("source", NOOPS)
def test_a_container_nothing_changes_is_its_literal(make_tree: MakeTree, source: str) -> None:
    assert rows(make_tree, source) == []
