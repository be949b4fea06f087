"""SARIF as GitHub code scanning ingests it (docs.github.com, "SARIF support for code
scanning"): the properties it reads, the limits it enforces on upload, and the
fingerprints it tracks alerts with (#16.4). The OASIS schema test is in test_sarif.py."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gatecheck.cli import cli
from tests.conftest import FIXTURES, corpus_package

LEVELS = {"none", "note", "warning", "error"}
# Upload limits GitHub documents for one SARIF file.
MAX_GZIP_BYTES = 10 * 1024 * 1024
MAX_RUNS = 20
MAX_RESULTS = 25_000
MAX_RULES = 25_000
MAX_TAGS = 20
MAX_THREAD_FLOW_LOCATIONS = 10_000
MAX_LOCATIONS = 1_000


def github_problems(log: dict[str, Any]) -> list[str]:
    """What GitHub would refuse, ignore or mis-place in this log."""
    problems: list[str] = []
    size = len(gzip.compress(json.dumps(log).encode("utf-8")))
    if size > MAX_GZIP_BYTES:
        problems.append(f"{size} bytes gzipped")
    if log.get("version") != "2.1.0":
        problems.append("version is not 2.1.0")
    runs = log.get("runs", [])
    if not 1 <= len(runs) <= MAX_RUNS:
        problems.append(f"{len(runs)} runs")
    for run in runs:
        driver = run["tool"]["driver"]
        if not driver.get("name"):
            problems.append("tool.driver.name missing")
        if not str(driver.get("informationUri", "")).startswith("https://"):
            problems.append("tool.driver.informationUri missing")
        rules = driver.get("rules", [])
        if len(rules) > MAX_RULES:
            problems.append(f"{len(rules)} rules")
        ids = [rule["id"] for rule in rules]
        for rule in rules:
            for key in ("shortDescription", "fullDescription", "help"):
                if not rule.get(key, {}).get("text"):
                    problems.append(f"rule {rule['id']}: {key}.text missing")
            if not rule.get("help", {}).get("markdown"):
                problems.append(f"rule {rule['id']}: help.markdown missing")
            if not str(rule.get("helpUri", "")).startswith("https://"):
                problems.append(f"rule {rule['id']}: helpUri missing")
            if rule.get("defaultConfiguration", {}).get("level") not in LEVELS:
                problems.append(f"rule {rule['id']}: level")
            tags = rule.get("properties", {}).get("tags", [])
            if len(tags) > MAX_TAGS:
                problems.append(f"rule {rule['id']}: {len(tags)} tags")
            severity = rule.get("properties", {}).get("security-severity")
            if severity is not None and not 0.0 <= float(severity) <= 10.0:
                problems.append(f"rule {rule['id']}: security-severity {severity}")
        results = run.get("results", [])
        if len(results) > MAX_RESULTS:
            problems.append(f"{len(results)} results")
        for number, result in enumerate(results):
            where = f"result {number}"
            if result.get("ruleId") not in ids:
                problems.append(f"{where}: ruleId not among the rules")
            elif "ruleIndex" in result and ids[result["ruleIndex"]] != result["ruleId"]:
                problems.append(f"{where}: ruleIndex points at another rule")
            if not result.get("message", {}).get("text"):
                problems.append(f"{where}: message.text missing")
            if result.get("level", "warning") not in LEVELS:
                problems.append(f"{where}: level")
            locations = result.get("locations", [])
            if not 1 <= len(locations) <= MAX_LOCATIONS:
                problems.append(f"{where}: {len(locations)} locations")
            for location in locations:
                physical = location.get("physicalLocation", {})
                uri = physical.get("artifactLocation", {}).get("uri", "")
                if not uri or uri.startswith("/") or "\\" in uri:
                    problems.append(f"{where}: uri {uri!r} is not repository-relative")
                region = physical.get("region", {})
                if region.get("startLine", 0) < 1:
                    problems.append(f"{where}: region.startLine")
            line_hash = result.get("partialFingerprints", {}).get("primaryLocationLineHash")
            if not line_hash:
                problems.append(f"{where}: partialFingerprints.primaryLocationLineHash missing")
            for flow in result.get("codeFlows", []):
                for thread in flow["threadFlows"]:
                    if len(thread["locations"]) > MAX_THREAD_FLOW_LOCATIONS:
                        problems.append(f"{where}: thread flow too long")
    return problems


def sarif_of(root: Path, *args: str) -> dict[str, Any]:
    result = CliRunner().invoke(cli, ["check", ".", "--format", "sarif", *args])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.output)


def test_seed_sarif_meets_githubs_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "seed"
    shutil.copytree(FIXTURES / "seed_alias", root)
    monkeypatch.chdir(root)
    log = sarif_of(root)
    assert github_problems(log) == []
    results = log["runs"][0]["results"]
    assert len(results) == 2
    hashes = [r["partialFingerprints"]["primaryLocationLineHash"] for r in results]
    assert len(set(hashes)) == 2 and all(h.endswith(":1") for h in hashes)


def test_checker_catches_what_github_refuses() -> None:
    """The checker itself: a log missing what GitHub needs is reported, item by item."""
    log = {
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "x", "rules": [{"id": "R1"}]}},
                "results": [
                    {
                        "ruleId": "R2",
                        "message": {"text": ""},
                        "locations": [
                            {"physicalLocation": {"artifactLocation": {"uri": "/abs.py"}}}
                        ],
                    }
                ],
            }
        ],
    }
    problems = github_problems(log)
    for expected in (
        "tool.driver.informationUri missing",
        "rule R1: helpUri missing",
        "result 0: ruleId not among the rules",
        "result 0: message.text missing",
        "result 0: uri '/abs.py' is not repository-relative",
        "result 0: partialFingerprints.primaryLocationLineHash missing",
    ):
        assert expected in problems


@pytest.mark.corpus
def test_sglang_059_sarif_meets_githubs_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    root = corpus_package("sglang==0.5.9")
    monkeypatch.chdir(root)
    log = sarif_of(root)
    assert github_problems(log) == []
    assert len(log["runs"][0]["results"]) == 2
