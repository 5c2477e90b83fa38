// sweep.md and sweep.json: renderings of the SweepReport (sweep_model.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "src/report/compare_text.h"
#include "src/report/json_writer.h"
#include "src/report/sweep_model.h"

namespace llmpo::report {
namespace {

using Json = nlohmann::ordered_json;

std::string Cell(const std::optional<double>& v) { return v ? fmt::format("{:.4g}", *v) : "null"; }

// Markdown table cells may not hold '|' or a newline.
std::string Md(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string VsBaseText(const SweepPoint& p, bool is_base) {
  if (is_base) return "baseline";
  if (!p.vs_base) return "n/a";
  const auto& v = *p.vs_base;
  return fmt::format("{} ms ({}), {}", SignedMs((v.point_ms - v.base_ms) * 1e6), PctText(v.test.change_pct),
                     VerdictText(v.test));
}

void PointsTable(const SweepReport& r, std::string& md) {
  std::vector<std::string> head = {"point"};
  for (const auto& k : r.keys) head.push_back(Md(k));
  head.push_back("status");
  const auto shown = ShownQuantities(r);
  for (const auto* q : shown) head.push_back(Md(fmt::format("{} ({})", q->label, q->unit)));
  head.push_back("top kernel (bound)");
  head.push_back("vs baseline (total GPU kernel time)");
  md += fmt::format("| {} |\n|", fmt::join(head, " | "));
  for (std::size_t i = 0; i < head.size(); ++i) md += "---|";
  md += "\n";
  for (std::size_t i = 0; i < r.points.size(); ++i) {
    const SweepPoint& p = r.points[i];
    std::vector<std::string> row = {fmt::format("{}{}", p.in.num, p.pareto ? " *" : "")};
    for (const auto& v : p.in.values) row.push_back(Md(v));
    row.push_back(Md(p.in.reason.empty() ? p.in.status : p.in.status + ": " + p.in.reason));
    for (const auto* q : shown) row.push_back(Cell(SweepValue(p, q->id)));
    row.push_back(p.top_kernel.empty() ? "n/a" : Md(fmt::format("{} ({})", p.top_kernel, p.top_kernel_bound)));
    row.push_back(Md(VsBaseText(p, r.base == i)));
    md += fmt::format("| {} |\n", fmt::join(row, " | "));
  }
}

Json Nullable(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

Json PointJson(const SweepReport& r, std::size_t i) {
  const SweepPoint& p = r.points[i];
  Json values = Json::object();
  for (std::size_t k = 0; k < r.keys.size(); ++k) values[r.keys[k]] = p.in.values[k];
  Json q = Json::object();
  for (const auto& quantity : r.quantities) q[quantity.id] = Nullable(SweepValue(p, quantity.id));
  Json vs = nullptr;
  if (p.vs_base) {
    vs = {{"base_gpu_kernel_ms", p.vs_base->base_ms},
          {"gpu_kernel_ms", p.vs_base->point_ms},
          {"change_pct", Nullable(p.vs_base->test.change_pct)},
          {"verdict", std::string(analysis::ToString(p.vs_base->test.verdict))},
          {"tested", p.vs_base->test.tested},
          {"p_value", Nullable(p.vs_base->test.p_value)}};
  }
  return {{"num", p.in.num},
          {"values", values},
          {"run_dir", p.in.dir},
          {"status", p.in.status},
          {"reason", p.in.reason.empty() ? Json(nullptr) : Json(p.in.reason)},
          {"exit_code", p.in.exit_code ? Json(*p.in.exit_code) : Json(nullptr)},
          {"measured", p.in.set != nullptr},
          {"baseline", r.base == i},
          {"quantities", q},
          {"top_kernel", p.top_kernel.empty() ? Json(nullptr) : Json(p.top_kernel)},
          {"top_kernel_bound", p.top_kernel.empty() ? Json(nullptr) : Json(p.top_kernel_bound)},
          {"pareto", p.pareto},
          {"vs_baseline", vs}};
}

}  // namespace

std::string SweepMarkdown(const SweepReport& r) {
  std::string md = fmt::format("# Sweep: {} -m over {}\n\n", r.command, fmt::join(r.keys, ", "));
  std::size_t measured = 0;
  for (const auto& p : r.points) measured += p.in.set != nullptr ? 1 : 0;
  md += fmt::format("{} points, {} with a report set. Times in ms; null: unknown. ", r.points.size(), measured);
  md += r.base ? fmt::format("Baseline: point {}.", r.points[*r.base].in.num) : "No baseline.";
  md += " Quantities without a value at any point are left out here (null in sweep.json).\n\n";
  PointsTable(r, md);
  if (std::any_of(r.points.begin(), r.points.end(), [](const SweepPoint& p) { return p.pareto; })) {
    md += fmt::format("\n`*`: on the Pareto front of {} and {} (no other point is at least as good in both and "
                      "better in one).\n",
                      r.pareto[0], r.pareto[1]);
  }
  md += "\n## Bottleneck\n\n";
  if (r.bottleneck_changes.empty()) md += "The kernel with the most GPU time and its bound class stay the same.\n";
  for (const auto& line : r.bottleneck_changes) md += fmt::format("- {}\n", line);
  if (!r.notes.empty()) {
    md += "\n## Notes\n\n";
    for (const auto& n : r.notes) md += fmt::format("- {}\n", n);
  }
  return md;
}

std::string SweepJson(const SweepReport& r) {
  Json quantities = Json::array();
  for (const auto& q : r.quantities) {
    quantities.push_back({{"id", q.id}, {"label", q.label}, {"unit", q.unit}, {"higher_is_better", q.higher_is_better}});
  }
  Json points = Json::array();
  for (std::size_t i = 0; i < r.points.size(); ++i) points.push_back(PointJson(r, i));
  const Json doc = {{"schema_version", kSweepSchemaVersion},
                    {"command", r.command},
                    {"keys", r.keys},
                    {"baseline", r.base ? Json(r.points[*r.base].in.num) : Json(nullptr)},
                    {"quantities", quantities},
                    {"points", points},
                    {"pareto", r.pareto.empty() ? Json(nullptr) : Json(r.pareto)},
                    {"bottleneck_changes", r.bottleneck_changes},
                    {"notes", r.notes}};
  return JsonFileText(doc);
}

}  // namespace llmpo::report
