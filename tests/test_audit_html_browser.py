"""The audit's HTML page in a real headless browser: the table renders, the filter the URL
hash asks for (`#class=likely-gap`, `#q=text`) hides the other rows, and at 1400x900 the
matrix sits beside the condition under a sticky header (layout boxes, not pixels)."""

from __future__ import annotations

import html
import json
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from gatecheck.audit import run_audit
from gatecheck.config.loader import load_ruleset
from gatecheck.reporting.audit_html import render_audit_html
from tests.conftest import FIXTURES

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
ROW = re.compile(r"<tr (?P<attrs>[^>]*)>")
CLASS = re.compile(r'data-class="([^"]+)"')


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


def run_browser(arguments: list[str], profile: Path) -> subprocess.CompletedProcess[str]:
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
        *arguments,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=180)


def dump_dom(page: Path, fragment: str, profile: Path, *options: str) -> str:
    result = run_browser([*options, "--dump-dom", page.as_uri() + fragment], profile)
    if "<table" not in result.stdout:
        pytest.skip(f"the browser did not render the page: {result.stderr.strip()[-300:]}")
    return result.stdout


def visible(dom: str) -> list[str]:
    rows = [m["attrs"] for m in ROW.finditer(dom) if "data-class=" in m["attrs"]]
    return [CLASS.findall(attrs)[0] for attrs in rows if "hidden" not in attrs]


@pytest.mark.parametrize(
    ("fragment", "expected"),
    [
        pytest.param(
            "",
            ["likely-gap"] * 2 + ["probably-deliberate"] * 2 + ["admits"] * 2 + ["vendor"] * 3,
            id="all-rows",
        ),
        pytest.param("#class=likely-gap", ["likely-gap", "likely-gap"], id="class-filter"),
        pytest.param("#filter=admits", ["admits", "admits"], id="filter-alias"),
        pytest.param("#q=communicator", ["likely-gap", "vendor"], id="text-filter"),
        pytest.param("#class=admits&q=communicator", [], id="both-filters"),
        pytest.param(
            "#feature=flashinfer-allreduce-fusion", ["likely-gap", "likely-gap"], id="feature"
        ),
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
        pytest.param("#sort=gate", "communicator.py:11", id="ascending"),
        pytest.param("#sort=-gate", "utils.py:31", id="descending"),
    ],
)
def test_sort_by_a_column(page: Path, tmp_path: Path, fragment: str, first: str) -> None:
    # What a click on the header does, asked for from the URL so a test can see it.
    dom = dump_dom(page, fragment, tmp_path / "profile")
    places = re.findall(r"<code>(sglang/[^<]+)</code>", dom)
    assert places[0].endswith(first)


# --- layout at 1400x900 (#16.6) ---------------------------------------------------------------

# Appended to a copy of the page by the test only: measures boxes after a scroll and writes
# them where --dump-dom shows them.
MEASURE = """
<script>
(function () {
  function box(el) { var r = el.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; }
  var heads = document.querySelectorAll('#gates thead th');
  var row = document.querySelector('#gates tbody tr');
  var out = {viewport: window.innerWidth, before: {
    condition: box(row.querySelector('td.condition')),
    first_gen: box(document.querySelector('#gates thead th.gen')),
    last_head: box(heads[heads.length - 1]),
    feature: box(heads[1]),
    details: row.querySelectorAll('details').length}};
  window.scrollTo(0, 3000);
  out.scrolled = window.scrollY;
  out.after = {header: box(document.querySelector('header')),
               current: box(document.querySelector('#gates thead th.current'))};
  var pre = document.createElement('pre'); pre.id = 'layout';
  pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
}());
</script>
"""

LONG_GATE = """\
import torch

def {name}(config):
    major, minor = torch.cuda.get_device_capability()
    if (major == 9 or major == 10) and config.enable_{name}_with_a_rather_long_flag_name and config.backend in ("flashinfer", "trtllm", "cutlass"):
        return True
    return False
"""


@pytest.fixture(scope="module")
def long_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("long") / "proj"
    folder = root / "very_long_package_name" / "srt" / "layers" / "quantization" / "kernels"
    folder.mkdir(parents=True)
    for number in range(40):
        name = f"fused_moe_feature_number_{number}"
        (folder / f"{name}_module.py").write_text(LONG_GATE.format(name=name), encoding="utf-8")
    report = run_audit([root], load_ruleset(None), "sm120")
    assert len(report.gates) == 40
    page = render_audit_html(report, root, "https://github.com/o/r/blob/abc/{path}#L{line}")
    target = root.parent / "audit.html"
    target.write_text(page.replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    return target


def test_matrix_beside_the_condition_at_1400px(long_page: Path, tmp_path: Path) -> None:
    dom = dump_dom(long_page, "", tmp_path / "profile", "--window-size=1400,900")
    found = re.search(r'<pre id="layout">(.*?)</pre>', dom)
    assert found, dom[-500:]
    layout = json.loads(html.unescape(found.group(1)))
    assert layout["viewport"] == 1400
    before, after = layout["before"], layout["after"]
    # Every generation's column is on screen, right of the condition, on the same row.
    assert before["last_head"]["right"] <= 1400
    assert before["condition"]["right"] <= before["first_gen"]["left"] + 1
    assert before["condition"]["right"] - before["condition"]["left"] >= 300
    assert before["feature"]["right"] - before["feature"]["left"] <= 250  # not huge
    assert before["details"] == 1
    # Sticky: after scrolling, the controls and the column headers are still in view.
    assert layout["scrolled"] > 500
    assert after["header"]["top"] == 0
    assert 0 < after["current"]["top"] <= after["header"]["bottom"] + 1


def test_screenshot_at_1400x900(long_page: Path, tmp_path: Path) -> None:
    shot = tmp_path / "audit.png"
    run_browser(
        [f"--screenshot={shot}", "--window-size=1400,900", long_page.as_uri()], tmp_path / "p"
    )
    if not shot.is_file():
        pytest.skip("the browser wrote no screenshot")
    data = shot.read_bytes()
    # PNG header: width and height of the image are the window's.
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == (1400, 900)


def test_links_and_expandable_details(long_page: Path) -> None:
    text = long_page.read_text(encoding="utf-8")
    assert 'href="https://github.com/o/r/blob/abc/very_long_package_name/srt/layers/' in text
    assert "#L5" in text
    assert text.count("<details>") == 40 and 'id="feature"' in text
