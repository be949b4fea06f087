"""The audit as one self-contained HTML page (inline CSS and JS, no network): the matrix,
sortable by clicking a header and filtered by a text box and a class menu. The page reads
its view from the URL hash too (`#class=likely-gap&q=fusion&sort=gate`, `sort=-gate` for
descending), so a link can share it."""

from __future__ import annotations

import html
from pathlib import Path

from gatecheck.audit import AuditedGate, AuditReport
from gatecheck.reporting.audit_text import summary_line
from gatecheck.reporting.paths import display_path

_STYLE = """
body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.3em}
table{border-collapse:collapse;margin-top:.8em}
th,td{border:1px solid #ccc;padding:3px 6px;vertical-align:top}
th{background:#f3f3f3;cursor:pointer;user-select:none;white-space:nowrap}
th.gen{text-align:center}th.current{background:#ffe9a8}
td.mark{text-align:center;font-family:monospace}
td.yes{background:#e3f6e3}td.no{color:#aaa}
code{font-size:12px}
tr.likely-gap td.class{color:#b00;font-weight:bold}
tr.probably-deliberate td.class{color:#a60}
tr.decided td.class{color:#06a}tr.admits td.class{color:#070}
.controls{display:flex;gap:1em;align-items:center}
ul.reasons{margin:0;padding-left:1.1em;font-size:12px;color:#555}
"""

_SCRIPT = """
(function () {
  var table = document.getElementById('gates');
  var body = table.tBodies[0];
  var text = document.getElementById('q');
  var klass = document.getElementById('class');
  var shown = document.getElementById('shown');
  function apply() {
    var needle = text.value.toLowerCase(), wanted = klass.value, count = 0;
    Array.prototype.forEach.call(body.rows, function (row) {
      var ok = (!wanted || row.dataset.class === wanted) &&
               (!needle || row.textContent.toLowerCase().indexOf(needle) >= 0);
      row.hidden = !ok;
      if (ok) { count += 1; }
    });
    shown.textContent = String(count);
  }
  function sortBy(index, numeric) {
    var rows = Array.prototype.slice.call(body.rows);
    var th = table.tHead.rows[0].cells[index];
    var dir = th.dataset.dir === 'asc' ? -1 : 1;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) { delete c.dataset.dir; });
    th.dataset.dir = dir === 1 ? 'asc' : 'desc';
    rows.sort(function (a, b) {
      var x = a.cells[index].dataset.sort || a.cells[index].textContent;
      var y = b.cells[index].dataset.sort || b.cells[index].textContent;
      if (numeric) { return dir * (Number(x) - Number(y)); }
      return dir * x.localeCompare(y);
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, index) {
    th.addEventListener('click', function () { sortBy(index, th.dataset.numeric === '1'); });
  });
  function fromHash() {
    var params = new URLSearchParams(location.hash.replace(/^#/, ''));
    klass.value = params.get('class') || params.get('filter') || '';
    text.value = params.get('q') || '';
    var sort = params.get('sort');
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, index) {
      if (sort && th.textContent === sort.replace(/^-/, '')) {
        th.dataset.dir = sort.charAt(0) === '-' ? 'asc' : 'desc';
        sortBy(index, th.dataset.numeric === '1');
      }
    });
    apply();
  }
  text.addEventListener('input', apply);
  klass.addEventListener('change', apply);
  window.addEventListener('hashchange', fromHash);
  fromHash();
}());
"""


def render_audit_html(report: AuditReport, base: Path | None = None) -> str:
    esc = html.escape
    title = f"gatecheck audit: {report.generation}"
    options = "".join(
        f'<option value="{c.value}">{esc(c.label)} ({n})</option>'
        for c, n in report.counts().items()
    )
    headers = ['<th data-numeric="1">#</th>', "<th>feature</th>", "<th>gate</th>"]
    headers += ["<th>class</th>", "<th>condition</th>"]
    for gen in report.columns:
        current = " current" if gen == report.generation else ""
        headers.append(f'<th class="gen{current}">{esc(gen)}</th>')
    rows = [_row(index, gate, report, base) for index, gate in enumerate(report.gates, 1)]
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            f"<title>{esc(title)}</title><style>{_STYLE}</style></head><body>",
            f"<h1>{esc(title)}</h1>",
            f'<p id="summary">{esc(summary_line(report))}</p>',
            '<div class="controls"><label>filter <input id="q" type="search"></label>',
            f'<label>class <select id="class"><option value="">all</option>{options}</select>',
            f'</label><span><span id="shown">{len(rows)}</span> of {len(rows)} gates shown',
            "</span></div>",
            f'<table id="gates"><thead><tr>{"".join(headers)}</tr></thead><tbody>',
            *rows,
            "</tbody></table>",
            f"<script>{_SCRIPT}</script>",
            "</body></html>",
        ]
    )


def _row(index: int, gate: AuditedGate, report: AuditReport, base: Path | None) -> str:
    esc = html.escape
    klass = gate.gate_class.value
    place = f"{display_path(gate.path, base)}:{gate.start.line}"
    reasons = "".join(f"<li>{esc(r)}</li>" for r in gate.reasons)
    marks = "".join(
        '<td class="mark yes">✓</td>' if gen in gate.admits else '<td class="mark no">·</td>'
        for gen in report.columns
    )
    return (
        f'<tr class="{klass}" data-class="{klass}">'
        f'<td data-sort="{index}">{index}</td>'
        f"<td><code>{esc(gate.feature)}</code></td>"
        f"<td><code>{esc(place)}</code></td>"
        f'<td class="class" data-sort="{gate.gate_class.rank}">{esc(gate.gate_class.label)}'
        f'<ul class="reasons">{reasons}</ul></td>'
        f"<td><code>{esc(gate.condition)}</code></td>"
        f"{marks}</tr>"
    )
