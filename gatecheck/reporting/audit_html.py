"""The audit as one self-contained HTML page (inline CSS and JS, no network).

Laid out for a 1400 px screen: the controls and the table header stay on top while
scrolling (sticky), and the per-generation matrix sits beside the condition (fixed column
widths; long paths and conditions wrap inside their cells). Rows filter by class, feature
and text, sort by clicking a header, and each row's reasons, assumptions and call sites
open in place. The page reads its view from the URL hash too
(`#class=likely-gap&feature=x&q=fusion&sort=gate`, `sort=-gate` for descending), so a link
can share it. With a source URL template
(`https://github.com/ORG/REPO/blob/SHA/{path}#L{line}`) places link to the code.
"""

from __future__ import annotations

import html
from pathlib import Path
from urllib.parse import quote

from gatecheck.audit import AuditedGate, AuditReport, CallSite
from gatecheck.reporting.audit_text import (
    column_label,
    declaration_note,
    is_declaration,
    polarity_of,
    summary_line,
)
from gatecheck.reporting.paths import display_path
from gatecheck.reporting.plain import printable

_STYLE = """
*{box-sizing:border-box}
body{font:14px system-ui,sans-serif;margin:0;color:#222}
header{position:sticky;top:0;z-index:2;background:#fff;padding:.6em 1.2em;
  border-bottom:1px solid #ccc}
h1{font-size:1.2em;margin:0 0 .3em}
#summary{margin:0 0 .4em;font-size:12px;color:#555}
.controls{display:flex;gap:1em;align-items:center;flex-wrap:wrap}
select{max-width:22em}
main{padding:0 1.2em 2em}
table{border-collapse:separate;border-spacing:0;table-layout:fixed;width:100%}
th,td{border-bottom:1px solid #ddd;padding:3px 5px;vertical-align:top;text-align:left}
thead th{position:sticky;top:var(--header,5.5em);z-index:1;background:#f3f3f3;
  cursor:pointer;user-select:none;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
th[data-dir=asc]::after{content:" \\25B2"}th[data-dir=desc]::after{content:" \\25BC"}
col.index{width:3em}col.feature{width:13em}col.gate{width:17em}col.klass{width:8.5em}
col.gen{width:2.9em}
th.gen{text-align:center;padding:3px 0}th.current{background:#ffe9a8}
td.mark{text-align:center;font-family:monospace;padding:3px 0}
td.yes{background:#e3f6e3}td.no{color:#aaa}
td.feature,td.gate,td.condition{overflow-wrap:anywhere}
code{font-size:12px}
tr.likely-gap td.class{color:#b00;font-weight:bold}
tr.probably-deliberate td.class{color:#a60}
tr.decided td.class{color:#06a}tr.admits td.class{color:#070}
tr.vendor td.class,tr.constant td.class{color:#777}
.polarity{display:block;font-size:11px;color:#666;font-weight:normal}
details{font-size:12px;color:#444;margin-top:.2em}
details ul{margin:.2em 0;padding-left:1.1em}
.assumed{color:#a60}
"""

_SCRIPT = """
(function () {
  var table = document.getElementById('gates');
  var body = table.tBodies[0];
  var heads = table.tHead.rows[0].cells;
  var text = document.getElementById('q');
  var klass = document.getElementById('class');
  var feature = document.getElementById('feature');
  var shown = document.getElementById('shown');
  var header = document.querySelector('header');
  function place() {
    document.documentElement.style.setProperty('--header', header.offsetHeight + 'px');
  }
  function apply() {
    var needle = text.value.toLowerCase(), count = 0;
    Array.prototype.forEach.call(body.rows, function (row) {
      var ok = (!klass.value || row.dataset.class === klass.value) &&
               (!feature.value || row.dataset.feature === feature.value) &&
               (!needle || row.textContent.toLowerCase().indexOf(needle) >= 0);
      row.hidden = !ok;
      if (ok) { count += 1; }
    });
    shown.textContent = String(count);
  }
  function sortBy(index, numeric) {
    var rows = Array.prototype.slice.call(body.rows);
    var th = heads[index];
    var dir = th.dataset.dir === 'asc' ? -1 : 1;
    Array.prototype.forEach.call(heads, function (c) { delete c.dataset.dir; });
    th.dataset.dir = dir === 1 ? 'asc' : 'desc';
    rows.sort(function (a, b) {
      var x = a.cells[index].dataset.sort || a.cells[index].textContent;
      var y = b.cells[index].dataset.sort || b.cells[index].textContent;
      if (numeric) { return dir * (Number(x) - Number(y)); }
      return dir * x.localeCompare(y, undefined, {numeric: true});
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }
  Array.prototype.forEach.call(heads, function (th, index) {
    th.addEventListener('click', function () { sortBy(index, th.dataset.numeric === '1'); });
  });
  function fromHash() {
    var params = new URLSearchParams(location.hash.replace(/^#/, ''));
    klass.value = params.get('class') || params.get('filter') || '';
    feature.value = params.get('feature') || '';
    text.value = params.get('q') || '';
    var sort = params.get('sort');
    Array.prototype.forEach.call(heads, function (th, index) {
      if (sort && th.dataset.key === sort.replace(/^-/, '')) {
        th.dataset.dir = sort.charAt(0) === '-' ? 'asc' : 'desc';
        sortBy(index, th.dataset.numeric === '1');
      }
    });
    apply();
  }
  text.addEventListener('input', apply);
  klass.addEventListener('change', apply);
  feature.addEventListener('change', apply);
  window.addEventListener('hashchange', fromHash);
  window.addEventListener('resize', place);
  place();
  fromHash();
}());
"""


def _esc(text: str) -> str:
    return html.escape(printable(text))


class _Links:
    """Places as links to the code when a source URL template is given, else plain text."""

    def __init__(self, base: Path | None, template: str | None) -> None:
        self.base = base
        self.template = template

    def place(self, path: Path, line: int) -> str:
        shown = display_path(path, self.base)
        label = f"<code>{html.escape(f'{shown}:{line}')}</code>"
        if not self.template:
            return label
        href = self.template.replace("{path}", quote(shown, safe="/")).replace("{line}", str(line))
        return f'<a href="{html.escape(href)}">{label}</a>'


def render_audit_html(
    report: AuditReport, base: Path | None = None, source_url: str | None = None
) -> str:
    """`source_url`: a template with `{path}` (relative to `base`) and `{line}`."""
    links = _Links(base, source_url)
    title = f"gatecheck audit: {report.generation}"
    classes = "".join(
        f'<option value="{c.value}">{html.escape(c.label)} ({n})</option>'
        for c, n in report.counts().items()
    )
    features = "".join(
        f'<option value="{_esc(name)}">{_esc(name)} ({len(gates)})</option>'
        for name, gates in sorted(report.groups(), key=lambda group: group[0])
    )
    cols = ['<col class="index">', '<col class="feature">', '<col class="gate">']
    cols += ['<col class="klass">', '<col class="condition">']
    cols += ['<col class="gen">'] * len(report.columns)
    headers = [
        '<th data-key="#" data-numeric="1">#</th>',
        '<th data-key="feature">feature</th>',
        '<th data-key="gate">gate</th>',
        '<th data-key="class">class</th>',
        '<th data-key="condition">condition</th>',
    ]
    for gen in report.columns:
        current = " current" if gen == report.generation else ""
        headers.append(
            f'<th class="gen{current}" data-key="{html.escape(gen)}" title="{html.escape(gen)}">'
            f"{html.escape(column_label(gen))}</th>"
        )
    rows = [_row(index, gate, report, links) for index, gate in enumerate(report.gates, 1)]
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>",
            f"<header><h1>{html.escape(title)}</h1>",
            f'<p id="summary">{_esc(summary_line(report))}. ✓: the feature can run there '
            "(for a disabling gate: where its condition can be false).</p>",
            '<div class="controls"><label>filter <input id="q" type="search"></label>',
            f'<label>class <select id="class"><option value="">all</option>{classes}</select>'
            "</label>",
            f'<label>feature <select id="feature"><option value="">all</option>{features}'
            "</select></label>",
            f'<span><span id="shown">{len(rows)}</span> of {len(rows)} gates shown</span>',
            "</div></header><main>",
            f'<table id="gates"><colgroup>{"".join(cols)}</colgroup>',
            f"<thead><tr>{''.join(headers)}</tr></thead><tbody>",
            *rows,
            "</tbody></table></main>",
            f"<script>{_SCRIPT}</script>",
            "</body></html>",
        ]
    )


def _details(gate: AuditedGate, links: _Links) -> str:
    assumed = sorted(gate.found.admission.assumed)
    sites = gate.call_sites
    parts = [f"{len(gate.reasons)} reason{'' if len(gate.reasons) == 1 else 's'}"]
    if assumed:
        parts.append(f"{len(assumed)} assumed")
    if sites:
        parts.append(f"{len(sites)} call site{'' if len(sites) == 1 else 's'}")
    items = [f"<li>{_esc(reason)}</li>" for reason in gate.reasons]
    items += [f'<li class="assumed">assumed: {_esc(a)}</li>' for a in assumed]
    items += [_site(site, links) for site in sites]
    return f"<details><summary>{', '.join(parts)}</summary><ul>{''.join(items)}</ul></details>"


def _site(site: CallSite, links: _Links) -> str:
    return (
        f'<li class="site">via {links.place(site.path, site.line)} in '
        f"<code>{_esc(site.qualname)}</code>: <code>{_esc(site.condition)}</code></li>"
    )


def _kind_note(gate: AuditedGate, report: AuditReport, polarity: str) -> str:
    if is_declaration(gate):  # a kernel declaration: what it is built for, said as such
        note = declaration_note(gate, report.generation)
        return f"kernel declaration ({gate.found.kind.value}): {html.escape(note)}"
    return f"{gate.found.kind.value} gate, {polarity} {gate.found.kind.when}"


def _row(index: int, gate: AuditedGate, report: AuditReport, links: _Links) -> str:
    klass = gate.gate_class.value
    polarity = polarity_of(gate)
    marks = "".join(
        f'<td class="mark yes" title="{html.escape(gen)}">✓</td>'
        if gen in gate.admits
        else f'<td class="mark no" title="{html.escape(gen)}">·</td>'
        for gen in report.columns
    )
    place = f"{display_path(gate.path, links.base)}:{gate.start.line:09d}"
    return (
        f'<tr class="{klass}" data-class="{klass}" data-feature="{_esc(gate.feature)}">'
        f'<td data-sort="{index}">{index}</td>'
        f'<td class="feature"><code>{_esc(gate.feature)}</code></td>'
        f'<td class="gate" data-sort="{_esc(place)}">'
        f"{links.place(gate.path, gate.start.line)}</td>"
        f'<td class="class" data-sort="{gate.gate_class.rank}">{html.escape(gate.gate_class.label)}'
        f'<span class="polarity">{_kind_note(gate, report, polarity)}</span></td>'
        f'<td class="condition"><code>{_esc(gate.condition)}</code>{_details(gate, links)}</td>'
        f"{marks}</tr>"
    )
