// report.html's Stragglers section. The heatmap has a row per rank and a
// column per step; a cell's colour is the rank's time in that step over the
// step's median rank (white at the median, red above, blue below), so a
// straggling rank is a red row and a slow step on one rank a red cell. Many
// ranks or steps share cells (heatmap_grid.h) so that the page stays small.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "src/report/heatmap_grid.h"
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

std::string RowLabel(const HeatmapRow& row) {
  return row.first_rank == row.last_rank ? fmt::format("rank {}", row.first_rank)
                                         : fmt::format("ranks {}-{}", row.first_rank, row.last_rank);
}

std::string CellRect(const analysis::Stragglers& s, const HeatmapGrid& grid, const HeatmapRow& row, std::size_t column,
                     double x, double y, double width) {
  const HeatmapCell& c = row.cells[column];
  const std::string& step = s.steps[c.step].region;
  const double pct = c.median_ns > 0 ? 100 * (c.ns - c.median_ns) / c.median_ns : 0;
  std::string among;
  if (grid.ranks_per_row > 1 || grid.steps_per_column > 1) {
    const std::size_t first = column * grid.steps_per_column;
    const std::size_t last = std::min(s.steps.size(), first + grid.steps_per_column) - 1;
    const std::string steps =
        first == last ? HtmlText(s.steps[first].region)
                      : fmt::format("{} to {}", HtmlText(s.steps[first].region), HtmlText(s.steps[last].region));
    among = fmt::format("; the most over its step's median among {}, {}", RowLabel(row), steps);
  }
  return fmt::format(
      "<rect class=\"cell\" data-rank=\"{0}\" data-step=\"{1}\" data-ms=\"{2:.6f}\" x=\"{3:.2f}\" y=\"{4:.1f}\" "
      "width=\"{5:.2f}\" height=\"{6:.1f}\" fill=\"{7}\"><title>rank {0}, {1}: {8} ms ({9:+.1f} % against the "
      "median rank{10})</title></rect>\n",
      c.rank, HtmlText(step), c.ns / 1e6, x, y, width, kRowHeight - 2, CellColour(c.ns, c.median_ns), MsText(c.ns), pct,
      among);
}

// Written a cell at a time: the grid holds up to kHeatmapMaxCells of them.
void WriteHeatmap(const analysis::Stragglers& s, const HeatmapGrid& grid, std::ostream& out) {
  const double cell = (kWidth - kLabelWidth) / static_cast<double>(std::max<std::size_t>(1, grid.columns));
  out << fmt::format(
      "<svg class=\"heatmap\" data-chart=\"rank-step-heatmap\" viewBox=\"0 0 {} {}\" width=\"100%\" role=\"img\" "
      "aria-label=\"Per rank and step: time over the step's median rank\">\n",
      kWidth, kRowHeight * static_cast<double>(grid.rows.size()) + 4);
  double y = 0;
  for (const HeatmapRow& row : grid.rows) {
    out << fmt::format("<text x=\"0\" y=\"{:.1f}\" font-size=\"11\">{}</text>\n", y + 11, RowLabel(row));
    for (std::size_t column = 0; column < grid.columns; ++column) {
      if (!row.cells[column].present) continue;  // no rank of the row ran these steps: no cell
      out << CellRect(s, grid, row, column, kLabelWidth + cell * static_cast<double>(column), y, cell);
    }
    y += kRowHeight;
  }
  out << "</svg>\n";
}

// What a cell stands for, said when ranks share a row or steps a column.
std::string BinNote(const HeatmapGrid& grid) {
  if (grid.ranks_per_row == 1 && grid.steps_per_column == 1) return "";
  std::string shared;
  if (grid.ranks_per_row > 1) shared = fmt::format("a row holds {} ranks", grid.ranks_per_row);
  if (grid.ranks_per_row > 1 && grid.steps_per_column > 1) shared += " and ";
  if (grid.steps_per_column > 1) shared += fmt::format("a column holds {} steps", grid.steps_per_column);
  return fmt::format(
      " To keep the page small {}; a cell shows the rank and step in it furthest above its step's median (its "
      "tooltip names them).",
      shared);
}

// The largest excess first, the first kMaxTableRows of them (sorted by
// reference: a step row holds a value per rank).
std::string RowsTable(std::string_view id, std::string_view first, const std::vector<analysis::StragglerRow>& all) {
  std::vector<const analysis::StragglerRow*> rows;
  rows.reserve(all.size());
  for (const auto& r : all) rows.push_back(&r);
  std::stable_sort(rows.begin(), rows.end(), [](const auto* a, const auto* b) { return a->excess_ns > b->excess_ns; });
  if (rows.size() > kMaxTableRows) rows.resize(kMaxTableRows);
  std::string out = fmt::format(
      "<table class=\"plain\" id=\"{}\"><thead><tr><th>{}</th><th>Ranks</th><th>Slowest rank</th><th>Slowest (ms)</th>"
      "<th>Median (ms)</th><th>Fastest rank</th><th>Slowest - median (ms)</th><th>Over median</th></tr></thead>"
      "<tbody>\n",
      id, first);
  for (const analysis::StragglerRow* r : rows) {
    out += fmt::format(
        "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
        HtmlText(r->region), r->ranks, r->slowest_rank, MsText(r->slowest_ns), MsText(r->median_ns), r->fastest_rank,
        MsText(r->excess_ns), r->excess_pct ? fmt::format("{:.1f} %", *r->excess_pct) : "n/a");
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

// Per step, the rank that began it last against the first
// (stragglers.md's "Late start per step"); the latest starts first.
std::string LateStartTable(const analysis::Stragglers& s) {
  if (s.late_starts.empty()) return "";
  std::vector<const analysis::LateStart*> rows;
  for (const auto& l : s.late_starts) rows.push_back(&l);
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto* a, const auto* b) { return a->latest_after_first_ns > b->latest_after_first_ns; });
  if (rows.size() > kMaxTableRows) rows.resize(kMaxTableRows);
  std::string out = fmt::format(
      "<h3>Late start per step</h3>\n<p>Per step, the rank that began it last, and how long after the first "
      "({}). A rank that begins a step late was held up before it.</p>\n<table class=\"plain\" "
      "id=\"late-starts\"><thead><tr><th>Step</th><th>First</th><th>Last</th><th>Last began after the first "
      "(ms)</th></tr></thead><tbody>\n",
      s.start_clock == analysis::StartClock::kOneHost ? "one host's clock"
                                                      : "Unix time of each host's clock; no offset between hosts "
                                                        "was measured");
  for (const auto* l : rows) {
    out +=
        fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
                    HtmlText(l->step), l->first_rank, l->latest_rank, MsText(l->latest_after_first_ns));
  }
  return out + "</tbody></table>\n";
}

std::string JoinedOrUnknown(const std::vector<std::string>& items) {
  return items.empty() ? "?" : HtmlText(fmt::format("{}", fmt::join(items, ", ")));
}

// Who each rank is (stragglers.md's "Ranks"), in rank order.
std::string WhoTable(const analysis::Stragglers& s) {
  const std::vector<const analysis::RankWho*> shown = WhoShown(s);
  if (shown.empty()) return "";
  const bool launched =
      std::any_of(s.who.begin(), s.who.end(), [](const analysis::RankWho& w) { return !w.ended.empty(); });
  const auto or_unknown = [](const std::string& text) { return text.empty() ? std::string("?") : HtmlText(text); };
  std::string out = fmt::format(
      "<h3>Ranks</h3>\n<p>Who each rank is, as its inputs{} said (? where none said).</p>\n<table class=\"plain\" "
      "id=\"rank-identities\"><thead><tr><th>Rank</th><th>Host</th>{}<th>Process</th><th>Devices</th>{}<th>World "
      "size</th>{}<th>Inputs</th></tr></thead><tbody>\n",
      launched ? " and the launcher's rank records" : "", launched ? "<th>Node</th><th>Local rank</th>" : "",
      launched ? "<th>CUDA_VISIBLE_DEVICES</th>" : "", launched ? "<th>Ended</th>" : "");
  for (const auto* wp : shown) {
    const analysis::RankWho& w = *wp;
    out += fmt::format("<tr><td class=\"num\">{}</td><td>{}</td>", w.rank, JoinedOrUnknown(w.hosts));
    if (launched) {
      out += fmt::format("<td>{}</td><td class=\"num\">{}</td>", or_unknown(w.node),
                         w.local_rank ? std::to_string(*w.local_rank) : "?");
    }
    out += fmt::format("<td>{}</td><td>{}</td>", JoinedOrUnknown(w.processes), JoinedOrUnknown(w.devices));
    if (launched) out += fmt::format("<td>{}</td>", w.visible_devices.empty() ? "unset" : HtmlText(w.visible_devices));
    out += fmt::format("<td class=\"num\">{}</td>", w.world_size ? std::to_string(*w.world_size) : "?");
    if (launched) out += fmt::format("<td>{}</td>", or_unknown(w.ended));
    out += fmt::format("<td>{}</td></tr>\n", JoinedOrUnknown(w.inputs));
  }
  if (shown.size() < s.who.size()) {
    out += fmt::format(
        "<tr><td colspan=\"{}\">{} of {} ranks, those the tables name; every rank: stragglers.json</td></tr>\n",
        launched ? 10 : 6, shown.size(), s.who.size());
  }
  return out + "</tbody></table>\n";
}

}  // namespace

void WriteStragglersHtml(const analysis::Stragglers& s, std::ostream& out) {
  out << fmt::format(
      "<section id=\"stragglers\"><h2>Stragglers across {} ranks</h2>\n<p>Per region that several ranks ran, the "
      "slowest rank against the median rank (stragglers.md has the method).</p>\n",
      s.ranks);
  if (!s.steps.empty()) {
    const HeatmapGrid grid = BinRankSteps(s);
    out << fmt::format(
        "<h3>Rank &times; step</h3>\n<p>{} steps{}; a cell is the rank's {} in the step against the "
        "step's median rank: white at the median, red 50 % or more above, blue below.{}</p>\n",
        s.steps.size(), s.steps_omitted ? fmt::format(" ({} later steps left out)", s.steps_omitted) : "",
        s.steps.front().quantity == "total" ? "GPU kernel time" : "CPU range time", BinNote(grid));
    WriteHeatmap(s, grid, out);
    out << RowsTable("straggler-steps", "Step", s.steps);
    out << LateStartTable(s);
    out << StepCollectivesTable(s.steps);
  }
  if (!s.regions.empty()) out << "<h3>Regions</h3>\n" << RowsTable("straggler-regions", "Region", s.regions);
  if (!s.collectives.empty()) out << CollectivesTable(s.collectives);
  out << WhoTable(s);
  out << "</section>\n";
}

std::string StragglersHtml(const analysis::Stragglers& s) {
  std::ostringstream out;
  WriteStragglersHtml(s, out);
  return std::move(out).str();
}

}  // namespace llmpo::report
