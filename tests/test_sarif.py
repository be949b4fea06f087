"""SARIF 2.1.0: schema-valid, repo-relative, code-point columns, codeFlows from hops, fixes
from edits, stable fingerprints."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from jsonschema import Draft4Validator

from gatecheck.cli import cli
from gatecheck.findings import (
    MISSING_GENERATION,
    RULES,
    Edit,
    Finding,
    GateKind,
    Hop,
    HopKind,
    Polarity,
    Position,
)
from gatecheck.reporting.columns import code_point_column
from gatecheck.reporting.sarif import FINGERPRINT_KEY, sarif_log
from gatecheck.suppressions import SUPPRESSION_RULES
from tests.conftest import FAST_THING_RULE, FIXTURES, REPO, corpus_package, write_tree

# The OASIS schema is not committed (third-party text): CI has it in the shared folder
# beside the checkout; elsewhere GATECHECK_SARIF_SCHEMA names a copy.
SCHEMA_PATH = Path(
    os.environ.get("GATECHECK_SARIF_SCHEMA")
    or Path(__file__).parents[2] / "shared/schemas/sarif-schema-2.1.0.json"
)


def load_validator() -> Draft4Validator:
    if not SCHEMA_PATH.is_file():
        message = (
            f"SARIF schema not found at {SCHEMA_PATH} (the shared folder beside the "
            "checkout, or GATECHECK_SARIF_SCHEMA=FILE)"
        )
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{message}: CI must validate SARIF, not skip it")
        pytest.skip(message)
    return Draft4Validator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def validator() -> Draft4Validator:
    return load_validator()


def assert_valid(validator: Draft4Validator, log: dict[str, Any]) -> None:
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])


def sarif(*args: str) -> dict[str, Any]:
    result = CliRunner().invoke(cli, ["check", *args, "--format", "sarif"])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.output)


def test_seed_fixture_sarif(validator: Draft4Validator, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    log = sarif(str(FIXTURES / "seed_alias"))
    assert_valid(validator, log)
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "gatecheck" and driver["semanticVersion"]
    ids = [rule["id"] for rule in driver["rules"]]
    assert ids == [r.id for r in (*RULES, *SUPPRESSION_RULES)] and len(set(ids)) == len(ids)
    for rule in driver["rules"]:
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert rule["help"]["markdown"] and rule["defaultConfiguration"]["level"]
        assert "security-severity" not in json.dumps(rule)
    assert run["columnKind"] == "unicodeCodePoints"
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == REPO.as_uri() + "/"
    results = run["results"]
    assert [r["ruleId"] for r in results] == ["GC001", "GC001"]
    first = results[0]
    assert first["level"] == "error" and "excludes required sm120" in first["message"]["text"]
    location = first["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {
        "uri": "fixtures/seed_alias/sglang/srt/layers/communicator.py",
        "uriBaseId": "%SRCROOT%",
    }
    assert location["region"] == {
        "startLine": 21,
        "startColumn": 10,
        "endLine": 21,
        "endColumn": 51,
    }
    (flow,) = first["codeFlows"]
    steps = flow["threadFlows"][0]["locations"]
    assert steps and all(
        s["location"]["physicalLocation"]["region"]["startLine"] >= 1 for s in steps
    )
    assert any("admits" in step["location"]["message"]["text"] for step in steps)
    assert len(first["fingerprints"][FINGERPRINT_KEY]) == 32
    # the verified edit is planned (not written) and carried as a SARIF fix
    (fix,) = first["fixes"]
    (change,) = fix["artifactChanges"]
    assert change["artifactLocation"]["uri"].endswith("communicator.py")
    assert [r["insertedContent"]["text"] for r in change["replacements"]] == [
        " or _is_sm120_supported"
    ]


def test_fingerprints_survive_moves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    root = tmp_path / "seed"
    shutil.copytree(FIXTURES / "seed_alias", root)
    monkeypatch.chdir(root)

    def prints() -> list[tuple[object, object]]:
        results = sarif(".")["runs"][0]["results"]
        return [(r["fingerprints"], r["partialFingerprints"]) for r in results]

    before = prints()
    server = root / "sglang/srt/server_args.py"
    server.write_text("\n\n# moved down\n" + server.read_text())
    assert prints() == before
    # A changed condition is a new alert.
    reordered = "(is_sm100_supported() or is_sm90_supported())"
    server.write_text(
        server.read_text().replace("(is_sm90_supported() or is_sm100_supported())", reordered)
    )
    changed = prints()
    assert changed != before and changed[0] == before[0]


ARGS = """
import torch


class Args:
    enable_fast_thing: bool = False

    def adjust(self):
        major, minor = torch.cuda.get_device_capability()
        label = "ünïcode"
        if label != "日本語" and major in (9, 10):  # {comment}
            self.enable_fast_thing = True
"""
RULE = FAST_THING_RULE


def mini(tmp_path: Path, comment: str = "") -> Path:
    return write_tree(
        tmp_path / "proj",
        {
            "pkg/__init__.py": "",
            "pkg/args.py": ARGS.replace("{comment}", comment),
            "rules.yaml": RULE,
        },
    )


def test_columns_count_code_points(
    tmp_path: Path, validator: Draft4Validator, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = mini(tmp_path)
    monkeypatch.chdir(root)
    log = sarif(".", "--rules", "rules.yaml")
    assert_valid(validator, log)
    (result,) = log["runs"][0]["results"]
    region = result["locations"][0]["physicalLocation"]["region"]
    line = (root / "pkg/args.py").read_text(encoding="utf-8").splitlines()[10]
    start = line.index("major in (9, 10)")
    assert region == {
        "startLine": 11,
        "startColumn": start + 1,
        "endLine": 11,
        "endColumn": start + len("major in (9, 10)") + 1,
    }
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "pkg/args.py"


@pytest.mark.parametrize(
    ("line", "byte_column", "expected"),
    [
        pytest.param("abc", 2, 2, id="ascii"),
        pytest.param("é = 1", 2, 1, id="two-byte"),
        pytest.param(
            "x = '日本' + y", len("x = '日本' + ".encode()), len("x = '日本' + "), id="three-byte"
        ),
        pytest.param("🙂 x", 4, 1, id="astral"),
        pytest.param("é", 1, 0, id="mid-character-floors"),
    ],
)
def test_code_point_column(line: str, byte_column: int, expected: int) -> None:
    assert code_point_column(line, byte_column) == expected


def test_suppressed_findings_are_left_out_unless_asked(
    tmp_path: Path, validator: Draft4Validator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(mini(tmp_path, "gatecheck: ignore[fast-thing] no sm120 kernel yet"))
    assert sarif(".", "--rules", "rules.yaml")["runs"][0]["results"] == []
    log = sarif(".", "--rules", "rules.yaml", "--include-suppressed")
    assert_valid(validator, log)
    (result,) = log["runs"][0]["results"]
    assert result["suppressions"] == [{"kind": "inSource", "justification": "no sm120 kernel yet"}]


def hand_made_finding(path: Path) -> Finding:
    return Finding(
        rule=MISSING_GENERATION,
        path=path,
        start=Position(2, 4),
        end=Position(2, 21),
        feature="fast-thing",
        message="gate excludes sm120",
        required=frozenset({"sm90", "sm120"}),
        admitted=frozenset({"sm90"}),
        missing=frozenset({"sm120"}),
        gate_kind=GateKind.RUNTIME,
        polarity=Polarity.ENABLES,
        qualname="pkg.m.f",
        condition="is_sm90_supported()",
        culprit="is_sm90_supported()",
        hops=(
            Hop(path, 2, "pkg.m.f", HopKind.RUNTIME, "is_sm90_supported()", frozenset({"sm90"}), 4),
        ),
        edits=(
            Edit(path, 25, 25, " or is_sm120_supported()"),
            Edit(path, 0, 0, "from x import is_sm120_supported\n"),
        ),
        fix_note="add is_sm120_supported()",
    )


def test_fixes_from_edits(tmp_path: Path, validator: Draft4Validator) -> None:
    path = tmp_path / "pkg" / "m.py"
    path.parent.mkdir()
    path.write_text("def f():\n    is_sm90_supported()\n", encoding="utf-8")
    log = sarif_log([hand_made_finding(path)], rules=RULES, root=tmp_path)
    assert_valid(validator, log)
    (result,) = log["runs"][0]["results"]
    (fix,) = result["fixes"]
    assert fix["description"]["text"] == "add is_sm120_supported()"
    (change,) = fix["artifactChanges"]
    assert change["artifactLocation"] == {"uri": "pkg/m.py", "uriBaseId": "%SRCROOT%"}
    assert change["replacements"] == [
        {
            "deletedRegion": {"byteOffset": 0, "byteLength": 0},
            "insertedContent": {"text": "from x import is_sm120_supported\n"},
        },
        {
            "deletedRegion": {"byteOffset": 25, "byteLength": 0},
            "insertedContent": {"text": " or is_sm120_supported()"},
        },
    ]


def test_paths_outside_the_root_are_absolute_uris(
    tmp_path: Path, validator: Draft4Validator
) -> None:
    path = tmp_path / "m.py"
    path.write_text("def f():\n    is_sm90_supported()\n", encoding="utf-8")
    log = sarif_log([hand_made_finding(path)], rules=RULES, root=tmp_path / "elsewhere")
    assert_valid(validator, log)
    location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": path.resolve().as_uri()}


def test_sarif_output_beside_another_format(tmp_path: Path, validator: Draft4Validator) -> None:
    out, md = tmp_path / "report.sarif", tmp_path / "report.md"
    result = CliRunner().invoke(
        cli,
        [
            "check",
            str(FIXTURES / "seed_alias"),
            "--format",
            "concise",
            "--sarif-output",
            str(out),
            "--markdown-output",
            str(md),
        ],
    )
    assert result.exit_code == 1
    assert len(result.output.strip().splitlines()) == 2
    log = json.loads(out.read_text(encoding="utf-8"))
    assert_valid(validator, log)
    assert len(log["runs"][0]["results"]) == 2
    assert md.read_text(encoding="utf-8").startswith("## gatecheck")


@pytest.mark.corpus
def test_sglang_059_sarif(validator: Draft4Validator, monkeypatch: pytest.MonkeyPatch) -> None:
    root = corpus_package("sglang==0.5.9")
    monkeypatch.chdir(REPO)
    log = sarif(str(root))
    assert_valid(validator, log)
    results = log["runs"][0]["results"]
    where = [
        (
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
        )
        for r in results
    ]
    assert [(uri.split("sglang-0.5.9/")[-1], line) for uri, line in where] == [
        ("sglang/srt/layers/communicator.py", 95),
        ("sglang/srt/server_args.py", 1691),
    ]
    assert all(r["codeFlows"][0]["threadFlows"][0]["locations"] for r in results)


def test_files_not_analysed_are_notifications(
    tmp_path: Path, validator: Draft4Validator, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = mini(tmp_path)
    (root / "pkg" / "bad.py").write_text("enable_fast_thing = (\n", encoding="utf-8")
    monkeypatch.chdir(root)
    log = sarif(".", "--rules", "rules.yaml")
    assert_valid(validator, log)
    (notification,) = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert notification["descriptor"]["id"] == "GC900"
    assert (
        notification["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "pkg/bad.py"
    )
