#include "src/report/html_assets.h"

namespace llmpo::report {
namespace {

constexpr std::string_view kStyle = R"CSS(
body { font: 14px/1.4 "Liberation Sans", Arial, sans-serif; margin: 0; color: #1d2330; background: #fafbfc; }
header { background: #1d2330; color: #fff; padding: 12px 24px; }
header h1 { margin: 0 0 4px; font-size: 20px; overflow-wrap: anywhere; }
header a { color: #bcd3ff; margin-right: 12px; }
main { padding: 0 24px 40px; max-width: 1400px; }
section { margin-top: 28px; }
h2 { border-bottom: 2px solid #d9dee7; padding-bottom: 4px; }
.tiles { display: flex; flex-wrap: wrap; gap: 12px; }
.tile { background: #fff; border: 1px solid #d9dee7; border-radius: 6px; padding: 10px 14px; min-width: 160px; max-width: 320px; }
.tile .value { font-size: 22px; font-weight: bold; }
.tile .label { color: #5a6478; font-size: 12px; overflow-wrap: anywhere; }
.absent, .note { color: #5a6478; font-style: italic; }
.absent { background: #f0f2f5; padding: 8px 12px; border-radius: 4px; }
.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 6px; border-radius: 2px; }
table { border-collapse: collapse; background: #fff; }
th, td { border: 1px solid #d9dee7; padding: 3px 8px; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
th { overflow-wrap: normal; }  /* a heading wraps between words, never inside one */
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.data { width: 100%; }
table.data td { max-width: 32em; }
table.data th { cursor: pointer; background: #eef1f6; position: sticky; top: 0; }
table.data th[aria-sort="ascending"]::after { content: " \25B2"; }
table.data th[aria-sort="descending"]::after { content: " \25BC"; }
.scroll { max-height: 600px; overflow: auto; border: 1px solid #d9dee7; }
.filter { margin: 4px 8px 8px 0; padding: 4px 8px; width: 320px; }
.count { color: #5a6478; }
.meter { display: inline-block; height: 10px; background: #5b8ff9; vertical-align: middle; }
svg { background: #fff; border: 1px solid #d9dee7; font-size: 12px; }
svg text { fill: #1d2330; pointer-events: none; }
svg.icicle g.node { cursor: pointer; }
svg.icicle g.node rect { stroke: #fff; stroke-width: 1; }
svg.icicle g.node:hover rect { stroke: #1d2330; }
svg.timeline rect.strip { fill: #f0f2f5; }
svg.timeline rect { fill: #3a6fd8; }
svg.timeline rect.strip { fill: #eef1f6; }
code { overflow-wrap: anywhere; }
)CSS";

// compare.html's additions to kStyle: verdict colours, the charts' bars.
constexpr std::string_view kCompareStyle = R"CSS(
.slower { background: #fde2e1; }
.faster { background: #dff3e4; }
.noise { background: #fff; }
.new { background: #e3ecfd; }
.gone { background: #ececec; }
.unknown { background: #fff8e1; }
.check { background: #fff4d6; border-left: 4px solid #e0a800; padding: 6px 10px; margin: 6px 0; }
.verdict { font-size: 18px; font-weight: bold; padding: 2px 8px; border-radius: 4px; }
.legend span { margin-right: 14px; }
.comparison table.data th, .comparison table.data td:not(:first-child) { overflow-wrap: normal; }
svg rect.base { fill: #8a9bb8; }
svg rect.new { fill: #e8833a; }
svg rect.up { fill: #d9534f; }
svg rect.down { fill: #3c9d5d; }
svg rect.total { fill: #1d2330; }
svg line.zero, svg line.step { stroke: #1d2330; stroke-width: 1; }
svg line.step { stroke-dasharray: 2 2; stroke: #8a93a6; }
)CSS";

// The shared part: reads the embedded data and defines DataTable (sort, filter).
constexpr std::string_view kTableScript = R"JS(
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var SHOWN = 1000;  // rows drawn at once; sorting and filtering work on all of them

  function fmtMs(v) {
    var a = Math.abs(v);
    if (a >= 0.1 || a === 0) return v.toFixed(4);
    return v.toFixed(Math.min(9, 2 - Math.floor(Math.log10(a))));
  }
  function cellText(v, type) {
    if (v === null || v === undefined) return '';
    return type === 'ms' ? fmtMs(v) : String(v);
  }
  function compare(a, b) {
    if (a === b) return 0;
    if (a === null) return 1;
    if (b === null) return -1;
    return a < b ? -1 : 1;
  }

  function DataTable(table, spec) {
    var body = document.createElement('tbody');
    var head = document.createElement('tr');
    var count = document.getElementById(table.id + '-count');
    var order = spec.rows.map(function (r, i) { return i; });
    var haystack = spec.rows.map(function (r) { return r.join('\u0001').toLowerCase(); });
    var filter = '';
    var showAll = false;
    var sortCol = -1, sortDir = 1;

    function render() {
      var visible = order.filter(function (i) { return filter === '' || haystack[i].indexOf(filter) >= 0; });
      var limit = showAll ? visible.length : Math.min(visible.length, SHOWN);
      var frag = document.createDocumentFragment();
      for (var n = 0; n < limit; n++) {
        var row = spec.rows[visible[n]], tr = document.createElement('tr');
        for (var c = 0; c < row.length; c++) {
          var td = document.createElement('td');
          td.textContent = cellText(row[c], spec.columns[c].type);
          if (spec.columns[c].type !== 'text') td.className = 'num';
          tr.appendChild(td);
        }
        frag.appendChild(tr);
      }
      body.replaceChildren(frag);
      if (count) {
        count.textContent = visible.length + ' of ' + spec.rows.length + ' rows' +
          (limit < visible.length ? ', first ' + limit + ' shown ' : '');
        if (limit < visible.length) {
          var more = document.createElement('button');
          more.textContent = 'show all';
          more.addEventListener('click', function () { showAll = true; render(); });
          count.appendChild(more);
        }
      }
    }
    function sortBy(col) {
      sortDir = sortCol === col ? -sortDir : (spec.columns[col].type === 'text' ? 1 : -1);
      sortCol = col;
      order.sort(function (a, b) {
        return sortDir * compare(spec.rows[a][col], spec.rows[b][col]) || a - b;
      });
      Array.prototype.forEach.call(head.children, function (th, i) {
        if (i === col) th.setAttribute('aria-sort', sortDir > 0 ? 'ascending' : 'descending');
        else th.removeAttribute('aria-sort');
      });
      render();
    }
    spec.columns.forEach(function (c, i) {
      var th = document.createElement('th');
      th.textContent = c.label;
      th.tabIndex = 0;
      th.addEventListener('click', function () { sortBy(i); });
      th.addEventListener('keydown', function (e) { if (e.key === 'Enter') sortBy(i); });
      head.appendChild(th);
    });
    var thead = document.createElement('thead');
    thead.appendChild(head);
    table.appendChild(thead);
    table.appendChild(body);
    if (spec.left_out && spec.left_out.length) {
      var note = document.createElement('p');
      note.className = 'note';
      note.textContent = 'Left out, unknown for every row here: ' + spec.left_out.join(', ') + '.';
      table.parentNode.after(note);
    }
    var input = document.querySelector('input[data-filter-for="' + table.id + '"]');
    if (input) input.addEventListener('input', function () { filter = input.value.toLowerCase(); render(); });
    render();
  }

)JS";

constexpr std::string_view kIcicleScript = R"JS(  function Icicle(svg) {
    var width = 1000;
    var nodes = Array.prototype.map.call(svg.querySelectorAll('g.node'), function (g) {
      return { g: g, x0: +g.getAttribute('data-x0'), x1: +g.getAttribute('data-x1'), d: +g.getAttribute('data-d'),
               label: g.getAttribute('data-label'), rect: g.querySelector('rect'), text: g.querySelector('text') };
    });
    var root = null;
    function fit(label, px) {
      var chars = Math.floor((px - 6) / 7);
      if (chars < 4) return '';
      var cps = Array.from(label);
      return cps.length <= chars ? label : cps.slice(0, chars - 1).join('') + '\u2026';
    }
    function zoom(z) {
      root = z;
      var x0 = z ? z.x0 : 0, span = z ? z.x1 - z.x0 : 1;
      nodes.forEach(function (n) {
        var a = (n.x0 - x0) / span, b = (n.x1 - x0) / span;
        if (b <= 1e-9 || a >= 1 - 1e-9) { n.g.style.display = 'none'; return; }
        a = Math.max(0, a); b = Math.min(1, b);
        n.g.style.display = '';
        n.rect.setAttribute('x', (a * width).toFixed(2));
        n.rect.setAttribute('width', ((b - a) * width).toFixed(2));
        n.text.setAttribute('x', (a * width + 3).toFixed(2));
        n.text.textContent = fit(n.label, (b - a) * width);
      });
      svg.setAttribute('data-zoom', z ? z.label : '');
    }
    svg.addEventListener('click', function (e) {
      var g = e.target.closest('g.node');
      if (!g) return;
      var n = nodes.find(function (m) { return m.g === g; });
      zoom(n === root || (n.d === 0 && n.x1 - n.x0 >= 1 - 1e-9) ? null : n);
    });
    document.addEventListener('keydown', function (e) { if (e.key === 'Escape') zoom(null); });
  }

)JS";

// report.html's tables and icicles, then the page is marked ready.
constexpr std::string_view kReportBoot = R"JS(  document.querySelectorAll('table[data-table]').forEach(function (t) {
    var name = t.getAttribute('data-table');
    var key = { 'kernel-table': 'kernels', 'region-table': 'regions' }[name] || name;
    DataTable(t, data[key]);
  });
  document.querySelectorAll('svg.icicle').forEach(Icicle);
  document.body.setAttribute('data-ready', '1');
})();
)JS";

// compare.html: each table's rows are data.tables[its data-table].
constexpr std::string_view kCompareBoot = R"JS(  document.querySelectorAll('table[data-table]').forEach(function (t) {
    DataTable(t, data.tables[t.getAttribute('data-table')]);
  });
  document.body.setAttribute('data-ready', '1');
})();
)JS";

}  // namespace

std::string_view HtmlStyle() { return kStyle; }
const std::string& HtmlScript() {
  static const std::string script = std::string(kTableScript) + std::string(kIcicleScript) + std::string(kReportBoot);
  return script;
}

const std::string& CompareHtmlScript() {
  static const std::string script = std::string(kTableScript) + std::string(kCompareBoot);
  return script;
}

std::string_view CompareHtmlStyle() { return kCompareStyle; }

}  // namespace llmpo::report
