"""An environment variable that overrides the device's own answer (quack's `QUACK_ARCH`,
FlashAttention's `FLASH_ATTENTION_ARCH`, the CuTe DSL's `CUTE_DSL_ARCH`) leaves the
condition unknown on every generation. The audit reads such a condition with no
variable set, and says it assumed so (gatecheck/semantics/environment.py); `check` never
assumes it."""

from __future__ import annotations

from pathlib import Path

import pytest

from gatecheck.audit import run_audit
from gatecheck.config.loader import load_ruleset
from gatecheck.config.model import RuleSet
from gatecheck.semantics.admitted import admission_of
from tests.conftest import write_tree

OVERRIDES = """
import os
import torch
from functools import lru_cache

def _parse(text):
    return int(text[:-1]), int(text[-1])

@lru_cache
def _cached(device=None):
    override = os.environ.get("QUACK_ARCH")
    if override is not None:
        return _parse(override)
    return torch.cuda.get_device_capability(device)

def capacity(device=None):
    return _cached(device)

def target():
    arch = os.getenv("CUTE_DSL_ARCH", "")
    if arch:
        return _parse(arch)
    return torch.cuda.get_device_capability()

def compile_target():
    # The device first, the variable only without one: the device decides.
    if torch.cuda.is_available():
        return torch.cuda.get_device_capability()
    return _parse(os.environ.get("QUACK_ARCH", "90"))

def forced():
    # A knob beside the device's test: set, true everywhere; the device still decides
    # where it can be false.
    return os.environ.get("FORCE_FAST") == "1" or torch.cuda.get_device_capability()[0] == 9

def version_only():
    return os.environ.get("CUDA_HOME") is not None and torch.version.cuda >= "12.8"

def hopper_tensor(t):
    # Unknown on every AMD part, told apart on NVIDIA: the variable read on the way
    # changes nothing, and nothing is assumed.
    _ = os.environ.get("LOG_LEVEL")
    return t.is_cuda and torch.cuda.get_device_capability()[0] == 9

def default_of_the_device():
    # The variable's default is itself read from the device.
    return int(os.environ.get("SM", torch.cuda.get_device_capability()[0]))
"""

SM90 = {"sm90", "gfx90a", "gfx942", "gfx950"}  # ROCm devices report a major of 9 too
BLACKWELL = {"sm100", "sm103", "sm110", "sm120", "sm121"}
UNSET = "QUACK_ARCH unset"


@pytest.mark.parametrize(
    ("expr", "admitted", "assumed"),
    [
        ("capacity()[0] == 9", SM90, {UNSET}),
        ("capacity('cuda:0')[0] >= 10", BLACKWELL, {UNSET}),
        ("not (capacity()[0] >= 10)", "every other", {UNSET}),
        ("target()[0] >= 10", BLACKWELL, {"CUTE_DSL_ARCH unset"}),
        ("default_of_the_device() >= 10", BLACKWELL, {"SM unset"}),
        # The device decides without assuming anything: read as it always was.
        ("compile_target()[0] == 9", SM90, set()),
        ("forced()", "every", set()),
        ("hopper_tensor(x)", SM90, set()),
        # Read, but the device is not: no gate either way.
        ("version_only()", "every", set()),
        ("os.environ.get('QUACK_ARCH') is None", "every", set()),
    ],
)
def test_the_audit_assumes_no_variable_set(
    ruleset: RuleSet, expr: str, admitted: object, assumed: set[str]
) -> None:
    every = set(ruleset.registry.all_names())
    expected = {"every": every, "every other": every - BLACKWELL}.get(str(admitted), admitted)
    audit = admission_of(OVERRIDES, expr, ruleset.registry, assume_unset_environment=True)
    assert set(audit.can_be_true) == expected
    assert set(audit.assumed) == assumed
    # Without the assumption (`check`): an override leaves every generation admitted.
    strict = admission_of(OVERRIDES, expr, ruleset.registry)
    assert not strict.assumed
    if assumed:
        assert set(strict.can_be_true) == every == set(strict.can_be_false)
    else:
        assert strict == audit


def test_the_audit_row_says_what_it_assumed(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "proj",
        {
            "pkg/__init__.py": "",
            "pkg/arch.py": OVERRIDES,
            "pkg/gemm.py": """\
                from pkg.arch import capacity

                def pick(device):
                    if capacity(device)[0] == 12:
                        return "sm120-tiles"
                    if capacity(device)[0] == 9:
                        return "wgmma"
                    return "mma"
                """,
        },
    )
    report = run_audit([root], load_ruleset([]), "sm120")
    rows = {g.found.line: g for g in report.gates if g.path.name == "gemm.py"}
    assert set(rows) == {4, 6}
    assert set(rows[4].admits) == {"sm120", "sm121"}
    assert set(rows[6].admits) == SM90
    assert all(g.found.admission.assumed == {UNSET} for g in rows.values())


def test_a_likely_gap_read_with_no_variable_set_ranks_after_the_certain_ones(
    tmp_path: Path,
) -> None:
    """Its class rests on the assumption: a maintainer reads the certain ones first."""
    gate = 'def pick(device):\n    if {cap}[0] in (9, 10):\n        return "fast"\n'

    root = write_tree(
        tmp_path / "proj",
        {
            "pkg/__init__.py": "",
            "pkg/arch.py": OVERRIDES,
            # First by path, were it not for the assumption.
            "pkg/a_assumed.py": "from pkg.arch import capacity\n\n"
            + gate.format(cap="capacity(device)"),
            "pkg/b_certain.py": "import torch\n\n"
            + gate.format(cap="torch.cuda.get_device_capability(device)"),
        },
    )
    report = run_audit([root], load_ruleset([]), "sm120")
    gaps = [g.path.name for g in report.gates if g.gate_class.value == "likely-gap"]
    assert gaps == ["b_certain.py", "a_assumed.py"]
