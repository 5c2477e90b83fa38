#include "src/report/gpu_breakdown_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "src/report/json_process.h"
#include "src/report/json_writer.h"
#include "src/report/source_labels.h"
#include "src/report/text_format.h"

namespace llmpo::report {
namespace {

constexpr double kNsPerMs = 1e6;

double Pct(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

std::string Ms(double ns) { return fmt::format("{:.3f}", ns / kNsPerMs); }
std::string Us(double ns) { return fmt::format("{:.3f}", ns / 1000.0); }

// Each trace's full name once; the tables name it by its label (the file name,
// with parent folders only where two traces share one).
std::map<std::string, std::string> TraceLabels(const model::GpuBreakdown& b, std::string& md) {
  std::vector<SourceInfo> traces;
  std::set<std::string> seen;
  for (const auto& d : b.devices) {
    if (!seen.insert(d.source).second) continue;
    SourceInfo s;
    s.path = d.source;
    traces.push_back(s);
  }
  auto labels = SourceLabels(traces);
  md += "## Sources\n\n| input | trace |\n|---|---|\n";
  for (const auto& s : traces)
    md += fmt::format("| {} | {} |\n", MdCell(LabelOf(labels, s.path), 200), MdCell(s.path, 1000));
  md += "\n";
  return labels;
}

void TemporalMd(const model::GpuBreakdown& b, std::string& md) {
  const auto labels = TraceLabels(b, md);
  md += "## Temporal breakdown\n\n";
  md +=
      "| input | process | device | kernels | kernel ms | span ms | busy ms | idle % | computation % | non-computation "
      "% |\n";
  md += "|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& d : b.devices) {
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {:.2f} | {:.2f} | {:.2f} |\n",
                      MdCell(LabelOf(labels, d.source), 200), d.process, d.device, d.kernels, Ms(d.kernel_ns),
                      Ms(d.span_ns), Ms(d.busy_ns), Pct(d.idle_ns, d.span_ns), Pct(d.classes.computation_ns, d.span_ns),
                      Pct(d.busy_ns - d.classes.computation_ns, d.span_ns));
  }
}

void KernelTypesMd(const model::GpuBreakdown& b, std::string& md) {
  md += "\n## Kernel types\n\n";
  md += "| process | device | computation ms | communication ms | memory ms | comm/comp overlap % |\n";
  md += "|---|---|---:|---:|---:|---:|\n";
  for (const auto& d : b.devices) {
    md += fmt::format(
        "| {} | {} | {} | {} | {} | {} |\n", d.process, d.device, Ms(d.classes.computation_ns),
        Ms(d.classes.communication_ns), Ms(d.classes.memory_ns),
        d.classes.comm_comp_overlap_pct ? fmt::format("{:.2f}", *d.classes.comm_comp_overlap_pct) : std::string("n/a"));
  }
}

std::string PctOrNa(const std::optional<double>& pct) { return pct ? fmt::format("{:.2f}", *pct) : "n/a"; }

// Each device's GPU work launched in each ProfilerStep#N, up to kMdStepRows
// rows (every row: gpu_breakdown.json).
void StepsMd(const model::GpuBreakdown& b, std::string& md) {
  constexpr std::size_t kMdStepRows = 64;
  std::size_t rows = 0, all = 0;
  std::string table;
  for (const auto& d : b.devices) {
    for (const auto& s : d.step_breakdowns) {
      if (++all > kMdStepRows) continue;
      ++rows;
      table += fmt::format("| {} | {} | {} | {} | {} | {} | {:.2f} | {} | {} | {} | {} |\n", d.process, d.device,
                           s.step, s.gpu_ops, Ms(s.span_ns), Ms(s.busy_ns), Pct(s.idle_ns, s.span_ns),
                           Ms(s.classes.computation_ns), Ms(s.classes.communication_ns), Ms(s.classes.memory_ns),
                           PctOrNa(s.classes.comm_comp_overlap_pct));
    }
  }
  if (all == 0) return;
  md +=
      "\n## Per step\n\nPer rank, device and ProfilerStep#N: the GPU ops whose launch call started while the step "
      "ran (any thread of the process, as for the step's GPU time), split as above: span from the first one's start "
      "to the last one's end, busy the union, idle the rest of the span, and the class unions.";
  if (all > rows) md += fmt::format(" The first {} of {} rows (every row: gpu_breakdown.json).", rows, all);
  md +=
      "\n\n| process | device | step | GPU ops | span ms | busy ms | idle % | computation ms | communication ms | "
      "memory ms | comm/comp overlap % |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n" +
      table;
}

void LaunchesMd(const model::GpuBreakdown& b, std::string& md) {
  md += "\n## Launches\n\n";
  md +=
      "Launch call (CPU) against the GPU op it launched, over every GPU op with a launch call in the trace; delay = "
      "GPU start - call end, 0 when negative.\n\n";
  md +=
      "| process | device | launches | call mean us | call max us | GPU mean us | GPU max us | delay mean us | delay "
      "max us | GPU shorter than call |\n";
  md += "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& d : b.devices) {
    const auto& l = d.launch;
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", d.process, d.device, l.launches,
                      Us(l.cpu_mean_ns), Us(l.cpu_max_ns), Us(l.gpu_mean_ns), Us(l.gpu_max_ns), Us(l.delay_mean_ns),
                      Us(l.delay_max_ns), l.gpu_shorter_than_call);
  }
}

void RanksMd(const analysis::RankComparison& ranks, std::string& md) {
  if (ranks.processes > 1) {
    md += fmt::format(
        "\n## Ranks ({} processes)\n\n| quantity | min | median | max | min at | max at "
        "|\n|---|---:|---:|---:|---|---|\n",
        ranks.processes);
    for (const auto& q : ranks.quantities) {
      md += fmt::format("| {} | {:.3f} | {:.3f} | {:.3f} | {} | {} |\n", q.quantity, q.min, q.median, q.max,
                        q.min_process, q.max_process);
    }
    if (!ranks.steps.empty()) {
      md +=
          "\n| ProfilerStep | ranks | min CPU ms | median CPU ms | max CPU ms | slowest "
          "|\n|---:|---:|---:|---:|---:|---|\n";
      for (const auto& s : ranks.steps) {
        md += fmt::format("| {} | {} | {:.3f} | {:.3f} | {:.3f} | {} |\n", s.step, s.ranks, s.min_cpu_ms,
                          s.median_cpu_ms, s.max_cpu_ms, s.slowest_process);
      }
    }
  }
}

void CpuOpsMd(const GpuBreakdownReport& report, std::string& md) {
  md += "\n## CPU ops\n\n";
  md +=
      "GPU time of the kernels each CPU op launched: self = the op is the innermost CPU op of the launch call, total = "
      "the launch call ran anywhere inside the op (the PyTorch profiler's \"Self CUDA\" and \"CUDA total\").\n\n";
  // The ops with the most GPU time over every rank and process, not the
  // first input's: each rank lists its own ops.
  if (report.cpu_ops_with_gpu > report.top_cpu_ops.size()) {
    md += fmt::format("Top {} of {} (process, op) rows with GPU time, by GPU total; gpu_breakdown.json has all.\n\n",
                      report.top_cpu_ops.size(), report.cpu_ops_with_gpu);
  }
  md +=
      "| process | op | calls | CPU ms | GPU self ms | GPU total ms | kernels |\n|---|---|---:|---:|---:|---:|---:|\n";
  for (const std::size_t index : report.top_cpu_ops) {
    const model::CpuOpTimes* op = &report.breakdown.cpu_ops[index];
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", MdCell(op->process.Label(), 60), MdCell(op->name, 120),
                      op->calls, Ms(op->cpu_ns), Ms(op->gpu_self_ns), Ms(op->gpu_total_ns), op->kernels);
  }
}

void DeviceJson(JsonWriter& w, const model::DeviceBreakdown& d) {
  w.BeginObject();
  w.Member("source", d.source);
  WriteProcessMembers(w, d.process);
  w.Member("device", d.device);
  w.Member("rank", d.rank);
  w.Member("world_size", d.world_size);
  w.Member("kernels", d.kernels);
  w.Member("memory_ops", d.memory_ops);
  w.Member("kernel_ms", d.kernel_ns / kNsPerMs);
  w.Member("span_ms", d.span_ns / kNsPerMs);
  w.Member("busy_ms", d.busy_ns / kNsPerMs);
  w.Member("idle_ms", d.idle_ns / kNsPerMs);
  w.Member("computation_ms", d.classes.computation_ns / kNsPerMs);
  w.Member("non_computation_ms", (d.busy_ns - d.classes.computation_ns) / kNsPerMs);
  w.Member("communication_ms", d.classes.communication_ns / kNsPerMs);
  w.Member("memory_ms", d.classes.memory_ns / kNsPerMs);
  w.Member("comm_comp_overlap_pct", d.classes.comm_comp_overlap_pct);
  w.Key("launch");
  w.BeginObject();
  w.Member("launches", d.launch.launches);
  w.Member("call_mean_ms", d.launch.cpu_mean_ns / kNsPerMs);
  w.Member("call_max_ms", d.launch.cpu_max_ns / kNsPerMs);
  w.Member("gpu_mean_ms", d.launch.gpu_mean_ns / kNsPerMs);
  w.Member("gpu_max_ms", d.launch.gpu_max_ns / kNsPerMs);
  w.Member("delay_mean_ms", d.launch.delay_mean_ns / kNsPerMs);
  w.Member("delay_max_ms", d.launch.delay_max_ns / kNsPerMs);
  w.Member("gpu_shorter_than_call", d.launch.gpu_shorter_than_call);
  w.EndObject();
  w.Key("steps");
  w.BeginArray();
  for (const auto& s : d.steps) {
    w.BeginObject();
    w.Member("step", s.step);
    w.Member("cpu_ms", s.cpu_ns ? std::optional<double>(*s.cpu_ns / kNsPerMs) : std::nullopt);
    w.Member("gpu_kernel_ms", s.gpu_kernel_ns / kNsPerMs);
    w.EndObject();
  }
  w.EndArray();
  w.Key("step_breakdowns");
  w.BeginArray();
  for (const auto& s : d.step_breakdowns) {
    w.BeginObject();
    w.Member("step", s.step);
    w.Member("gpu_ops", s.gpu_ops);
    w.Member("span_ms", s.span_ns / kNsPerMs);
    w.Member("busy_ms", s.busy_ns / kNsPerMs);
    w.Member("idle_ms", s.idle_ns / kNsPerMs);
    w.Member("computation_ms", s.classes.computation_ns / kNsPerMs);
    w.Member("communication_ms", s.classes.communication_ns / kNsPerMs);
    w.Member("memory_ms", s.classes.memory_ns / kNsPerMs);
    w.Member("comm_comp_overlap_pct", s.classes.comm_comp_overlap_pct);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void RanksJson(JsonWriter& w, const analysis::RankComparison& ranks) {
  w.Key("ranks");
  w.BeginObject();
  w.Member("processes", ranks.processes);
  w.Key("quantities");
  w.BeginArray();
  for (const auto& q : ranks.quantities) {
    w.BeginObject();
    w.Member("quantity", q.quantity);
    w.Member("min", q.min);
    w.Member("median", q.median);
    w.Member("max", q.max);
    w.Member("min_process", q.min_process);
    w.Member("max_process", q.max_process);
    w.EndObject();
  }
  w.EndArray();
  w.Key("steps");
  w.BeginArray();
  for (const auto& s : ranks.steps) {
    w.BeginObject();
    w.Member("step", s.step);
    w.Member("ranks", s.ranks);
    w.Member("min_cpu_ms", s.min_cpu_ms);
    w.Member("median_cpu_ms", s.median_cpu_ms);
    w.Member("max_cpu_ms", s.max_cpu_ms);
    w.Member("slowest_process", s.slowest_process);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void CpuOpsJson(JsonWriter& w, const model::GpuBreakdown& b) {
  w.Key("cpu_ops");
  w.BeginArray();
  for (const auto& op : b.cpu_ops) {
    w.BeginObject();
    w.Member("source", op.source);
    WriteProcessMembers(w, op.process);
    w.Member("name", op.name);
    w.Member("calls", op.calls);
    w.Member("cpu_ms", op.cpu_ns / kNsPerMs);
    w.Member("gpu_self_ms", op.gpu_self_ns / kNsPerMs);
    w.Member("gpu_total_ms", op.gpu_total_ns / kNsPerMs);
    w.Member("kernels", op.kernels);
    w.EndObject();
  }
  w.EndArray();
}

// One line per kernel the breakdown classes differently from kernels.md.
void ClassDifferencesMd(const GpuBreakdownReport& r, std::string& md) {
  if (r.class_differences.empty()) return;
  md += fmt::format(
      "\n## Kernels classed differently from kernels.md\n\nThis breakdown classes kernels by HTA's name rule "
      "(so its numbers compare with HTA's); kernels.md's categories use pattern rules (docs/analysis.md). {} "
      "kernel name(s) fall in a different class:\n\n",
      r.class_differences_total);
  for (const auto& d : r.class_differences) {
    md += fmt::format("- `{}`: kernels.md {}, here {}: {}.\n", MdCell(d.name, 100), d.category, d.klass, d.why);
  }
  if (r.class_differences_total > r.class_differences.size()) {
    md += fmt::format("- and {} more.\n", r.class_differences_total - r.class_differences.size());
  }
}

}  // namespace

std::string GpuBreakdownMarkdown(const GpuBreakdownReport& report) {
  std::string md = "# GPU breakdown\n\n";
  md +=
      "Per rank (process) and device, from the trace's GPU ops (kernels, copies, sets) in exact integer "
      "nanoseconds. Busy is the union of their intervals, never a sum; computation, communication and memory are "
      "the unions of each class by HTA's name rules (docs/import.md, which also lists the differences from HTA).\n\n";
  TemporalMd(report.breakdown, md);
  KernelTypesMd(report.breakdown, md);
  StepsMd(report.breakdown, md);
  LaunchesMd(report.breakdown, md);
  RanksMd(report.ranks, md);
  CpuOpsMd(report, md);
  ClassDifferencesMd(report, md);
  return md;
}

void WriteGpuBreakdownJson(const GpuBreakdownReport& report, std::ostream& sink) {
  std::string out;
  JsonWriter w(out, sink);
  w.BeginObject();
  w.Member("schema_version", "2.1.0");  // 2: launch statistics in ms (were *_us); 2.1: step_breakdowns
  w.Key("devices");
  w.BeginArray();
  for (const auto& d : report.breakdown.devices) DeviceJson(w, d);
  w.EndArray();
  RanksJson(w, report.ranks);
  CpuOpsJson(w, report.breakdown);
  w.EndObject();
  out += '\n';
  w.Flush();
}

}  // namespace llmpo::report
