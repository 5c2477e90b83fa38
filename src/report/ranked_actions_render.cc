// "What to do first" as Markdown and as report.html's fragment; both only
// render RankedActions (src/report/ranked_actions.cc decides).
#include <fmt/format.h>

#include "src/report/html_links.h"
#include "src/report/html_text.h"
#include "src/report/json_writer.h"
#include "src/report/ranked_actions.h"
#include "src/report/text_format.h"

namespace llmpo::report {
namespace {

constexpr std::string_view kOverlap =
    "Every saving is an upper bound, and they overlap (the idle-time rules with each other, a kernel's estimates with "
    "its time), so never add them";

std::string PctCell(const std::optional<double>& v) { return v ? fmt::format("{:.1f}", *v) : "n/a"; }

std::optional<double> Ms(const std::optional<double>& ns) { return ns ? std::optional(*ns / 1e6) : std::nullopt; }

// Without Markdown's code quotes, for the page.
std::string Plain(std::string text) {
  std::erase(text, '`');
  return text;
}

std::string Intro(const RankedActions& r) {
  return fmt::format("Measured time: {}, {} ms. Ranked by the share of it each could save at most. {}.", BaseText(r),
                     MsText(r.base_ns), kOverlap);
}

}  // namespace

void RankedActionsMd(std::string& out, const RankedActions& r) {
  out += "\n## What to do first\n\n";
  if (r.items.empty()) {
    out += fmt::format("No ranked actions: {}.\n",
                       r.why_no_kernel_actions.empty() ? "no timeline rule fired" : r.why_no_kernel_actions);
  } else {
    out += Intro(r) + " (docs/analysis.md \"What to do first\")\n\n";
    out +=
        "| # | What | Kind | Where | Could save (ms) | % of measured | Basis | What to do | Evidence |\n"
        "|---:|---|---|---|---:|---:|---|---|---|\n";
    for (std::size_t i = 0; i < r.items.size(); ++i) {
      const auto& a = r.items[i];
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", a.saving_pct ? std::to_string(i + 1) : "-",
                         MdCell(a.what, 60), a.kind, MdCell(a.where, 60), MsText(a.saving_ns), PctCell(a.saving_pct),
                         MdCell(a.rule.empty() ? a.basis : a.basis + ", rule " + a.rule, 80), MdCell(a.message, 400),
                         MdCell(a.evidence, 400));
    }
    if (!r.why_no_kernel_actions.empty()) out += "\nNo kernel actions: " + OneLine(r.why_no_kernel_actions) + ".\n";
  }
  for (const auto& note : r.notes) out += "\n" + OneLine(note) + ".\n";
}

std::string RankedActionsHtml(const RankedActions& r, const std::vector<std::string>& recommendations) {
  std::string out = "<h3>What to do first</h3>\n";
  if (r.items.empty()) {
    out += "<p class=\"note\">No ranked actions: " +
           HtmlText(r.why_no_kernel_actions.empty() ? "no timeline rule fired" : r.why_no_kernel_actions) +
           ".</p>\n<ol data-chart=\"actions\">\n";
    for (const auto& line : recommendations) out += "<li>" + HtmlText(line) + "</li>\n";
    out += "</ol>\n";
    for (const auto& note : r.notes) out += "<p class=\"note\">" + HtmlText(note) + ".</p>\n";
    return out;
  }
  out += "<p class=\"note\">" + HtmlText(Plain(Intro(r))) + "</p>\n<ol data-chart=\"actions\">\n";
  for (const auto& a : r.items) {
    const std::string saving =
        a.saving_pct ? fmt::format("up to {:.1f} % of the measured time ({} ms)", *a.saving_pct, MsText(a.saving_ns))
                     : fmt::format("up to {} ms, not ranked", MsText(a.saving_ns));
    out += fmt::format(
        "<li data-kind=\"{}\"><b title=\"{}\">{}</b> ({}; {}): {}.<br>{}<br><span class=\"note\">Evidence: "
        "{}</span></li>\n",
        a.kind, HtmlText(a.what), HtmlShort(a.what, 120), HtmlText(a.where),
        HtmlText(a.rule.empty() ? a.basis : a.basis + ", ncu rule " + a.rule), saving, HtmlTextWithLinks(a.message),
        HtmlText(a.evidence));
  }
  out += "</ol>\n";
  if (!r.why_no_kernel_actions.empty())
    out += "<p class=\"note\">No kernel actions: " + HtmlText(r.why_no_kernel_actions) + ".</p>\n";
  for (const auto& note : r.notes) out += "<p class=\"note\">" + HtmlText(note) + ".</p>\n";
  for (const auto& line : recommendations) out += "<p class=\"note\">" + HtmlText(line) + "</p>\n";
  return out;
}

void WriteRankedJson(JsonWriter& w, const RankedActions& r) {
  w.BeginObject();
  w.Member("ranked_by", std::string(ToString(r.base)));
  w.Member("ranked_by_text", Plain(BaseText(r)));
  w.Member("measured_ms", Ms(r.base_ns));
  w.Member("times_from", r.times_from.empty() ? std::nullopt : std::optional(r.times_from));
  w.Key("items");
  w.BeginArray();
  for (const auto& a : r.items) {
    w.BeginObject();
    w.Member("kind", a.kind);
    w.Member("what", a.what);
    w.Member("where", a.where);
    w.Member("basis", a.basis);
    w.Member("rule", a.rule.empty() ? std::nullopt : std::optional(a.rule));
    w.Member("saving_upper_bound_ms", Ms(a.saving_ns));
    w.Member("saving_pct_of_measured", a.saving_pct);
    w.Member("message", a.message);
    w.Member("evidence", a.evidence);
    w.EndObject();
  }
  w.EndArray();
  w.Key("notes");
  w.BeginArray();
  for (const auto& n : r.notes) w.String(n);
  w.EndArray();
  w.Member("why_no_kernel_actions",
           r.why_no_kernel_actions.empty() ? std::nullopt : std::optional(r.why_no_kernel_actions));
  w.EndObject();
}

}  // namespace llmpo::report
