"""A value that is one of a few sequences (`[]` where a query raised, or the devices'
list: values.OneOf of an empty list and values.EachDevice) read option by option: a
comprehension over it (expressions._over_options), a builtin of it
(builtin_calls._per_option; min/max of an empty one raises, no value on that path), an
`or`/`and` whose options decide on their own paths (logic.bool_op), and a `try` whose
handler may see the list the body was filling (statements._partly_changed). The shapes
of unsloth's `cuda_visible_capabilities()` and unsloth_zoo's `_visible_cuda_capabilities()`,
written here."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from tests.test_callers_union import _admits

FROM_9 = {"sm90", "sm100", "sm103", "sm110", "sm120", "sm121", "gfx90a", "gfx942", "gfx950"}
FROM_8 = {"sm80", "sm86", "sm87", "sm89", *FROM_9}

# `[]` where the device count cannot be read, else each device's capability.
EMPTY_OR_EACH = (
    "def caps():\n"
    "    try:\n"
    "        count = torch.cuda.device_count()\n"
    "    except Exception:\n"
    "        return []\n"
    "    out = []\n"
    "    for i in range(count):\n"
    "        out.append(tuple(torch.cuda.get_device_capability(i)))\n"
    "    return out\n"
    "\n"
)
# The loop inside a `try` whose handler goes on: none or some of the devices' items.
FILLED_IN_A_TRY = (
    "def caps():\n"
    "    found = []\n"
    "    try:\n"
    "        for i in range(torch.cuda.device_count()):\n"
    "            found.append(tuple(torch.cuda.get_device_capability(i)))\n"
    "    except Exception:\n"
    "        pass\n"
    "    return found\n"
    "\n"
)

CASES = [
    pytest.param(
        EMPTY_OR_EACH + "def tma():\n"
        "    c = caps()\n"
        "    return bool(c) and min(x[0] for x in c) >= 9  # gate\n",
        FROM_9,
        id="min-over-a-comprehension-of-one-of-two-lists",
    ),
    pytest.param(
        EMPTY_OR_EACH + "def tma():\n    return max(x[0] for x in caps()) >= 9  # gate\n",
        FROM_9,
        id="max-of-nothing-raises-the-devices-decide",
    ),
    pytest.param(
        FILLED_IN_A_TRY + "def bf16():\n"
        "    every = caps() or [tuple(torch.cuda.get_device_capability())]\n"
        "    return all(mj >= 8 for mj, _ in every)  # gate\n",
        FROM_8,
        id="a-try-around-the-loop-then-or-a-fallback",
    ),
    pytest.param(
        FILLED_IN_A_TRY + "def any_new():\n    return any(c >= (9, 0) for c in caps())  # gate\n",
        FROM_9,
        id="any-over-none-or-the-devices",
    ),
]

# Every generation: no option-by-option reading is sure.
NOOPS = [
    pytest.param(
        "def caps():\n"
        "    try:\n"
        "        count = torch.cuda.device_count()\n"
        "    except Exception:\n"
        "        import vendor_probe\n"
        "        return vendor_probe.capabilities()\n"
        "    return [torch.cuda.get_device_capability(i) for i in range(count)]\n"
        "\n"
        "def run():\n"
        "    return min(c[0] for c in caps()) >= 9  # gate\n",
        id="an-option-not-known",
    ),
    pytest.param(
        "def caps():\n"
        "    found = []\n"
        "    try:\n"
        "        found.append(torch.cuda.get_device_capability()[0])\n"
        "        probe()\n"
        "    except Exception:\n"
        "        found.append(7)\n"
        "    return found\n"
        "\n"
        "def run():\n"
        "    return min(caps()) >= 9  # gate\n",
        # The handler sees the item the body added, then adds its own: not `[7]`.
        id="a-handler-adding-to-what-the-body-filled",
    ),
    pytest.param(
        "def caps():\n"
        "    found = [7]\n"
        "    try:\n"
        "        for i in range(torch.cuda.device_count()):\n"
        "            found.append(torch.cuda.get_device_capability(i)[0])\n"
        "    except Exception:\n"
        "        pass\n"
        "    return found\n"
        "\n"
        "def run():\n"
        "    return max(caps()) >= 9  # gate\n",
        id="devices-after-an-item-in-a-try",  # some of them, after 7: not the devices'
    ),
]


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_one_of_a_few_sequences(ruleset: RuleSet, source: str, expected: set[str]) -> None:
    assert _admits(ruleset, source) == expected


@pytest.mark.parametrize("source", NOOPS)
def test_sequences_not_read_option_by_option(ruleset: RuleSet, source: str) -> None:
    assert _admits(ruleset, source) == ruleset.registry.all_names()
