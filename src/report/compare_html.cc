// compare.html: the compare report as one self-contained page (docs/compare.md),
// rendered from the CompareReport only: per comparison the total change and
// its verdict first, the guardrails, the charts, the region table coloured by
// verdict and the kernel table (report.html's table script: sort, filter).
#include <fmt/format.h>

#include <cmath>

#include "src/report/compare_charts.h"
#include "src/report/compare_model.h"
#include "src/report/compare_text.h"
#include "src/report/html_assets.h"
#include "src/report/html_text.h"
#include "src/report/text_format.h"

namespace llmpo::report {
namespace {

using nlohmann::ordered_json;

ordered_json Ms(const std::optional<double>& ns) { return ns ? ordered_json(*ns / 1e6) : ordered_json(nullptr); }

ordered_json Column(std::string_view label, std::string_view type) {
  return ordered_json{{"label", label}, {"type", type}};
}

// The colour class of a verdict: slower, faster, noise; without a test the
// match (new, gone), else unknown.
std::string VerdictClass(const std::optional<analysis::ChangeTest>& t, const std::string& match) {
  if (t) {
    switch (t->verdict) {
      case analysis::Verdict::kSlower:
        return "slower";
      case analysis::Verdict::kFaster:
        return "faster";
      default:
        return "noise";
    }
  }
  return match == "new" || match == "gone" ? match : "unknown";
}

// " (p = 0.38)", " (p < 1e-15)", or nothing without a p-value (as compare.md).
std::string PClause(const analysis::ChangeTest& t) {
  if (!t.p_value) return "";
  const std::string p = PText(t);
  return HtmlText(fmt::format(" (p {}{})", p.starts_with("<") ? "" : "= ", p));
}

std::string TotalSection(const Comparison& c) {
  const auto& t = c.total_test;
  std::string out = fmt::format(
      "<p class=\"total\" data-verdict=\"{}\">Total GPU kernel time: <b>{} ms → {} ms</b> ({} ms, {}): "
      "<span class=\"verdict {}\">{}</span>{}. Launches: {} → {}.</p>\n"
      "<p class=\"note\">Kernel times from <code>{}</code> (base) and <code>{}</code> (new).</p>\n",
      analysis::ToString(t.verdict), MsText(c.base_kernel_ns), MsText(c.new_kernel_ns), SignedMs(c.delta_ns),
      PctText(t.change_pct), VerdictClass(t, ""), HtmlText(VerdictText(t)), PClause(t), c.base_launches, c.new_launches,
      HtmlText(c.base_times_from), HtmlText(c.new_times_from));
  for (const auto& g : c.guardrails) out += "<p class=\"check\"><b>Check:</b> " + HtmlText(g) + ".</p>\n";
  return out;
}

std::string ChartsSection(const Comparison& c, std::size_t top) {
  std::string out = "<h3>Where the change comes from</h3>\n";
  if (c.attribution.empty()) {
    out += "<div data-chart=\"waterfall\"><p class=\"absent\">No kernel's GPU time changed.</p></div>\n";
  } else {
    out +=
        "<p class=\"note\">Each bar is one row of the attribution, stepping from the running sum (red: slower, "
        "green: faster); the rows add up to the total change, the last bar.</p>\n" +
        WaterfallSvg(c);
  }
  out += "<h3>Base and new GPU kernel time</h3>\n";
  if (c.kernels.empty()) return out + "<div data-chart=\"kernel-bars\"><p class=\"absent\">No kernels.</p></div>\n";
  out += fmt::format("<p class=\"note\">The {} kernels whose time changed most, largest change first.</p>\n",
                     std::min(top, c.kernels.size()));
  return out + CompareBarsSvg(c, top);
}

std::string ContributorsHtml(const RegionDelta& r) {
  std::string text;
  for (const auto& row : r.contributors) {
    if (!text.empty()) text += ", ";
    text += fmt::format("<span title=\"{}\">{}</span> {} ms", HtmlText(row.what), HtmlShort(row.what, 40),
                        SignedMs(row.delta_ns));
  }
  return text;
}

std::string RegionsSection(const Comparison& c, std::size_t top) {
  if (c.regions.empty()) return "";
  std::string out =
      "<h3>Regions</h3>\n<p class=\"note\">GPU kernel time per NVTX region (inclusive), matched by path. <span "
      "class=\"legend\"><span class=\"slower\">slower</span> <span class=\"faster\">faster</span> <span "
      "class=\"noise\">within noise</span> <span class=\"new\">new</span> <span class=\"gone\">gone</span> <span "
      "class=\"unknown\">not known</span></span></p>\n<table class=\"plain regions\"><thead><tr><th>Region</th>"
      "<th>Match</th><th>Base (ms)</th><th>New (ms)</th><th>Change (ms)</th><th>Change</th><th>Verdict</th>"
      "<th>Largest kernel changes</th></tr></thead><tbody>\n";
  for (std::size_t i = 0; i < c.regions.size() && i < top; ++i) {
    const auto& r = c.regions[i];
    out += fmt::format(
        "<tr class=\"{}\"><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td></tr>\n",
        VerdictClass(r.test, r.match), HtmlText(r.path), HtmlText(r.match), MsText(r.base_ns), MsText(r.new_ns),
        r.delta_ns ? SignedMs(*r.delta_ns) : "n/a", r.test ? PctText(r.test->change_pct) : "n/a",
        HtmlText(r.test ? VerdictText(*r.test) : r.match), ContributorsHtml(r));
  }
  out += "</tbody></table>\n";
  if (c.regions.size() > top) {
    out += fmt::format("<p class=\"note\">{} more region(s) in compare.json.</p>\n", c.regions.size() - top);
  }
  return out;
}

std::optional<double> Rounded(const std::optional<double>& v) {
  if (!v) return std::nullopt;
  return std::round(*v * 10) / 10;
}

// Every kernel, in the model's order; the page sorts and filters on request.
ordered_json KernelTable(const Comparison& c) {
  ordered_json rows = ordered_json::array();
  for (const auto& k : c.kernels) {
    const auto pct = k.mean_test ? Rounded(k.mean_test->change_pct) : std::nullopt;
    rows.push_back(ordered_json::array(
        {k.name, k.match, Ms(k.base_ns), Ms(k.new_ns), k.delta_ns / 1e6, k.base_calls, k.new_calls, Ms(k.base_mean_ns),
         Ms(k.new_mean_ns), pct ? ordered_json(*pct) : ordered_json(nullptr),
         k.mean_test ? VerdictText(*k.mean_test) : k.match, k.mean_test ? PText(*k.mean_test) : "n/a", BoundText(k)}));
  }
  return ordered_json{
      {"columns",
       {Column("Kernel", "text"), Column("Match", "text"), Column("Base (ms)", "ms"), Column("New (ms)", "ms"),
        Column("Change (ms)", "ms"), Column("Base calls", "int"), Column("New calls", "int"),
        Column("Base mean (ms)", "ms"), Column("New mean (ms)", "ms"), Column("Mean change (%)", "num"),
        Column("Verdict", "text"), Column("p", "text"), Column("Bound", "text")}},
      {"rows", std::move(rows)}};
}

std::string KernelTableSection(const std::string& id) {
  return fmt::format(
      "<h3>Kernels</h3>\n<p class=\"note\">Every kernel, largest change first; click a heading to sort.</p>\n"
      "<input type=\"search\" class=\"filter\" data-filter-for=\"{0}-t\" placeholder=\"filter rows\">\n"
      "<span class=\"count\" id=\"{0}-t-count\"></span>\n"
      "<div class=\"scroll\"><table class=\"data\" id=\"{0}-t\" data-table=\"{0}\"></table></div>\n",
      id);
}

std::string ScopesSection(const Comparison& c, std::size_t top) {
  if (c.scopes.empty()) return "";
  std::string out =
      "<h3>Scopes</h3>\n<p class=\"note\">GPU kernel time per scope of the timing input, matched by role: rank, "
      "else device, else process.</p>\n<table class=\"plain scopes\"><thead><tr><th>Scope</th><th>Base (ms)</th>"
      "<th>New (ms)</th><th>Change (ms)</th><th>Change</th><th>Verdict</th></tr></thead><tbody>\n";
  for (std::size_t i = 0; i < c.scopes.size() && i < top; ++i) {
    const auto& s = c.scopes[i];
    const std::string match = s.base_ns ? (s.new_ns ? "" : "gone") : "new";
    out += fmt::format(
        "<tr class=\"{}\"><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td>{}</td></tr>\n",
        VerdictClass(s.test, match), HtmlText(s.scope), MsText(s.base_ns), MsText(s.new_ns), SignedMs(s.delta_ns),
        s.test ? PctText(s.test->change_pct) : "n/a", HtmlText(s.test ? VerdictText(*s.test) : match));
  }
  return out + "</tbody></table>\n";
}

std::string SequenceSummaryRow(const SequenceDelta& d) {
  const bool changed = d.inserted + d.removed + d.slower + d.faster > 0;
  return fmt::format(
      "<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{} → {}</td><td class=\"num\">{} → {}</td>"
      "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
      "<td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
      changed ? (d.delta_instance_ns.value_or(0) > 0 ? "slower" : "faster") : "noise", HtmlText(d.path),
      HtmlText(d.scope), HtmlText(d.signature), d.base_instances, d.new_instances, d.base_length, d.new_length, d.same,
      d.inserted, d.removed, d.slower, d.faster,
      d.delta_instance_ns ? fmt::format("{:+.2f}", *d.delta_instance_ns / 1e3) : "n/a");
}

// The changed positions of every aligned sequence (inserted, removed, or
// aligned and called slower or faster), for the sortable table.
ordered_json SequenceTable(const Comparison& c) {
  constexpr std::size_t kMaxRows = 5000;
  ordered_json rows = ordered_json::array();
  auto us = [](const std::optional<double>& ns) {  // µs to the ns
    return ns ? ordered_json(std::round(*ns) / 1e3) : ordered_json(nullptr);
  };
  auto pos = [](const std::optional<std::size_t>& p) { return p ? ordered_json(*p) : ordered_json(nullptr); };
  for (const auto& d : c.sequences) {
    for (const auto& r : d.rows) {
      const bool changed = r.op != "same" || (r.test && r.test->verdict != analysis::Verdict::kWithinNoise);
      if (!changed || rows.size() == kMaxRows) continue;
      rows.push_back(ordered_json::array({d.path, d.scope, pos(r.base_position), pos(r.new_position), r.name, r.op,
                                          us(r.base_mean_ns), us(r.new_mean_ns), us(r.delta_ns),
                                          r.test ? VerdictText(*r.test) : r.op}));
    }
  }
  return ordered_json{{"columns",
                       {Column("Region", "text"), Column("Scope", "text"), Column("Base position", "int"),
                        Column("New position", "int"), Column("Kernel", "text"), Column("Change", "text"),
                        Column("Base mean (µs)", "num"), Column("New mean (µs)", "num"), Column("Δ (µs)", "num"),
                        Column("Verdict", "text")}},
                      {"rows", std::move(rows)}};
}

std::string SequencesSection(const Comparison& c, std::size_t top, const std::string& id) {
  if (c.sequences.empty()) return "";
  std::string out =
      "<h3>Launch order</h3>\n<p class=\"note\">Each region's kernel launches in order, in one scope, aligned "
      "between the sides by a shortest edit script: a kernel inserted or removed leaves the rest paired. A "
      "position's duration is its mean over the region's instances; per-position tests are Holm-adjusted.</p>\n"
      "<table class=\"plain sequences\"><thead><tr><th>Region</th><th>Scope</th><th>Match on</th><th>Instances</th>"
      "<th>Launches per instance</th><th>Aligned</th><th>New</th><th>Gone</th><th>Slower</th><th>Faster</th>"
      "<th>Change per instance (µs)</th></tr></thead><tbody>\n";
  for (std::size_t i = 0; i < c.sequences.size() && i < top; ++i) out += SequenceSummaryRow(c.sequences[i]);
  out += "</tbody></table>\n";
  return out + fmt::format(
                   "<p class=\"note\">Changed positions (new, gone, slower, faster) of every aligned region.</p>\n"
                   "<input type=\"search\" class=\"filter\" data-filter-for=\"{0}-t\" placeholder=\"filter rows\">\n"
                   "<span class=\"count\" id=\"{0}-t-count\"></span>\n"
                   "<div class=\"scroll\"><table class=\"data\" id=\"{0}-t\" data-table=\"{0}\"></table></div>\n",
                   id);
}

std::string ComparisonSection(const Comparison& c, std::size_t index, std::size_t top, ordered_json& tables) {
  const std::string id = fmt::format("kernels-{}", index);
  tables[id] = KernelTable(c);
  const std::string order_id = fmt::format("order-{}", index);
  if (!c.sequences.empty()) tables[order_id] = SequenceTable(c);
  std::string out =
      fmt::format("<section id=\"c{}\" class=\"comparison\"><h2><code>{}</code> against <code>{}</code></h2>\n", index,
                  HtmlText(c.new_label), HtmlText(c.base_label));
  out += TotalSection(c) + ChartsSection(c, top) + ScopesSection(c, top) + RegionsSection(c, top) +
         KernelTableSection(id) +
         SequencesSection(c, top, order_id);
  if (!c.notes.empty()) {
    out += "<h3>Notes</h3>\n<ul class=\"notes\">\n";
    for (const auto& n : c.notes) out += "<li>" + HtmlText(n) + "</li>\n";
    out += "</ul>\n";
  }
  return out + "</section>\n";
}

std::string Header(const CompareReport& report) {
  std::string out = fmt::format(
      "<header><h1>llm-perf-opt compare</h1>\n<p>Base: <code>{}</code>. A change is slower or faster when it is at "
      "least {} % and significant at p &lt; {} (Welch's t-test on mean launch durations; a z-test on totals); "
      "without noise data on a side, on the threshold alone.</p>\n<nav>",
      HtmlText(report.sides.front()), report.options.significance.min_effect_pct, report.options.significance.alpha);
  for (std::size_t i = 0; i < report.comparisons.size(); ++i) {
    out += fmt::format("<a href=\"#c{}\">{}</a> ", i, HtmlShort(report.comparisons[i].new_label, 60));
  }
  return out + "</nav></header>\n";
}

}  // namespace

std::string CompareHtml(const CompareReport& report) {
  ordered_json tables = ordered_json::object();
  std::string body;
  for (std::size_t i = 0; i < report.comparisons.size(); ++i) {
    body += ComparisonSection(report.comparisons[i], i, report.options.top, tables);
  }
  const ordered_json data{{"tables", std::move(tables)}};
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>llm-perf-opt compare</title>\n<style>\n{}{}</style></head>\n<body>\n",
      kHtmlCsp, HtmlStyle(), CompareHtmlStyle());
  out += Header(report) + "<main>\n" + body + "</main>\n";
  out += "<script type=\"application/json\" id=\"report-data\">" + ScriptJson(data) + "</script>\n";
  out += "<script>\n" + CompareHtmlScript() + "</script>\n</body></html>\n";
  return out;
}

}  // namespace llmpo::report
