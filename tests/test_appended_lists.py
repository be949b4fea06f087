"""A list filled by a loop appending one item per iteration (gatecheck/semantics/appended.py)
holds what the comprehension would: an item per device (values.EachDevice) over the
machine's devices, the items in order over a known list. Read where the statement walk
runs the loop (a helper called elsewhere) and where a condition after the loop reads the
list; any other way of filling it leaves it unknown."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from tests.test_callers_union import _admits

FROM_9 = {"sm90", "sm100", "sm103", "sm110", "sm120", "sm121", "gfx90a", "gfx942", "gfx950"}
FROM_8 = {"sm80", "sm86", "sm87", "sm89", *FROM_9}

GATHER = (
    "def caps():\n"
    "    out = []\n"
    "    for i in range(torch.cuda.device_count()):\n"
    "        out.append(tuple(torch.cuda.get_device_capability(i)))\n"
    "    return out\n"
    "\n"
)

# (source after the device helper `major()`, where the `# gate` line can be true)
CASES = [
    pytest.param(
        GATHER + "def wide():\n    return min(c[0] for c in caps()) >= 9  # gate\n",
        FROM_9,
        id="a-helper-gathering-every-device",
    ),
    pytest.param(
        GATHER + "def half():\n    return all(mj >= 8 for mj, _ in caps())  # gate\n",
        FROM_8,
        id="every-device-unpacked",
    ),
    pytest.param(
        "def wide():\n"
        "    found = []\n"
        "    for i in range(torch.cuda.device_count()):\n"
        "        found.append(torch.cuda.get_device_capability(i)[0])\n"
        "    return max(found) >= 9  # gate\n",
        FROM_9,
        id="read-after-the-loop-in-the-same-function",
    ),
    pytest.param(
        "def caps():\n"
        "    out = []\n"
        "    for i in range(torch.cuda.device_count()):\n"
        "        try:\n"
        "            cap = tuple(torch.cuda.get_device_capability(i))\n"
        "        except Exception:\n"
        "            continue\n"
        "        out.append(cap)\n"
        "    return out\n"
        "\n"
        "def wide():\n    return min(c[0] for c in caps()) >= 9  # gate\n",
        FROM_9,
        id="a-device-that-cannot-be-read-is-skipped",  # unsloth's cuda_visible_capabilities
    ),
    pytest.param(
        "def caps():\n"
        "    out = []\n"
        "    for i in range(torch.cuda.device_count()):\n"
        "        try:\n"
        "            out.append(tuple(torch.cuda.get_device_capability(i)))\n"
        "        except Exception:\n"
        "            continue\n"
        "    return out\n"
        "\n"
        "def wide():\n    return all(mj >= 9 for mj, _ in caps())  # gate\n",
        FROM_9,
        id="the-append-guarded-in-place",
    ),
    pytest.param(
        "def floors():\n"
        "    out = []\n"
        "    for m in (8, 9):\n"
        "        out.append(m * 10)\n"
        "    return out\n"
        "\n"
        "def run():\n"
        "    return major() * 10 in floors()  # gate\n",
        {"sm80", "sm86", "sm87", "sm89", "sm90", "gfx90a", "gfx942", "gfx950"},
        id="known-items-in-order",
    ),
]

# The list stays unknown: every generation.
NOOPS = [
    pytest.param(
        "def wide():\n"
        "    found = []\n"
        "    for i in range(torch.cuda.device_count()):\n"
        "        found.append(torch.cuda.get_device_capability(i)[0])\n"
        "    found.append(0)\n"
        "    return max(found) >= 9  # gate\n",
        id="changed-again-after-the-loop",
    ),
    pytest.param(
        "def wide():\n"
        "    found = []\n"
        "    for i in range(torch.cuda.device_count()):\n"
        "        if i > 0:\n"
        "            found.append(torch.cuda.get_device_capability(i)[0])\n"
        "    return min(found) >= 9  # gate\n",
        id="appended-under-a-test",
    ),
    pytest.param(
        "def wide(found):\n"
        "    for i in range(torch.cuda.device_count()):\n"
        "        found.append(torch.cuda.get_device_capability(i)[0])\n"
        "    return min(found) >= 9  # gate\n",
        id="a-list-not-known-before",
    ),
    pytest.param(
        "def wide():\n"
        "    found = [0]\n"
        "    for i in range(torch.cuda.device_count()):\n"
        "        found.append(torch.cuda.get_device_capability(i)[0])\n"
        "    return min(found) >= 9  # gate\n",
        id="devices-after-an-item",  # the per-device value holds for every item only
    ),
    pytest.param(
        "def wide():\n"
        "    found = []\n"
        "    for i in range(torch.cuda.device_count()):\n"
        "        try:\n"
        "            found.append(torch.cuda.get_device_capability(i)[0])\n"
        "        except Exception:\n"
        "            found.append(0)\n"
        "    return min(found) >= 9  # gate\n",
        id="a-handler-that-adds-its-own-item",
    ),
    pytest.param(
        "def floors():\n"
        "    out = []\n"
        "    for m in (8, 9):\n"
        "        try:\n"
        "            out.append(int(str(m)))\n"
        "        except Exception:\n"
        "            continue\n"
        "    return out\n"
        "\n"
        "def run():\n"
        "    return major() * 10 in [f * 10 for f in floors()]  # gate\n",
        id="known-items-an-iteration-may-skip",  # which ones are in is not known
    ),
]


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_a_list_filled_by_a_loop(ruleset: RuleSet, source: str, expected: set[str]) -> None:
    assert _admits(ruleset, source) == expected


@pytest.mark.parametrize("source", NOOPS)
def test_lists_filled_otherwise_stay_unknown(ruleset: RuleSet, source: str) -> None:
    assert _admits(ruleset, source) == ruleset.registry.all_names()
