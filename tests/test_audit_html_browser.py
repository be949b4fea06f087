"""The audit's HTML page in a real headless browser: the table renders, and the filter
the URL hash asks for (`#class=likely-gap`, `#q=text`) hides the other rows."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from gatecheck.audit import run_audit
from gatecheck.config.loader import load_ruleset
from gatecheck.reporting.audit_html import render_audit_html
from tests.conftest import FIXTURES

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
ROW = re.compile(r"<tr class=\"[^\"]*\" data-class=\"(?P<klass>[^\"]+)\"(?P<hidden> hidden=\"\")?")


def browser() -> str:
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("no headless browser: `apt-get install -y chromium` (.ci/run tries it)")


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    report = run_audit([FIXTURES / "seed_alias"], load_ruleset(None), "sm120")
    target = tmp_path_factory.mktemp("html") / "audit.html"
    target.write_text(render_audit_html(report, FIXTURES / "seed_alias"), encoding="utf-8")
    return target


def dump_dom(page: Path, fragment: str, profile: Path) -> str:
    # The flags chromium needs as root in a container, without touching the network.
    command = [
        browser(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={profile}",
        "--dump-dom",
        page.as_uri() + fragment,
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=180)
    if "<table" not in result.stdout:
        pytest.skip(f"the browser did not render the page: {result.stderr.strip()[-300:]}")
    return result.stdout


def visible(dom: str) -> list[str]:
    return [m["klass"] for m in ROW.finditer(dom) if not m["hidden"]]


@pytest.mark.parametrize(
    ("fragment", "expected"),
    [
        pytest.param("", ["likely-gap", "likely-gap", "admits"], id="all-rows"),
        pytest.param("#class=likely-gap", ["likely-gap", "likely-gap"], id="class-filter"),
        pytest.param("#filter=admits", ["admits"], id="filter-alias"),
        pytest.param("#q=communicator", ["likely-gap"], id="text-filter"),
        pytest.param("#class=admits&q=communicator", [], id="both-filters"),
    ],
)
def test_filters_from_the_url(
    page: Path, tmp_path: Path, fragment: str, expected: list[str]
) -> None:
    dom = dump_dom(page, fragment, tmp_path / "profile")
    assert visible(dom) == expected
    assert f'<span id="shown">{len(expected)}</span>' in dom


@pytest.mark.parametrize(
    ("fragment", "first"),
    [
        pytest.param("#sort=gate", "communicator.py:21", id="ascending"),
        pytest.param("#sort=-gate", "server_args.py:33", id="descending"),
    ],
)
def test_sort_by_a_column(page: Path, tmp_path: Path, fragment: str, first: str) -> None:
    # What a click on the header does, asked for from the URL so a test can see it.
    dom = dump_dom(page, fragment, tmp_path / "profile")
    places = re.findall(r"<code>(sglang/[^<]+)</code>", dom)
    assert places[0].endswith(first)
