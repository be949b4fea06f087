"""A list filled by a loop appending one item per iteration (gatecheck/semantics/appended.py)
holds what the comprehension would: an item per device (values.EachDevice) over the
machine's devices, the items in order over a known list. Read where the statement walk
runs the loop (a helper called elsewhere) and where a condition after the loop reads the
list; any other way of filling it leaves it unknown. The iteration may bind plain names
first and append under `if item not in name:`. A `for` over such a list (or over the
comprehension) binds its target to a device's item (env.loop_target)."""

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

ARCHS = (
    "def archs():\n"
    "    out = []\n"
    "    for i in range(torch.cuda.device_count()):\n"
    "        major, minor = torch.cuda.get_device_capability(i)\n"
    '        out.append(f"{major}.{minor}")\n'
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
    pytest.param(
        "def sms():\n"
        "    out = []\n"
        "    for i in range(torch.cuda.device_count()):\n"
        "        major, minor = torch.cuda.get_device_capability(i)\n"
        "        sm = major * 10 + minor\n"
        "        out.append(sm)\n"
        "    return out\n"
        "\n"
        "def wide():\n    return min(sms()) >= 90  # gate\n",
        FROM_9,
        id="names-bound-before-the-append",
    ),
    pytest.param(
        "def archs():\n"
        "    ccs = []\n"
        "    for i in range(torch.cuda.device_count()):\n"
        "        major, minor = torch.cuda.get_device_capability(i)\n"
        '        cc = f"{major}.{minor}"\n'
        "        if cc not in ccs:\n"
        "            ccs.append(cc)\n"
        "    return ccs\n"
        "\n"
        'def run():\n    return "9.0" in archs()  # gate\n',
        {"sm90", "gfx90a"},
        id="each-arch-appended-once",  # DeepSpeed's JIT builder gathers its archs so
    ),
    pytest.param(
        "def floors():\n"
        "    out = [8]\n"
        "    for m in (8, 9, 9):\n"
        "        if m not in out:\n"
        "            out.append(m)\n"
        "    return out\n"
        "\n"
        "def run():\n"
        "    return len(floors()) == 3 or major() >= 9  # gate\n",
        FROM_9,
        id="known-items-appended-once",  # [8, 9]: three items would be true everywhere
    ),
]

# A `for` over an item per device: its target is a device's item in the body.
LOOPED = [
    pytest.param(
        "def run():\n"
        "    caps = [torch.cuda.get_device_capability(i) for i in range(torch.cuda.device_count())]\n"
        "    for cap in caps:\n"
        "        return cap[0] == 9  # gate\n",
        {"sm90", "gfx90a", "gfx942", "gfx950"},
        id="over-the-comprehension",
    ),
    pytest.param(
        "def caps():\n"
        "    out = []\n"
        "    for i in range(torch.cuda.device_count()):\n"
        "        out.append(torch.cuda.get_device_capability(i))\n"
        "    return out\n"
        "\n"
        "def run():\n"
        "    for major, minor in caps():\n"
        "        return (major, minor) >= (10, 0)  # gate\n",
        {"sm100", "sm103", "sm110", "sm120", "sm121"},
        id="over-a-gathered-list-unpacked",
    ),
    pytest.param(
        "def run():\n"
        "    archs = []\n"
        "    for i in range(torch.cuda.device_count()):\n"
        "        major, minor = torch.cuda.get_device_capability(i)\n"
        '        archs.append(f"{major}.{minor}")\n'
        "    for arch in archs:\n"
        '        return arch == "12.0"  # gate\n',
        {"sm120"},
        id="over-a-list-filled-in-the-same-function",
    ),
    pytest.param(
        ARCHS + "def run(flag):\n"
        "    kept = []\n"
        '    for cc in [a.split(".") for a in archs()]:\n'
        "        if flag:\n"
        '            return cc[0] == "12"  # gate\n'
        "        kept.append(cc)\n"
        "    return kept\n",
        {"sm120", "sm121"},
        id="each-item-kept-after-it-is-read",  # the next iteration reads the next item
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
    pytest.param(
        "def wide():\n"
        "    found = []\n"
        "    for i in range(torch.cuda.device_count()):\n"
        "        n = len(found)\n"
        "        found.append(torch.cuda.get_device_capability(i)[0] + n)\n"
        "    return min(found) >= 9  # gate\n",
        id="a-name-bound-from-the-list",  # each item depends on the ones before
    ),
    pytest.param(
        "def wide():\n"
        "    found = []\n"
        "    for i in range(torch.cuda.device_count()):\n"
        "        cap = torch.cuda.get_device_capability(i)\n"
        "        if cap not in found:\n"
        "            found.append(cap[0] - 2)\n"
        "    return min(found) >= 9  # gate\n",
        id="appended-once-another-item",  # not the item the test looks for
    ),
    pytest.param(
        "def wide():\n"
        "    found = []\n"
        "    for i in range(torch.cuda.device_count()):\n"
        "        cap = torch.cuda.get_device_capability(i)\n"
        "        if cap not in found:\n"
        "            found.append(cap)\n"
        "        else:\n"
        "            found.append((0, 0))\n"
        "    return min(found) >= (9, 0)  # gate\n",
        id="appended-once-or-else-something-else",
    ),
    pytest.param(
        "def run():\n"
        "    for name in [str(i) for i in range(torch.cuda.device_count())]:\n"
        "        return name == '0'  # gate\n",
        id="a-for-over-items-the-device-does-not-decide",
    ),
    pytest.param(
        ARCHS + "def run(flag, again):\n"
        '    for cc in [a.split(".") for a in archs()]:\n'
        "        while again:\n"
        "            if flag:\n"
        '                return cc[0] == "12"  # gate\n'
        '            cc[0] = "12"\n',
        id="changed-in-an-inner-loop-around-the-read",  # read again before the next item
    ),
]


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_a_list_filled_by_a_loop(ruleset: RuleSet, source: str, expected: set[str]) -> None:
    assert _admits(ruleset, source) == expected


@pytest.mark.parametrize(("source", "expected"), LOOPED)
def test_a_for_over_the_devices(ruleset: RuleSet, source: str, expected: set[str]) -> None:
    assert _admits(ruleset, source) == expected


@pytest.mark.parametrize("source", NOOPS)
def test_lists_filled_otherwise_stay_unknown(ruleset: RuleSet, source: str) -> None:
    assert _admits(ruleset, source) == ruleset.registry.all_names()
