// sweep.html: the sweep report as one self-contained page (docs/sweeps.md):
// the points table, then per quantity a line chart against each swept key
// (one line per combination of the other keys) and, for a two-key sweep, a
// heatmap. Inline SVG only: no script, nothing loaded.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "src/report/html_assets.h"
#include "src/report/html_text.h"
#include "src/report/sweep_model.h"

namespace llmpo::report {
namespace {

constexpr double kW = 560, kH = 260, kLeft = 70, kRight = 20, kTop = 20, kBottom = 40;
const char* const kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};

std::string Num(double v) { return fmt::format("{:.4g}", v); }

// The distinct values of key k in point order, and where each sits on the x axis.
struct Axis {
  std::vector<std::string> values;
  std::vector<double> pos;  // numbers when every value is one, else 0, 1, 2, ...
};
Axis KeyAxis(const SweepReport& r, std::size_t k) {
  Axis a;
  for (const auto& p : r.points) {
    if (std::find(a.values.begin(), a.values.end(), p.in.values[k]) == a.values.end()) a.values.push_back(p.in.values[k]);
  }
  bool numeric = true;
  for (const auto& v : a.values) numeric = numeric && SweepNumber(v).has_value();
  for (std::size_t i = 0; i < a.values.size(); ++i) {
    a.pos.push_back(numeric ? *SweepNumber(a.values[i]) : static_cast<double>(i));
  }
  return a;
}

std::string SeriesName(const SweepReport& r, const SweepPoint& p, std::size_t k) {
  std::vector<std::string> parts;
  for (std::size_t j = 0; j < r.keys.size(); ++j) {
    if (j != k) parts.push_back(r.keys[j] + "=" + p.in.values[j]);
  }
  return parts.empty() ? "all points" : fmt::format("{}", fmt::join(parts, ", "));
}

struct Mark {
  double x, y;
  std::size_t num;
};

std::string LineChart(const SweepReport& r, const SweepQuantity& q, std::size_t k) {
  const Axis axis = KeyAxis(r, k);
  std::map<std::string, std::vector<Mark>> series;
  std::vector<std::string> order;
  for (const auto& p : r.points) {
    const auto v = SweepValue(p, q.id);
    if (!v) continue;
    const std::string name = SeriesName(r, p, k);
    if (!series.count(name)) order.push_back(name);
    const auto at = std::find(axis.values.begin(), axis.values.end(), p.in.values[k]) - axis.values.begin();
    series[name].push_back({axis.pos[at], *v, p.in.num});
  }
  if (order.empty()) return "";
  double x0 = *std::min_element(axis.pos.begin(), axis.pos.end()), x1 = *std::max_element(axis.pos.begin(), axis.pos.end());
  double y1 = 0;
  for (const auto& [n, marks] : series) {
    for (const auto& m : marks) y1 = std::max(y1, m.y);
  }
  if (x1 == x0) x1 = x0 + 1;
  if (y1 <= 0) y1 = 1;
  auto X = [&](double x) { return kLeft + (x - x0) / (x1 - x0) * (kW - kLeft - kRight); };
  auto Y = [&](double y) { return kH - kBottom - y / y1 * (kH - kTop - kBottom); };
  std::string svg = fmt::format(
      "<svg class=\"sweep-line\" data-chart=\"sweep-line\" data-quantity=\"{}\" data-key=\"{}\" viewBox=\"0 0 {} {}\" "
      "width=\"{}\" role=\"img\" aria-label=\"{}\">\n",
      HtmlText(q.id), HtmlText(r.keys[k]), kW, kH, kW, HtmlText(fmt::format("{} against {}", q.label, r.keys[k])));
  svg += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#888\"/>", kLeft, Y(0), kW - kRight, Y(0));
  svg += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#888\"/>\n", kLeft, kTop, kLeft, Y(0));
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", kLeft - 4, kTop + 4, Num(y1));
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">0</text>\n", kLeft - 4, Y(0));
  for (std::size_t i = 0; i < axis.values.size(); ++i) {
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", X(axis.pos[i]), kH - kBottom + 16,
                       HtmlText(axis.values[i]));
  }
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", (kLeft + kW) / 2, kH - 4,
                     HtmlText(r.keys[k]));
  for (std::size_t s = 0; s < order.size(); ++s) {
    auto marks = series[order[s]];
    std::sort(marks.begin(), marks.end(), [](const Mark& a, const Mark& b) { return a.x < b.x; });
    const char* colour = kColours[s % std::size(kColours)];
    std::string path;
    for (const auto& m : marks) path += fmt::format("{}{:.1f},{:.1f} ", path.empty() ? "" : "", X(m.x), Y(m.y));
    svg += fmt::format("<g class=\"series\"><title>{}</title><polyline fill=\"none\" stroke=\"{}\" points=\"{}\"/>",
                       HtmlText(order[s]), colour, path);
    for (const auto& m : marks) {
      svg += fmt::format("<circle class=\"mark\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\" data-value=\"{}\">"
                         "<title>point {}: {} {}</title></circle>",
                         X(m.x), Y(m.y), colour, m.y, m.num, Num(m.y), HtmlText(q.unit));
    }
    svg += "</g>\n";
  }
  return svg + "</svg>\n";
}

std::string Heatmap(const SweepReport& r, const SweepQuantity& q) {
  const Axis ax = KeyAxis(r, 0), ay = KeyAxis(r, 1);
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& p : r.points) {
    if (auto v = SweepValue(p, q.id)) lo = std::min(lo, *v), hi = std::max(hi, *v);
  }
  if (!(lo <= hi)) return "";
  const double cw = (kW - kLeft - kRight) / ax.values.size(), ch = (kH - kTop - kBottom) / ay.values.size();
  std::string svg = fmt::format(
      "<svg class=\"sweep-heatmap\" data-chart=\"sweep-heatmap\" data-quantity=\"{}\" viewBox=\"0 0 {} {}\" width=\"{}\" "
      "role=\"img\" aria-label=\"{}\">\n",
      HtmlText(q.id), kW, kH, kW, HtmlText(fmt::format("{} over {} and {}", q.label, r.keys[0], r.keys[1])));
  for (const auto& p : r.points) {
    const auto v = SweepValue(p, q.id);
    const auto ix = std::find(ax.values.begin(), ax.values.end(), p.in.values[0]) - ax.values.begin();
    const auto iy = std::find(ay.values.begin(), ay.values.end(), p.in.values[1]) - ay.values.begin();
    const double t = v && hi > lo ? (*v - lo) / (hi - lo) : 0.5;
    const std::string fill = v ? fmt::format("hsl(210,70%,{:.0f}%)", 92 - 55 * t) : "#eee";
    svg += fmt::format("<g class=\"cell\"><title>point {}: {}</title><rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
                       "height=\"{:.1f}\" fill=\"{}\"/><text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text></g>\n",
                       p.in.num, v ? Num(*v) + " " + HtmlText(q.unit) : "null", kLeft + ix * cw, kTop + iy * ch, cw, ch,
                       fill, kLeft + (ix + 0.5) * cw, kTop + (iy + 0.5) * ch + 4, v ? Num(*v) : "null");
  }
  for (std::size_t i = 0; i < ax.values.size(); ++i) {
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>", kLeft + (i + 0.5) * cw,
                       kH - kBottom + 16, HtmlText(ax.values[i]));
  }
  for (std::size_t i = 0; i < ay.values.size(); ++i) {
    svg += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>", kLeft - 4, kTop + (i + 0.5) * ch + 4,
                       HtmlText(ay.values[i]));
  }
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{} (rows: {})</text>\n", (kLeft + kW) / 2, kH - 4,
                     HtmlText(r.keys[0]), HtmlText(r.keys[1]));
  return svg + "</svg>\n";
}

std::string Table(const SweepReport& r) {
  std::string h = "<table id=\"sweep-table\" data-table=\"sweep\"><thead><tr><th>point</th>";
  for (const auto& k : r.keys) h += fmt::format("<th>{}</th>", HtmlText(k));
  h += "<th>status</th>";
  const auto shown = ShownQuantities(r);
  for (const auto* q : shown) h += fmt::format("<th>{} ({})</th>", HtmlText(q->label), HtmlText(q->unit));
  h += "<th>top kernel (bound)</th><th>vs baseline</th></tr></thead><tbody>\n";
  for (std::size_t i = 0; i < r.points.size(); ++i) {
    const SweepPoint& p = r.points[i];
    h += fmt::format("<tr{}><td>{}{}</td>", p.pareto ? " class=\"pareto\"" : "", p.in.num, p.pareto ? " *" : "");
    for (const auto& v : p.in.values) h += fmt::format("<td>{}</td>", HtmlText(v));
    h += fmt::format("<td>{}</td>", HtmlText(p.in.reason.empty() ? p.in.status : p.in.status + ": " + p.in.reason));
    for (const auto* q : shown) {
      const auto v = SweepValue(p, q->id);
      h += fmt::format("<td class=\"num\">{}</td>", v ? Num(*v) : "null");
    }
    h += fmt::format("<td>{}</td>", p.top_kernel.empty() ? "n/a" : HtmlText(p.top_kernel + " (" + p.top_kernel_bound + ")"));
    std::string vs = r.base == i ? "baseline" : "n/a";
    if (p.vs_base && p.vs_base->test.change_pct) {
      vs = fmt::format("{:+.1f} % ({})", *p.vs_base->test.change_pct, analysis::ToString(p.vs_base->test.verdict));
    }
    h += fmt::format("<td>{}</td></tr>\n", HtmlText(vs));
  }
  return h + "</tbody></table>\n";
}

}  // namespace

std::string SweepHtml(const SweepReport& r) {
  std::string page = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
      "<title>Sweep: {} -m</title>\n<style>{}\ntable{{border-collapse:collapse}}td,th{{border:1px solid #ccc;"
      "padding:2px 6px}}td.num{{text-align:right}}tr.pareto{{font-weight:bold}}svg text{{font-size:11px}}</style>\n"
      "</head><body>\n<h1>Sweep: {} -m over {}</h1>\n",
      HtmlText(r.command), HtmlStyle(), HtmlText(r.command), HtmlText(fmt::format("{}", fmt::join(r.keys, ", "))));
  page += "<p>Times in ms; null: unknown. Bold rows (*) are on the Pareto front";
  page += r.pareto.empty() ? " (none chosen).</p>\n" : fmt::format(" of {} and {}.</p>\n", HtmlText(r.pareto[0]), HtmlText(r.pareto[1]));
  page += Table(r);
  page += "<h2>Bottleneck</h2>\n<ul>\n";
  if (r.bottleneck_changes.empty()) page += "<li>The kernel with the most GPU time and its bound class stay the same.</li>\n";
  for (const auto& b : r.bottleneck_changes) page += fmt::format("<li>{}</li>\n", HtmlText(b));
  page += "</ul>\n<h2>Charts</h2>\n";
  for (const auto& q : r.quantities) {
    std::string charts;
    for (std::size_t k = 0; k < r.keys.size(); ++k) charts += LineChart(r, q, k);
    if (r.keys.size() == 2) charts += Heatmap(r, q);
    if (!charts.empty()) page += fmt::format("<h3>{} ({})</h3>\n{}", HtmlText(q.label), HtmlText(q.unit), charts);
  }
  if (!r.notes.empty()) {
    page += "<h2>Notes</h2>\n<ul>\n";
    for (const auto& n : r.notes) page += fmt::format("<li>{}</li>\n", HtmlText(n));
    page += "</ul>\n";
  }
  return page + "</body></html>\n";
}

}  // namespace llmpo::report
