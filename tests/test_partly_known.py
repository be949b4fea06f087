"""Values partly known (a tuple with an unknown item, an f-string with an unknown field,
a sequence whose items are all one value read at an unknown index), as (source, expr,
admitted) tables against the pure entry point. Each rule decides only what every value
of the unknown part decides; the noops are shapes that must stay unknown."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from tests.admission import EVERY, assert_can_be_true

AMD = frozenset({"gfx90a", "gfx942", "gfx950"})
NVIDIA_BELOW_8 = frozenset({"sm70", "sm75"})
FROM_8 = AMD | {"sm80", "sm86", "sm87", "sm89", "sm90", "sm100", "sm103", "sm110", "sm120", "sm121"}
# `n`, `k` and `xs` are unknown on every generation.
HEADER = (
    "import torch\n"
    "IS_ROCM = torch.version.hip is not None\n"
    "cap = torch.cuda.get_device_capability()\n"
    "n = int(input())\n"
    "k = int(input())\n"
    "xs = list(input())\n"
)

TUPLES = [
    # Python's own `in` compared gatecheck's unknown object with the items and said
    # false: the gate admitted nothing.
    pytest.param(HEADER, "IS_ROCM and (n, k) in {(1, 2), (3, 4)}", AMD, id="unknown-pair-in-a-set"),
    pytest.param(
        HEADER, "IS_ROCM and (n, k) in ((1, 2), (3, 4))", AMD, id="unknown-pair-in-a-tuple"
    ),
    pytest.param(HEADER, "IS_ROCM and (n, k) in {(1, 2): 8}", AMD, id="unknown-pair-dict-key"),
    pytest.param(HEADER, "IS_ROCM and [n] in [[1], [2]]", AMD, id="unknown-item-list-in-list"),
    pytest.param(
        HEADER, "IS_ROCM and (n, 1) in {(1, 2), (3, 1)}", AMD, id="known-part-matches-one"
    ),
    pytest.param(
        "import torch\n"
        "def u32_layout(n, k, *, capability):\n"
        "    if capability != (8, 0):\n"
        "        return False\n"
        "    return (n, k) in {(4096, 4096), (4096, 11008)}\n",
        "u32_layout(_n, _k, capability=torch.cuda.get_device_capability())",
        frozenset({"sm80"}),
        id="shape-allow-list-behind-a-capability",
    ),
    # decided where every value of the unknown part decides it
    pytest.param(
        HEADER, "IS_ROCM and (n, 1) in {(1, 2), (3, 4)}", frozenset(), id="known-part-never"
    ),
    pytest.param(
        HEADER, "(n, cap[0]) in {(1, 9), (2, 10)}", AMD | {"sm90", "sm100", "sm103"}, id="major"
    ),
    pytest.param(HEADER, "(cap[0], n) == (9, 4)", AMD | {"sm90"}, id="eq-known-part-decides"),
    pytest.param(HEADER, "(cap[0], n) != (9, 4)", EVERY, id="ne-known-part-undecided"),
    pytest.param(
        HEADER, "(cap[0], n) != (9, 4) and cap[0] < 8", NVIDIA_BELOW_8, id="ne-known-part-true"
    ),
    pytest.param(HEADER, "IS_ROCM and (n, k) == (1, 2, 3)", frozenset(), id="eq-other-length"),
    pytest.param(HEADER, "IS_ROCM and (n,) == [1]", frozenset(), id="tuple-never-equals-list"),
    pytest.param(HEADER, "IS_ROCM and (n, k) not in {(1, 2)}", AMD, id="not-in-unknown"),
    pytest.param(HEADER, "IS_ROCM and (n, 1) not in {(1, 2)}", AMD, id="not-in-decided"),
    # noops: shapes that must stay unknown
    pytest.param(HEADER, "IS_ROCM and {n, 1} == {1, 2}", AMD, id="noop-set-holding-an-unknown"),
    pytest.param(HEADER, "IS_ROCM and (n, 1) == (n, 1)", AMD, id="noop-both-sides-partly"),
    pytest.param(HEADER, "IS_ROCM and (*xs, 1) == (9, 0, 1)", AMD, id="noop-starred-unknown"),
    pytest.param(
        HEADER, "IS_ROCM and (*{n, k}, 1) == (1, 2, 1)", AMD, id="noop-starred-set-of-unknowns"
    ),
    pytest.param(HEADER, "(*cap, 1) == (9, 0, 1)", frozenset({"sm90", "gfx90a"}), id="starred"),
    # a tuple's length is known whatever its items
    pytest.param(HEADER, "IS_ROCM and len((n, k)) == 3", frozenset(), id="length-of-unknowns"),
    pytest.param(HEADER, "len((n, cap[0])) == 2 and cap[0] == 9", AMD | {"sm90"}, id="length"),
    pytest.param(
        HEADER, "IS_ROCM and len((*xs, 1)) == 1", AMD, id="noop-length-with-a-starred-unknown"
    ),
    # two unknown items of a set may be one: its length is not known
    pytest.param(HEADER, "IS_ROCM and len({n, k}) == 1", AMD, id="noop-length-of-a-set"),
    pytest.param(
        HEADER, "IS_ROCM and len({x % 2 for x in (n, k)}) == 1", AMD, id="noop-length-set-comp"
    ),
]


@pytest.mark.parametrize(("source", "expr", "admitted"), TUPLES)
def test_partly_known_tuple(ruleset: RuleSet, source: str, expr: str, admitted: object) -> None:
    assert_can_be_true(ruleset, source, expr, admitted)


PER_DEVICE = (
    "import torch\n"
    "def per_device():\n"
    "    n = torch.cuda.device_count()\n"
    "    return tuple(torch.cuda.get_device_capability(i)[0] >= 8 for i in range(n))\n"
    "def per_device_or_empty():\n"
    "    try:\n"
    "        return per_device()\n"
    "    except RuntimeError:\n"
    "        return ()\n"
    "def per_device_or_none():\n"
    "    try:\n"
    "        return per_device()\n"
    "    except RuntimeError:\n"
    "        return None\n"
    "FLAGS = per_device()\n"
    "FLAGS_OR_EMPTY = per_device_or_empty()\n"
    "SAME = (True, True, True)\n"
    "MIXED = (True, False)\n"
    "k = int(input())\n"
)

ITEMS = [
    # every device is one generation: any item of the per-device tuple is its value
    pytest.param(PER_DEVICE, "not FLAGS[k]", NVIDIA_BELOW_8, id="per-device-unknown-index"),
    pytest.param(
        PER_DEVICE, "k < len(FLAGS) and not FLAGS[k]", NVIDIA_BELOW_8, id="len-guarded-index"
    ),
    # `()` from the `except` has no item at all: reading one raises, which is no value
    pytest.param(PER_DEVICE, "not FLAGS_OR_EMPTY[0]", NVIDIA_BELOW_8, id="or-empty-first"),
    pytest.param(PER_DEVICE, "not FLAGS_OR_EMPTY[k]", NVIDIA_BELOW_8, id="or-empty-any"),
    pytest.param(PER_DEVICE, "not per_device_or_none()[k]", NVIDIA_BELOW_8, id="or-none-any"),
    pytest.param(
        PER_DEVICE,
        "not (FLAGS if k else ())[k]",
        NVIDIA_BELOW_8,
        id="conditional-expression-with-empty",
    ),
    pytest.param(PER_DEVICE, "not SAME[k] and FLAGS[0]", frozenset(), id="equal-items"),
    # noops: items that differ, or a truth that `()` decides differently
    pytest.param(PER_DEVICE, "MIXED[k] and FLAGS[0]", FROM_8, id="noop-mixed"),
    pytest.param(PER_DEVICE, "not MIXED[k] and FLAGS[0]", FROM_8, id="noop-mixed-not"),
    pytest.param(PER_DEVICE, "not FLAGS_OR_EMPTY", EVERY, id="noop-truth-of-tuple-or-empty"),
    pytest.param(PER_DEVICE, "isinstance(FLAGS, tuple)", EVERY, id="noop-isinstance-per-device"),
]


@pytest.mark.parametrize(("source", "expr", "admitted"), ITEMS)
def test_item_at_unknown_index(ruleset: RuleSet, source: str, expr: str, admitted: object) -> None:
    assert_can_be_true(ruleset, source, expr, admitted)


PER_DEVICE_LIST = (
    "import torch\n"
    "def majors():\n"
    "    try:\n"
    "        n = torch.cuda.device_count()\n"
    "        return [torch.cuda.get_device_capability(i)[0] for i in range(n)]\n"
    "    except Exception:\n"
    "        return [-1]\n"
    "def by_major():\n"
    "    if torch.cuda.get_device_capability()[0] >= 9:\n"
    "        return [1, 2]\n"
    "    return [3]\n"
    "def grown():\n"
    "    xs = by_major()\n"
    "    xs.append(4)\n"
    "    return xs\n"
    "k = int(input())\n"
)
FROM_9 = FROM_8 - {"sm80", "sm86", "sm87", "sm89"}
FROM_10 = frozenset({"sm100", "sm103", "sm110", "sm120", "sm121"})
BELOW_9 = NVIDIA_BELOW_8 | {"sm80", "sm86", "sm87", "sm89"}

LISTS = [
    # a list of constants is one of a helper's values, as a tuple is (`except: return
    # [-1]` beside the per-device list: fla's shared-memory check)
    pytest.param(PER_DEVICE_LIST, "majors()[0] >= 9", FROM_9, id="per-device-or-list-fallback"),
    pytest.param(PER_DEVICE_LIST, "majors()[k] >= 10", FROM_10, id="fallback-unknown-index"),
    pytest.param(PER_DEVICE_LIST, "by_major()[0] == 1", FROM_9, id="lists-by-generation"),
    pytest.param(PER_DEVICE_LIST, "3 in by_major()", BELOW_9, id="membership-in-list-option"),
    # noops: the fallback's own item decides where the query raised (on any machine); a
    # list changed in place is not the one returned; a list compared whole
    pytest.param(PER_DEVICE_LIST, "majors()[0] < 8", EVERY, id="noop-the-fallback-item"),
    pytest.param(PER_DEVICE_LIST, "grown()[-1] == 4", EVERY, id="noop-list-changed-in-place"),
    pytest.param(PER_DEVICE_LIST, "majors() == [-1]", EVERY, id="noop-list-compared-whole"),
]


@pytest.mark.parametrize(("source", "expr", "admitted"), LISTS)
def test_list_options(ruleset: RuleSet, source: str, expr: str, admitted: object) -> None:
    assert_can_be_true(ruleset, source, expr, admitted)


VALIDATOR = (
    "import torch\n"
    "def error(device):\n"
    "    if torch.cuda.get_device_capability(device) != (9, 0):\n"
    "        name = torch.cuda.get_device_properties(device).name\n"
    '        return f"needs sm90, found {name}"\n'
    '    return ""\n'
    "def check(device):\n"
    '    if name == "":\n'
    '        return "no name"\n'
    "    return error(device)\n"
    "name = input()\n"
    'TABLE = {"sm90": True}\n'
)
SM90 = frozenset({"sm90", "gfx90a"})
NOT_SM90 = (FROM_8 | NVIDIA_BELOW_8) - SM90

FSTRINGS = [
    # an f-string with literal text is never "" and always true
    pytest.param(VALIDATOR, 'error(0) == ""', SM90, id="never-empty"),
    pytest.param(VALIDATOR, 'error(0) != ""', NOT_SM90, id="never-empty-ne"),
    pytest.param(VALIDATOR, "not error(0)", SM90, id="always-true"),
    pytest.param(VALIDATOR, "bool(error(0))", NOT_SM90, id="bool-builtin"),
    pytest.param(VALIDATOR, 'error(0) in ("", None)', SM90, id="in-short-strings"),
    pytest.param(VALIDATOR, 'f"sm{name}" == "s"', frozenset(), id="shorter-than-its-text"),
    pytest.param(VALIDATOR, 'f"sm{name}" == None', frozenset(), id="not-none-eq"),
    pytest.param(VALIDATOR, 'f"sm{name}" is None', frozenset(), id="not-none-is"),
    pytest.param(VALIDATOR, 'f"sm{name}" is not None', EVERY, id="not-none-is-not"),
    pytest.param(VALIDATOR, 'f"sm{name}" is "sm9"', EVERY, id="noop-is-a-text"),
    pytest.param(VALIDATOR, 'isinstance(f"sm{name}", str)', EVERY, id="is-a-str"),
    # noops: what the text's fields decide stays unknown
    pytest.param(VALIDATOR, 'check(0) == ""', SM90, id="noop-other-message-on-a-path"),
    pytest.param(VALIDATOR, 'f"{name}" == "" and error(0) == ""', SM90, id="noop-no-literal-text"),
    pytest.param(VALIDATOR, 'f"sm{name}" == "sm90"', EVERY, id="noop-long-enough"),
    pytest.param(VALIDATOR, 'f"sm{name}" < "a"', EVERY, id="noop-order"),
    pytest.param(VALIDATOR, 'f"sm{name}".startswith("x")', EVERY, id="noop-method"),
    pytest.param(VALIDATOR, 'len(f"sm{name}") > 5', EVERY, id="noop-len"),
    pytest.param(VALIDATOR, 'f"sm{name}" == f"sm{name}"', EVERY, id="noop-two-texts"),
    pytest.param(
        VALIDATOR,
        'TABLE.get(f"sm{name}", False) and error(0) == ""',
        SM90,
        id="noop-table-key",
    ),
    pytest.param(VALIDATOR, '{f"sm{name}": 1}.get("sm90") == 1', EVERY, id="noop-dict-key"),
    pytest.param(VALIDATOR, '(f"sm{name}", "a")[0] == "sm9"', EVERY, id="noop-item-of-tuple"),
    pytest.param(
        VALIDATOR,
        '(f"sm{name}" if name else "abc")[0] == "a"',
        EVERY,
        id="noop-item-of-one-of-two-texts",
    ),
]


@pytest.mark.parametrize(("source", "expr", "admitted"), FSTRINGS)
def test_fstring_with_literal_text(
    ruleset: RuleSet, source: str, expr: str, admitted: object
) -> None:
    assert_can_be_true(ruleset, source, expr, admitted)
