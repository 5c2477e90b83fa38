#include "src/report/summary_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "src/report/run_model.h"
#include "src/report/text_format.h"

namespace llmpo::report {
namespace {

void Stages(std::string& out, const RunModel& m) {
  out += "\n## Per-Stage Timings\n\n";
  if (!m.has_regions) {
    out += "No NVTX regions in this run: add ranges around the phases (prefill, decode, layers) to see them here.\n";
    return;
  }
  out += "Top-level NVTX regions, GPU time of the kernels inside each (regions may overlap).\n\n";
  out += "| Region | Total (ms) | Share | Launches |\n|---|---:|---:|---:|\n";
  for (const auto& s : m.stages) {
    out +=
        fmt::format("| {} | {} | {:.1f} % | {} |\n", MdCell(s.label), MsText(s.gpu_kernel_ns), s.share_pct, s.launches);
  }
}

void Mfu(std::string& out, const RunModel& m) {
  out += "\n## MFU\n\n";
  if (!m.mfu_configured) {
    out +=
        "Not computed: set `model.flops` (FLOPs done inside an NVTX region over the run, by region path) and "
        "`pipeline.mfu.peak_tflops` (the GPU's dense peak for the model's precision); see docs/profile.md.\n";
    return;
  }
  if (m.mfu_without_regions) {
    out += "Not computed: `model.flops` is set, but this run has no NVTX region report (aggregate scope).\n";
    return;
  }
  out += "| Region | GFLOP | GPU time (ms) | Achieved TFLOP/s | MFU |\n|---|---:|---:|---:|---:|\n";
  for (const auto& row : m.mfu) {
    if (!row.achieved_tflops) {
      out += fmt::format("| {} | {:.3f} | n/a | n/a | {} |\n", MdCell(row.region_path), row.flops * 1e-9, row.missing);
      continue;
    }
    const std::string mfu = row.mfu_pct ? fmt::format("{:.2f} %", *row.mfu_pct) : "n/a";
    out += fmt::format("| {} | {:.3f} | {} | {:.3f} | {} |\n", MdCell(row.region_path), row.flops * 1e-9,
                       MsText(row.gpu_kernel_ns), *row.achieved_tflops, mfu);
  }
  out += m.run.peak_tflops ? fmt::format("\nPeak: {:g} TFLOP/s (pipeline.mfu.peak_tflops). ", *m.run.peak_tflops)
                           : "\nMFU needs `pipeline.mfu.peak_tflops`. ";
  out +=
      "GPU time is the region's measured range time, or else the sum of its kernels' durations (ncu serialises "
      "kernels, so gaps between them are not counted and this MFU is an upper bound on wall-clock MFU).\n";
}

void TopKernels(std::string& out, const RunModel& m) {
  out += "\n## Top Kernels\n\n";
  if (m.top_kernels.empty()) {
    out += "No kernel records in this run.\n";
    return;
  }
  out += "| Kernel | Total (ms) | Share | Calls | Mean (ms) | Bound |\n|---|---:|---:|---:|---:|---|\n";
  for (const auto& t : m.top_kernels) {
    const auto& k = t.kernel;
    out += fmt::format("| {} | {} | {:.1f} % | {} | {} | {} |\n", MdCell(k.name, 80), MsText(k.total_ns), t.share_pct,
                       k.calls, k.timed_calls ? MsText(k.MeanNs()) : "n/a", t.bound);
  }
  out +=
      "\nBound: SM vs DRAM throughput (% of peak); more than 5 points apart decides, else "
      "balanced; unknown without both metrics.\n";
}

}  // namespace

std::string StakeholderSummary(const RunContext& run, const KernelsReport& all_kernels, const RegionsReport* regions) {
  const RunModel m = BuildRunModel(run, all_kernels, regions);
  std::string out = "# Stakeholder Summary\n\n## Environment\n\n";
  out += fmt::format("- Run: {}\n- GPU: {}\n- Workload: `{}`\n", run.run_name, run.gpu.empty() ? "unknown" : run.gpu,
                     fmt::join(run.workload, " "));
  if (!m.times_from.empty()) out += fmt::format("- Kernel times from: `{}`\n", m.times_from);
  out += fmt::format(
      "\n## Aggregates\n\n| Metric | Value |\n|---|---:|\n| GPU kernel time (ms) | {} |\n| Kernel "
      "launches | {} |\n| Distinct kernels | {} |\n",
      MsText(m.gpu_kernel_ns), m.launches, m.distinct_kernels);
  Stages(out, m);
  Mfu(out, m);
  TopKernels(out, m);
  out += "\n## Recommendations\n\n";
  for (const auto& l : m.recommendations) out += "- " + l + "\n";
  return out;
}

std::string RunReportMarkdown(const RunContext& run, const KernelsReport& all_kernels, const RegionsReport* regions) {
  const RunModel m = BuildRunModel(run, all_kernels, regions);
  std::string out = fmt::format("# Deep Profiling Report\n\n- Run: {}\n- Workload: `{}`\n", run.run_name,
                                fmt::join(run.workload, " "));
  out += "\n## Steps\n\n| Step | Status | Exit | Note |\n|---|---|---:|---|\n";
  for (const auto& s : run.steps) {
    out += fmt::format("| {} | {} | {} | {} |\n", MdCell(s.name), MdCell(s.status),
                       s.exit_code ? std::to_string(*s.exit_code) : "", MdCell(s.reason, 200));
  }
  out += fmt::format("\n## Results\n\n- GPU kernel time: {} ms over {} distinct kernels{}\n", MsText(m.gpu_kernel_ns),
                     m.distinct_kernels, m.times_from.empty() ? "" : fmt::format(" (from `{}`)", m.times_from));
  if (m.region_count) out += fmt::format("- NVTX regions: {}\n", *m.region_count);
  out += "\n## Reports\n\n";
  for (const auto& f : run.files) out += fmt::format("- [{}]({})\n", f, f);
  return out;
}

}  // namespace llmpo::report
