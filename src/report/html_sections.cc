#include "src/report/html_sections.h"

#include <fmt/format.h>

#include <cmath>

#include "src/report/html_text.h"
#include "src/report/source_labels.h"
#include "src/report/text_format.h"

namespace llmpo::report {
namespace {

using nlohmann::ordered_json;

// Rounded for the table (the JSON reports keep every digit).
ordered_json Opt(const std::optional<double>& v, double scale = 10) {
  return v ? ordered_json(std::round(*v * scale) / scale) : ordered_json(nullptr);
}

ordered_json Column(std::string_view key, std::string_view label, std::string_view type) {
  return ordered_json{{"key", key}, {"label", label}, {"type", type}};
}

// "SOLBottleneck (23.4 %)": ncu's largest global estimate, else its first
// optimisation finding; null when it has none.
ordered_json TopFinding(const analysis::KernelAggregate& k) {
  if (const auto* f = analysis::TopGlobalFinding(k.findings)) {
    return fmt::format("{} ({:.3g} %)", f->finding.rule, *f->MeanSpeedupPct());
  }
  for (const auto& f : k.findings) {
    if (f.finding.type == model::FindingType::kOptimization) return f.finding.rule;
  }
  return nullptr;
}

bool HasNcuData(const KernelRow& k) {
  return !k.findings.empty() || (k.insight && k.insight->bound.cls != analysis::BoundClass::kUnknown) ||
         k.FirstValue(analysis::kSmThroughputPct).has_value();
}

std::string Num(double v, int decimals) { return fmt::format("{:.{}f}", v, decimals); }

std::string Cells(std::initializer_list<std::string> cells, std::size_t text_cells) {
  std::string out = "<tr>";
  std::size_t i = 0;
  for (const auto& c : cells) out += (i++ < text_cells ? "<td>" : "<td class=\"num\">") + c + "</td>";
  return out + "</tr>\n";
}

std::string Head(std::initializer_list<std::string_view> labels) {
  std::string out = "<table class=\"plain\"><thead><tr>";
  for (auto l : labels) out += fmt::format("<th>{}</th>", l);
  return out + "</tr></thead><tbody>\n";
}

std::string TemporalTable(const model::GpuBreakdown& b) {
  std::string out = "<h3>Where each GPU's time goes</h3>\n" +
                    Head({"Process", "Device", "Kernels", "Span (ms)", "Busy (ms)", "Idle", "Computation",
                          "Communication (ms)", "Memory ops (ms)", "Comm/comp overlap"});
  for (const auto& d : b.devices) {
    const double span = d.span_ns;
    auto pct = [&](double ns) { return span > 0 ? fmt::format("{:.1f} %", 100 * ns / span) : std::string("n/a"); };
    out += Cells({HtmlText(d.process.Label()), HtmlText(d.device), fmt::format("{}", d.kernels), MsText(d.span_ns),
                  MsText(d.busy_ns), pct(d.idle_ns), pct(d.classes.computation_ns), MsText(d.classes.communication_ns),
                  MsText(d.classes.memory_ns),
                  d.classes.comm_comp_overlap_pct ? fmt::format("{:.1f} %", *d.classes.comm_comp_overlap_pct) : "n/a"},
                 2);
  }
  return out + "</tbody></table>\n";
}

// Each device's GPU work per ProfilerStep#N, the first kStepRows rows
// (gpu_breakdown.json has every row).
std::string StepTable(const model::GpuBreakdown& b) {
  constexpr std::size_t kStepRows = 64;
  std::size_t all = 0;
  std::string rows;
  for (const auto& d : b.devices) {
    for (const auto& s : d.step_breakdowns) {
      if (++all > kStepRows) continue;
      const auto pct = [&](double ns) {
        return s.span_ns > 0 ? fmt::format("{:.1f} %", 100 * ns / s.span_ns) : std::string("n/a");
      };
      rows +=
          Cells({HtmlText(d.process.Label()), HtmlText(d.device), fmt::format("{}", s.step),
                 fmt::format("{}", s.gpu_ops), MsText(s.span_ns), MsText(s.busy_ns), pct(s.idle_ns),
                 MsText(s.classes.computation_ns), MsText(s.classes.communication_ns), MsText(s.classes.memory_ns),
                 s.classes.comm_comp_overlap_pct ? fmt::format("{:.1f} %", *s.classes.comm_comp_overlap_pct) : "n/a"},
                2);
    }
  }
  if (all == 0) return "";
  return fmt::format(
             "<h3 id=\"gpu-steps\">Per step</h3>\n<p class=\"note\">The GPU operations launched in each "
             "ProfilerStep (launch call inside the step, any thread), split as above{}.</p>\n",
             all > kStepRows ? fmt::format("; the first {} of {} rows (every row: gpu_breakdown.json)", kStepRows, all)
                             : "") +
         Head({"Process", "Device", "Step", "GPU ops", "Span (ms)", "Busy (ms)", "Idle", "Computation (ms)",
               "Communication (ms)", "Memory ops (ms)", "Comm/comp overlap"}) +
         rows + "</tbody></table>\n";
}

std::string LaunchTable(const model::GpuBreakdown& b) {
  std::string out =
      "<h3>Launches</h3>\n<p class=\"note\">The launch call (CPU) against the GPU operation it launched; delay: GPU "
      "start minus call end, 0 when negative. Times in µs.</p>\n" +
      Head({"Process", "Device", "Launches", "Call mean", "Call max", "GPU mean", "GPU max", "Delay mean", "Delay max",
            "GPU shorter than call"});
  for (const auto& d : b.devices) {
    const auto& l = d.launch;
    out += Cells(
        {HtmlText(d.process.Label()), HtmlText(d.device), fmt::format("{}", l.launches), Num(l.cpu_mean_ns / 1e3, 2),
         Num(l.cpu_max_ns / 1e3, 2), Num(l.gpu_mean_ns / 1e3, 2), Num(l.gpu_max_ns / 1e3, 2),
         Num(l.delay_mean_ns / 1e3, 2), Num(l.delay_max_ns / 1e3, 2), fmt::format("{}", l.gpu_shorter_than_call)},
        2);
  }
  return out + "</tbody></table>\n";
}

std::string RanksTable(const analysis::RankComparison& ranks) {
  if (ranks.processes < 2) return "";
  std::string out = fmt::format("<h3>Ranks compared ({} processes)</h3>\n", ranks.processes) +
                    Head({"Quantity", "Min", "Median", "Max", "Min at", "Max at"});
  for (const auto& q : ranks.quantities) {
    out += fmt::format(
        "<tr><td>{}</td><td class=\"num\">{:.3f}</td><td class=\"num\">{:.3f}</td><td class=\"num\">{:.3f}</td>"
        "<td>{}</td><td>{}</td></tr>\n",
        HtmlText(q.quantity), q.min, q.median, q.max, HtmlText(q.min_process), HtmlText(q.max_process));
  }
  return out + "</tbody></table>\n";
}

std::string CpuOpsTable(const GpuBreakdownReport& r) {
  if (r.top_cpu_ops.empty()) return "";
  std::string out =
      "<h3>CPU ops and the GPU time they launched</h3>\n<p class=\"note\">Self: kernels whose innermost CPU op it "
      "is; total: kernels launched anywhere inside it (the PyTorch profiler's Self CUDA and CUDA total).";
  if (r.cpu_ops_with_gpu > r.top_cpu_ops.size()) {
    out += fmt::format(" The {} with the most GPU time of {}; gpu_breakdown.json has all.", r.top_cpu_ops.size(),
                       r.cpu_ops_with_gpu);
  }
  out += "</p>\n" + Head({"Process", "Op", "Calls", "CPU (ms)", "GPU self (ms)", "GPU total (ms)", "Kernels"});
  for (const std::size_t i : r.top_cpu_ops) {
    const auto& op = r.breakdown.cpu_ops[i];
    out += Cells({HtmlText(op.process.Label()), HtmlShort(op.name, 120), fmt::format("{}", op.calls), MsText(op.cpu_ns),
                  MsText(op.gpu_self_ns), MsText(op.gpu_total_ns), fmt::format("{}", op.kernels)},
                 2);
  }
  return out + "</tbody></table>\n";
}

}  // namespace

ordered_json NcuKernelTableData(const KernelsReport& k, const PageModel& page) {
  const auto labels = SourceLabels(k.sources);
  ordered_json rows = ordered_json::array();
  for (const std::size_t index : page.kernel_rows) {
    const KernelRow& row = k.kernels[index];
    if (!HasNcuData(row) || !row.insight) continue;
    const auto& b = row.insight->bound;
    rows.push_back(ordered_json::array({row.name, row.insight->category, std::string(analysis::ToString(b.cls)),
                                        Opt(b.sm_pct), Opt(b.memory_pct),
                                        Opt(row.FirstValue(analysis::kAchievedOccupancyPct)), Opt(b.waves_per_sm, 100),
                                        TopFinding(row), b.reason, row.calls, LabelOf(labels, row.source)}));
  }
  if (rows.empty()) return nullptr;
  return ordered_json{
      {"columns",
       {Column("name", "Kernel", "text"), Column("category", "Category", "text"), Column("bound", "Bound", "text"),
        Column("sm", "SM %", "num"), Column("memory", "Memory %", "num"),
        Column("occupancy", "Achieved occupancy %", "num"), Column("waves", "Waves per SM", "num"),
        Column("finding", "Top finding (est. speedup)", "text"), Column("why", "Why this bound", "text"),
        Column("launches", "Launches", "int"), Column("input", "Input", "text")}},
      {"rows", std::move(rows)}};
}

std::string NcuKernelSection(bool has_rows) {
  if (!has_rows) return "";
  return "<section id=\"ncu-table\"><h2>Kernels under ncu</h2>\n"
         "<p class=\"note\">Per kernel and input: ncu's SpeedOfLight throughput (% of peak), achieved occupancy, "
         "waves per SM, the bound class with the numbers that decided it (docs/analysis.md) and ncu's finding with "
         "the largest estimated speedup. Click a heading to sort.</p>\n"
         "<input type=\"search\" class=\"filter\" data-filter-for=\"ncu-table-t\" placeholder=\"filter rows\">\n"
         "<span class=\"count\" id=\"ncu-table-t-count\"></span>\n"
         "<div class=\"scroll\"><table class=\"data\" id=\"ncu-table-t\" data-table=\"ncu\"></table></div></section>\n";
}

// The kernels HTA's rule classes differently from the kernels table's category.
std::string ClassDifferencesList(const GpuBreakdownReport& r) {
  if (r.class_differences.empty()) return "";
  std::string out = fmt::format(
      "<h3>Kernels classed differently from the kernel categories</h3>\n<p class=\"note\">This breakdown keeps "
      "HTA's name rule; the categories elsewhere on this page use pattern rules. {} kernel name(s) differ:</p>\n"
      "<ul id=\"class-differences\">\n",
      r.class_differences_total);
  for (const auto& d : r.class_differences) {
    out += fmt::format("<li><code>{}</code>: category {}, here {}: {}.</li>\n", HtmlShort(d.name, 120),
                       HtmlText(d.category), HtmlText(d.klass), HtmlText(d.why));
  }
  if (r.class_differences_total > r.class_differences.size()) {
    out += fmt::format("<li>and {} more</li>\n", r.class_differences_total - r.class_differences.size());
  }
  return out + "</ul>\n";
}

std::string GpuBreakdownSection(const GpuBreakdownReport* r) {
  if (r == nullptr || r->breakdown.devices.empty()) return "";
  std::string out = "<section id=\"gpu-breakdown\"><h2>GPU breakdown per rank and device</h2>\n";
  out +=
      "<p class=\"note\">Per rank (process) and device, from the trace's GPU operations: busy is the union of their "
      "intervals, idle the rest of each device's own span (never merged over devices); computation, communication "
      "and memory as HTA classes kernels (docs/import.md). gpu_breakdown.md and .json have the same numbers.</p>\n";
  out += TemporalTable(r->breakdown);
  out += StepTable(r->breakdown);
  out += LaunchTable(r->breakdown);
  out += RanksTable(r->ranks);
  out += CpuOpsTable(*r);
  out += ClassDifferencesList(*r);
  return out + "</section>\n";
}

}  // namespace llmpo::report
