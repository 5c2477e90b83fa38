// report.html's Stragglers section. The heatmap has a row per rank and a
// column per step; a cell's colour is the rank's time in that step over the
// step's median rank (white at the median, red above, blue below), so a
// straggling rank is a red row and a slow step on one rank a red cell.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "src/report/html_text.h"
#include "src/report/stragglers_report.h"
#include "src/report/text_format.h"

namespace llmpo::report {
namespace {

constexpr double kWidth = 800;
constexpr double kRowHeight = 14;
constexpr double kLabelWidth = 60;
constexpr std::size_t kMaxTableRows = 20;

// White at the median; full red at +50 % and over, full blue at -50 %.
std::string CellColour(double ns, double median) {
  if (median <= 0) return "#dddddd";
  const double r = std::clamp((ns - median) / median / 0.5, -1.0, 1.0);
  const auto fade = [](double t) { return static_cast<int>(std::lround(255 * (1 - std::fabs(t)))); };
  return r >= 0 ? fmt::format("#ff{0:02x}{0:02x}", fade(r)) : fmt::format("#{0:02x}{0:02x}ff", fade(r));
}

std::string Heatmap(const analysis::Stragglers& s) {
  std::set<std::int64_t> ranks;
  for (const auto& step : s.steps) {
    for (const auto& [rank, ns] : step.per_rank_ns) ranks.insert(rank);
  }
  const double cell = (kWidth - kLabelWidth) / static_cast<double>(std::max<std::size_t>(1, s.steps.size()));
  std::string out = fmt::format(
      "<svg class=\"heatmap\" data-chart=\"rank-step-heatmap\" viewBox=\"0 0 {} {}\" width=\"100%\" role=\"img\" "
      "aria-label=\"Per rank and step: time over the step's median rank\">\n",
      kWidth, kRowHeight * static_cast<double>(ranks.size()) + 4);
  double y = 0;
  for (const std::int64_t rank : ranks) {
    out += fmt::format("<text x=\"0\" y=\"{:.1f}\" font-size=\"11\">rank {}</text>\n", y + 11, rank);
    for (std::size_t i = 0; i < s.steps.size(); ++i) {
      const auto& step = s.steps[i];
      const auto it = std::find_if(step.per_rank_ns.begin(), step.per_rank_ns.end(),
                                   [rank](const auto& p) { return p.first == rank; });
      if (it == step.per_rank_ns.end()) continue;  // the rank did not run this step: no cell
      const double pct = step.median_ns > 0 ? 100 * (it->second - step.median_ns) / step.median_ns : 0;
      out += fmt::format(
          "<rect class=\"cell\" data-rank=\"{0}\" data-step=\"{1}\" data-ms=\"{2:.6f}\" x=\"{3:.2f}\" y=\"{4:.1f}\" "
          "width=\"{5:.2f}\" height=\"{6:.1f}\" fill=\"{7}\"><title>rank {0}, {1}: {8} ms ({9:+.1f} % against the "
          "median rank)</title></rect>\n",
          rank, HtmlText(step.region), it->second / 1e6, kLabelWidth + cell * static_cast<double>(i), y, cell,
          kRowHeight - 2, CellColour(it->second, step.median_ns), MsText(it->second), pct);
    }
    y += kRowHeight;
  }
  return out + "</svg>\n";
}

std::string RowsTable(std::string_view id, std::string_view first, std::vector<analysis::StragglerRow> rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.excess_ns > b.excess_ns; });
  if (rows.size() > kMaxTableRows) rows.resize(kMaxTableRows);
  std::string out = fmt::format(
      "<table class=\"plain\" id=\"{}\"><thead><tr><th>{}</th><th>Ranks</th><th>Slowest rank</th><th>Slowest (ms)</th>"
      "<th>Median (ms)</th><th>Fastest rank</th><th>Slowest - median (ms)</th><th>Over median</th></tr></thead>"
      "<tbody>\n",
      id, first);
  for (const auto& r : rows) {
    out += fmt::format(
        "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
        HtmlText(r.region), r.ranks, r.slowest_rank, MsText(r.slowest_ns), MsText(r.median_ns), r.fastest_rank,
        MsText(r.excess_ns), r.excess_pct ? fmt::format("{:.1f} %", *r.excess_pct) : "n/a");
  }
  return out + "</tbody></table>\n";
}

std::string CollectivesTable(const std::vector<analysis::RankCollectives>& rows) {
  std::string out =
      "<h3>Time in collectives</h3>\n<p>Communication kernel time per rank (devices added) and how much it exceeds "
      "the rank with the least: mostly waiting for later ranks (an upper bound).</p>\n"
      "<table class=\"plain\" id=\"collectives\"><thead><tr><th>Rank</th><th>Communication (ms)</th>"
      "<th>Beyond the least (ms)</th></tr></thead><tbody>\n";
  for (const auto& r : rows) {
    out += fmt::format("<tr><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n", r.rank,
                       MsText(r.communication_ns), MsText(r.beyond_least_ns));
  }
  return out + "</tbody></table>\n";
}

// Per step, the rank that waited longest in collectives beyond the rank with
// the least (stragglers.md's "Collective wait per step"); the steps with the
// longest such wait first.
std::string StepCollectivesTable(const std::vector<analysis::StragglerRow>& steps) {
  struct Row {
    const analysis::StragglerRow* step;
    analysis::StepWait wait;
  };
  std::vector<Row> rows;
  for (const auto& s : steps) {
    if (const auto wait = analysis::LongestWait(s)) rows.push_back({&s, *wait});
  }
  if (rows.empty()) return "";
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return a.wait.waited_longest.beyond_least_ns > b.wait.waited_longest.beyond_least_ns;
  });
  if (rows.size() > kMaxTableRows) rows.resize(kMaxTableRows);
  std::string out =
      "<h3>Collective wait per step</h3>\n<p>Per step, the communication kernels each rank launched in it: the rank "
      "whose time exceeds the least by most waited longest; the rank with the least arrived last. The step's GPU "
      "time includes this wait.</p>\n<table class=\"plain\" id=\"step-collectives\"><thead><tr><th>Step</th>"
      "<th>Waited longest</th><th>Its communication (ms)</th><th>Beyond the least (ms)</th><th>Arrived last</th>"
      "<th>Its communication (ms)</th></tr></thead><tbody>\n";
  for (const Row& r : rows) {
    out += fmt::format(
        "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
        HtmlText(r.step->region), r.wait.waited_longest.rank, MsText(r.wait.waited_longest.communication_ns),
        MsText(r.wait.waited_longest.beyond_least_ns), r.wait.arrived_last.rank,
        MsText(r.wait.arrived_last.communication_ns));
  }
  return out + "</tbody></table>\n";
}

}  // namespace

std::string StragglersHtml(const analysis::Stragglers& s) {
  std::string out = fmt::format(
      "<section id=\"stragglers\"><h2>Stragglers across {} ranks</h2>\n<p>Per region that several ranks ran, the "
      "slowest rank against the median rank (stragglers.md has the method).</p>\n",
      s.ranks);
  if (!s.steps.empty()) {
    out += fmt::format("<h3>Rank &times; step</h3>\n<p>{} steps{}; a cell is the rank's {} in the step against the "
                       "step's median rank: white at the median, red 50 % or more above, blue below.</p>\n",
                       s.steps.size(), s.steps_omitted ? fmt::format(" ({} later steps left out)", s.steps_omitted) : "",
                       s.steps.front().quantity == "total" ? "GPU kernel time" : "CPU range time");
    out += Heatmap(s);
    out += RowsTable("straggler-steps", "Step", s.steps);
    out += StepCollectivesTable(s.steps);
  }
  if (!s.regions.empty()) out += "<h3>Regions</h3>\n" + RowsTable("straggler-regions", "Region", s.regions);
  if (!s.collectives.empty()) out += CollectivesTable(s.collectives);
  return out + "</section>\n";
}

}  // namespace llmpo::report
