"""Tables keyed by capability (fixtures/capability_tables): a size looked up with
`.get(cap[0] * 10 + cap[1], 0)` then `if size == 0: return`, a config table read with
`major * 10 + minor` after `if sm not in TABLE: raise`, membership in a set of SM numbers
and in a dict keyed by the capability tuple. A missing key turns the feature off, so each
is a gate whose admitted set is the table's keys; a per-GPU tuning table with a generic
default (`.get(sm, 64)`) turns nothing off and is no gate. Pinned for the audit (every
generation it is asked about) and for check (the rules' gate_functions reach them)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from gatecheck.audit import run_audit
from gatecheck.cli import cli
from gatecheck.config.loader import load_ruleset
from tests.conftest import FIXTURES

FIXTURE = FIXTURES / "capability_tables"

# (file, line, polarity, the feature's NVIDIA generations)
ROWS = [
    ("allreduce.py", 17, "disables", ["sm90", "sm100", "sm103"]),
    ("moe.py", 17, "disables", ["sm80", "sm90"]),
    ("moe.py", 24, "enables", ["sm90", "sm100"]),
    ("moe.py", 36, "enables", ["sm90", "sm100"]),
]


def _rows(generation: str) -> list[tuple[str, int, str, list[str], str]]:
    report = run_audit([FIXTURE], load_ruleset([]), generation)
    nvidia = report.registry.vendor_names("nvidia")
    order = list(report.registry.names)
    return sorted(
        (
            g.path.name,
            g.found.line,
            g.found.polarity.value,
            sorted(g.found.admits & nvidia, key=order.index),
            g.gate_class.value,
        )
        for g in report.gates
    )


@pytest.mark.parametrize(
    ("generation", "classes"),
    [
        # sm120 is in no table: each table is an allowlist it is missing from.
        ("sm120", ["likely-gap"] * 4),
        # sm100 is in three; the config table (sm80, sm90) leaves it out.
        ("sm100", ["admits", "likely-gap", "admits", "admits"]),
    ],
)
def test_the_audit_lists_each_table_with_its_keys(generation: str, classes: list[str]) -> None:
    rows = _rows(generation)
    assert [row[:4] for row in rows] == ROWS
    assert [row[4] for row in rows] == classes


def test_a_tuning_table_with_a_default_is_no_gate() -> None:
    """tuning.py's `_BLOCK_SIZES.get(major * 10 + minor, 64)`: every generation gets a
    block size, so no generation loses the kernel."""
    assert all(row[0] != "tuning.py" for row in _rows("sm120"))


def _check(root: Path) -> list[tuple[str, int, str, str, list[str]]]:
    result = CliRunner().invoke(
        cli,
        [
            "check",
            str(root / "tables"),
            "--rules",
            str(root / "rules.yaml"),
            "--format",
            "json",
            "--no-cache",
        ],
    )
    assert result.exit_code == 1, result.output
    findings = json.loads(result.stdout)["findings"]
    return [
        (
            Path(f["path"]).name,
            f["start"]["line"],
            f["feature"],
            f["gate"]["kind"],
            [g for g in f["admitted"] if g.startswith("sm")],
        )
        for f in findings
    ]


def test_check_reaches_the_tables_through_the_gate_functions() -> None:
    assert _check(FIXTURE) == [
        ("allreduce.py", 16, "one-shot-allreduce", "gate-function", ["sm90", "sm100", "sm103"]),
        ("allreduce.py", 17, "one-shot-allreduce", "guard", ["sm90", "sm100", "sm103"]),
        ("moe.py", 17, "fused-moe", "guard", ["sm80", "sm90"]),
        ("moe.py", 19, "fused-moe", "gate-function", ["sm80", "sm90"]),
        ("moe.py", 24, "fused-moe", "gate-function", ["sm90", "sm100"]),
        ("moe.py", 36, "fused-moe", "guard", ["sm90", "sm100"]),
        ("moe.py", 37, "fused-moe", "gate-function", ["sm90", "sm100"]),
    ]
    # tuned-launch's gate function returns a block size on every generation: no finding.


def test_the_tuning_function_is_reached_and_only_its_default_keeps_it_open(
    tmp_path: Path,
) -> None:
    """The noop above is not a gate function check never reached: with a default of 0
    (falsy, the kernel off) the same table is a gate of tuned-launch."""
    root = tmp_path / "capability_tables"
    shutil.copytree(FIXTURE, root)
    tuning = root / "tables" / "tuning.py"
    tuning.write_text(tuning.read_text().replace("minor, 64)", "minor, 0)"))
    tuned = [row for row in _check(root) if row[2] == "tuned-launch"]
    assert tuned == [("tuning.py", 14, "tuned-launch", "gate-function", ["sm90", "sm100"])]
