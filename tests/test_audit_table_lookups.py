"""A dict of constant keys looked up by the device (`{"90a": f, "100a": g}[arch]`, a
module's `_FLAGS[arch]`) is a gate: a missing key raises KeyError, so the code goes on
only where the key is there (audit/conditions.py: table_lookup, key_found; a row of kind
LOOKUP). FlashInfer's DeepGEMM wrappers choose their kernels so: sm103 was added to
three such tables in one release."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from gatecheck.audit import run_audit
from gatecheck.audit.conditions import SlotKind
from gatecheck.config.loader import load_ruleset

MakeTree = Callable[[Mapping[str, str]], Path]

ARCH = """\
import functools
import torch


def get_device_arch():
    major, minor = torch.cuda.get_device_capability()
    return f"{major * 10 + minor}{'a' if major >= 9 else ''}"


def kernel(*args):
    return args
"""
FIRST = ARCH.count("\n") + 1  # the snippet's first line in mod.py

SM90_SM100 = ("gfx90a", "sm100", "sm90")


def rows(
    make_tree: MakeTree, snippet: str, generation: str
) -> list[tuple[int, tuple[str, ...], str]]:
    """(line in the snippet from 0, admitted, class) of mod.py's gates."""
    root = make_tree({"pkg/__init__.py": "", "pkg/mod.py": ARCH + snippet})
    report = run_audit([root], load_ruleset([]), generation)
    return sorted(
        (g.found.line - FIRST, tuple(sorted(g.admits)), g.gate_class.value)
        for g in report.gates
        if g.found.line >= FIRST
    )


CASES = [
    pytest.param(
        "def k_major():\n    return {'90a': True, '100a': False}[get_device_arch()]\n",
        "sm103",
        # The values' truth is not the gate's: both keys go on, the others raise.
        [(1, SM90_SM100, "likely-gap")],
        id="a-table-written-out-returned",
    ),
    pytest.param(
        "_FLAGS = {'90a': ['-arch=sm_90a'], '100a': ['-arch=sm_100a']}\n\n"
        "def flags():\n    return _FLAGS[get_device_arch()]\n",
        "sm120",
        [(3, SM90_SM100, "likely-gap")],
        id="a-module-table",
    ),
    pytest.param(
        "_FLAGS: dict[str, list] = {'90a': ['-arch=sm_90a'], '100a': ['-arch=sm_100a']}\n\n"
        "def flags():\n    return _FLAGS[get_device_arch()]\n",
        "sm120",
        [(3, SM90_SM100, "likely-gap")],
        id="an-annotated-module-table",
    ),
    pytest.param(
        "def run(a):\n    impl = {'100a': functools.partial(kernel, 1)}[get_device_arch()]\n"
        "    return impl(a)\n",
        "sm103",
        [(1, ("sm100",), "likely-gap")],
        id="a-kernel-chosen-by-key",
    ),
    pytest.param(
        # quack's kernel choice: the table bound in the function, then indexed.
        "def pick(a):\n    table = {'90a': 1, '100a': 2}\n    return table[get_device_arch()]\n",
        "sm120",
        [(2, SM90_SM100, "likely-gap")],
        id="a-table-bound-in-the-function",
    ),
    pytest.param(
        "ROUTES = {'sm_100a': {'fwd': 1}, 'sm_103a': {'fwd': 2}}\n\n"
        "def route(role):\n    return ROUTES['sm_' + get_device_arch()][role]\n",
        "sm120",
        [(3, ("sm100", "sm103"), "probably-deliberate")],
        id="a-table-of-tables",
    ),
    pytest.param(
        # FlashInfer 0.3.1's DeepGEMM: keyed by arch and dtype, the dtype not known; the
        # arch part alone decides where a key may be found (sm103 added a release later).
        "def scale(dtype):\n    return {('100a', torch.float): 1, ('100a', torch.int32): 2,"
        " ('90a', torch.float): 3}[(get_device_arch(), dtype)]\n",
        "sm103",
        [(1, SM90_SM100, "likely-gap")],
        id="a-table-keyed-by-arch-and-a-name",
    ),
    pytest.param(
        "def scale(dtype):\n    return {('100a', 'f32'): 1}[get_device_arch(), dtype]\n",
        "sm103",
        [(1, ("sm100",), "likely-gap")],
        id="a-table-keyed-by-arch-and-a-string",
    ),
    pytest.param(
        "def is_k_major():\n    return {'90a': True, '100a': False}[get_device_arch()]\n",
        "sm120",
        # A predicate's answer is its return, read as before: the value's truth
        # (true on sm90 only), not where the key is found.
        [(1, ("gfx90a", "sm90"), "probably-deliberate")],
        id="a-predicates-return-is-its-answer",
    ),
]


# A table of capabilities without the generation's entry, where a missing entry turns the
# feature off: written before the generation came (every key older), a likely gap ranked
# last (vLLM 0.20's sequence-parallel threshold table, {90: ...}, had sm100 added next).
CAP = "    major, minor = torch.cuda.get_device_capability()\n"
NO_ENTRY = "the per-device table 'MIN_HIDDEN' (line 12) has no entry for sm100"
TABLE_WITHOUT_ENTRY = [
    pytest.param(
        "MIN_HIDDEN = {90: 8192}\n\n"
        "def threshold(hidden):\n" + CAP + "    m = MIN_HIDDEN.get(major * 10 + minor)\n"
        "    if m is None:\n        return None\n    return m if hidden >= m else None\n",
        "sm100",
        ("likely-gap", NO_ENTRY),
        id="get-then-none-turns-it-off",
    ),
    pytest.param(
        "MIN_HIDDEN = {(8, 0): 4096, (9, 0): 8192}\n\n"
        "def threshold(hidden):\n"
        "    if MIN_HIDDEN.get(torch.cuda.get_device_capability()) is None:\n"
        "        raise RuntimeError('sequence parallelism off')\n    return hidden\n",
        "sm100",
        ("likely-gap", NO_ENTRY),
        id="get-tested-in-place",
    ),
    pytest.param(
        "MIN_HIDDEN: dict[int, int] = {90: 8192}\n\n"
        "def threshold(hidden):\n" + CAP + "    m = MIN_HIDDEN.get(major * 10 + minor)\n"
        "    if m is None:\n        return None\n    return m\n",
        "sm100",
        ("likely-gap", NO_ENTRY),
        id="an-annotated-table",  # vLLM 0.20's SP_MIN_HIDDEN_SIZE: dict[int, int]
    ),
    # Noops: a generation older than a key (the table is not older than it), a default
    # for a missing key (a fallback), and keys naming arch-specific builds.
    pytest.param(
        "MIN_HIDDEN = {90: 8192}\n\n"
        "def threshold(hidden):\n" + CAP + "    m = MIN_HIDDEN.get(major * 10 + minor)\n"
        "    if m is None:\n        return None\n    return m\n",
        "sm86",
        ("probably-deliberate", "a single-generation gate: admits only sm90"),
        id="older-than-a-key",
    ),
    pytest.param(
        "MIN_HIDDEN = {90: 8192}\n\n"
        "def threshold(hidden):\n" + CAP + "    m = MIN_HIDDEN.get(major * 10 + minor, 0)\n"
        "    if m == 0:\n        return None\n    return m\n",
        "sm100",
        ("probably-deliberate", "a single-generation gate: admits only sm90"),
        id="a-default-given",
    ),
]


@pytest.mark.parametrize(("snippet", "generation", "expected"), TABLE_WITHOUT_ENTRY)
def test_a_table_without_the_generations_entry(
    make_tree: MakeTree, snippet: str, generation: str, expected: tuple[str, str]
) -> None:
    root = make_tree({"pkg/__init__.py": "", "pkg/mod.py": ARCH + snippet})
    report = run_audit([root], load_ruleset([]), generation)
    (row,) = [g for g in report.gates if g.found.line >= FIRST]
    assert row.gate_class.value == expected[0], row.reasons
    assert any(expected[1] in r for r in row.reasons), row.reasons


@pytest.mark.parametrize(("snippet", "generation", "expected"), CASES)
def test_table_lookup_is_a_gate(
    make_tree: MakeTree,
    snippet: str,
    generation: str,
    expected: list[tuple[int, tuple[str, ...], str]],
) -> None:
    assert rows(make_tree, snippet, generation) == expected


# Each refusal: not a row, with why.
NOOPS = [
    pytest.param(
        "def flags():\n    try:\n        return {'90a': 1, '100a': 2}[get_device_arch()]\n"
        "    except KeyError:\n        return 0\n",
        id="a-missing-key-handled",  # the handler is what a missing key is for
    ),
    pytest.param(
        "def tile():\n    return {'90a': 64, '100a': 128}.get(get_device_arch(), 32)\n",
        id="get-with-a-default",  # no KeyError: a tuning value
    ),
    pytest.param(
        "def tile():\n    return {'90a': 64, '100a': 128}['90a']\n",
        id="a-constant-key",
    ),
    pytest.param(
        "TABLE = {'90a': 64, '100a': 128}\n\n"
        "def tile():\n    return TABLE[get_device_arch()]\n\n"
        "def register(arch, v):\n    TABLE[arch] = v\n",
        id="a-table-changed-elsewhere",  # its keys are not known
    ),
    pytest.param(
        "KERNELS = {'90a': 'fused_sm90', '100a': 'fused_sm100'}\n\n"
        "def kernel():\n    arch = get_device_arch()\n    if arch not in KERNELS:\n"
        "        return None\n    return KERNELS[arch]\n",
        id="a-lookup-past-its-membership-test",  # the test is the gate (its own row)
    ),
    pytest.param(
        "def tile(fast):\n    table = {'90a': 64, '100a': 128}\n"
        "    if fast:\n        table = {'90a': 128}\n    return table[get_device_arch()]\n",
        id="a-local-table-bound-twice",  # which one is read is not known here
    ),
    pytest.param(
        "def tile(n):\n    return {1: 64, 2: 128}[n]\n",
        id="a-key-the-device-does-not-decide",
    ),
    pytest.param(
        "def tile(dtype, n):\n    return {(torch.float, 1): 64, (torch.half, 2): 128}[(dtype, n)]\n",
        id="a-tuple-key-with-no-part-known",  # nothing of the device in it
    ),
    pytest.param(
        "def tile(dtype):\n    return {('100a', torch.float): 64, '90a': 128}"
        "[(get_device_arch(), dtype)]\n",
        id="keys-of-other-shapes",  # a key not a tuple of the index's length: not read
    ),
    pytest.param(
        "def tile():\n    sizes = [64, 128]\n    return sizes[torch.cuda.get_device_capability()[0] - 9]\n",
        id="a-list-indexed",  # only dicts: an index past the end is not a missing key
    ),
]


@pytest.mark.parametrize("snippet", NOOPS)
def test_other_lookups_are_no_gate(make_tree: MakeTree, snippet: str) -> None:
    root = make_tree({"pkg/__init__.py": "", "pkg/mod.py": ARCH + snippet})
    report = run_audit([root], load_ruleset([]), "sm120")
    assert [g for g in report.gates if g.found.kind is SlotKind.LOOKUP] == []
