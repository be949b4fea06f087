"""A device predicate named with its subject first (`target_is_hopper`, `device_has_tma`:
TileLang's `tilelang/cuda/target.py`) returns its answer as `is_hopper` does: its `return`
is read whatever its shape; and a function not named as a predicate that returns such a
predicate's answer (TileLang's `_match_mma_sm120(target): return target_is_sm120(target)`,
a matcher in a table) keeps it as `pdl = is_arch_support_pdl()` does. Whether the answer
depends on the device is the evaluation's to say; the names only say where to look."""

from __future__ import annotations

import pytest

from tests.test_audit import MakeTree, audit, verdicts

PROBE = (
    "def probe(t):\n"
    "    major, _ = torch.cuda.get_device_capability()\n"
    "    return major == 9 if t else major == 12\n"
    "\n"
)

# (snippet after PROBE, rows as (line in mod.py, class); PROBE's first line is line 3)
CASES = [
    pytest.param(
        "def target_is_hopper(t):\n    return probe(True)\n",
        [(8, "probably-deliberate")],
        id="a-subject-first-predicate-returns-its-answer",
    ),
    pytest.param(
        "def device_is_sm120(t):\n"
        "    return probe(False)\n"
        "\n"
        "def _match_mma_sm120(t):\n"
        "    return device_is_sm120(t)\n",
        # The predicate's row is the decision; the matcher returning it is its hop.
        [(8, "admits")],
        id="a-matcher-returns-such-a-predicate-s-answer",
    ),
    pytest.param(
        # A wrapper of a compiled library's call that promises nothing by its own name:
        # the wrapper's name is read (assumed), its answer a row at the matcher.
        "import extlib\n"
        "\n"
        "def device_is_sm120(t):\n"
        "    return extlib.Query(t)\n"
        "\n"
        "def _match_mma_sm120(t):\n"
        "    return device_is_sm120(t)\n",
        [(13, "admits")],
        id="a-matcher-of-a-compiled-predicate",
    ),
    pytest.param(
        # The compiled call named for what it asks (TileLang's FFI `TargetIsSM120`): the
        # wrapper's own return is the decision, the matcher its hop.
        "import extlib\n"
        "\n"
        "def device_is_sm120(t):\n"
        "    return extlib.DeviceIsSM120(t)\n"
        "\n"
        "def _match_mma_sm120(t):\n"
        "    return device_is_sm120(t)\n",
        [(10, "admits")],
        id="a-matcher-of-a-compiled-predicate-named-for-it",
    ),
]

NOOPS = [
    pytest.param(
        # The last exit of a chain of early exits: read with the chain, one row.
        "def supports(t):\n"
        "    if is_sm90_supported():\n"
        "        return not t\n"
        "    return is_sm100_supported()\n",
        [(8, "likely-gap")],
        id="the-last-exit-of-a-chain",
    ),
    pytest.param(
        # Not an arch or vendor word after the verb: a subject's other state.
        "def target_is_ready(t):\n    return probe(True)\n",
        [],
        id="not-a-device-word",
    ),
    pytest.param(
        # A matcher returning another kind of call: nothing says it answers for a device.
        "def _match_mma(t):\n    return probe(t)\n",
        [],
        id="another-call",
    ),
]


@pytest.mark.parametrize(("snippet", "rows"), CASES + NOOPS)
def test_subject_first_predicates(
    make_tree: MakeTree, snippet: str, rows: list[tuple[int, str]]
) -> None:
    assert verdicts(audit(make_tree, PROBE + snippet)) == rows
