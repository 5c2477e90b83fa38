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
  out +=
      "Top-level NVTX regions: GPU kernel time of the kernels inside each (regions may overlap), its share of all "
      "top-level regions' time, and the input the region numbers come from (a region report takes each quantity "
      "from one input: timeline > ncu > nsys summary, docs/regions.md).\n\n";
  out += "| Region | GPU kernel time (ms) | Share of top-level regions | Launches | From |\n|---|---:|---:|---:|---|\n";
  if (!m.stages.empty() && !m.stages.front().share_known) {
    out +=
        "No shares: these regions come from an nsys summary, which does not say how the ranges nest, so nested "
        "ranges are listed as top-level and their times overlap.\n\n";
  }
  for (const auto& s : m.stages) {
    out += fmt::format("| {} | {} | {} | {} | {} |\n", MdCell(s.label), MsText(s.gpu_kernel_ns),
                       s.gpu_kernel_ns && s.share_known ? fmt::format("{:.1f} %", s.share_pct) : "n/a",
                       CountText(s.launches), s.from.empty() ? "n/a" : MdCell(s.from, 80));
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
      out +=
          fmt::format("| {} | {:.3f} | n/a | n/a | {} |\n", MdPathCell(row.region_path), row.flops * 1e-9, row.missing);
      continue;
    }
    const std::string mfu = row.mfu_pct ? fmt::format("{:.2f} %", *row.mfu_pct) : "n/a";
    out += fmt::format("| {} | {:.3f} | {} | {:.3f} | {} |\n", MdPathCell(row.region_path), row.flops * 1e-9,
                       MsText(row.gpu_kernel_ns), *row.achieved_tflops, mfu);
  }
  out += m.run.peak_tflops ? fmt::format("\nPeak: {:g} TFLOP/s (pipeline.mfu.peak_tflops). ", *m.run.peak_tflops)
                           : "\nMFU needs `pipeline.mfu.peak_tflops`. ";
  out +=
      "GPU time is the region's measured range time, or else the sum of its kernels' durations (ncu serialises "
      "kernels, so gaps between them are not counted and this MFU is an upper bound on wall-clock MFU).\n";
}

void Mbu(std::string& out, const RunModel& m) {
  if (m.mbu.empty()) return;
  out += "\n## MBU\n\n| Region | GB read | GPU time (ms) | Achieved GB/s | MBU |\n|---|---:|---:|---:|---:|\n";
  for (const auto& row : m.mbu) {
    if (!row.achieved_gbps) {
      out +=
          fmt::format("| {} | {:.3f} | n/a | n/a | {} |\n", MdPathCell(row.region_path), row.bytes * 1e-9, row.missing);
      continue;
    }
    out += fmt::format("| {} | {:.3f} | {} | {:.1f} | {} |\n", MdPathCell(row.region_path), row.bytes * 1e-9,
                       MsText(row.gpu_kernel_ns), *row.achieved_gbps,
                       row.mbu_pct ? fmt::format("{:.2f} %", *row.mbu_pct) : "n/a");
  }
  out += m.run.peak_gbps ? fmt::format("\nPeak: {:g} GB/s (pipeline.mfu.peak_bandwidth_gbps). ", *m.run.peak_gbps)
                         : "\nMBU needs `pipeline.mfu.peak_bandwidth_gbps`. ";
  out += "Bytes from `model.bytes`; GPU time as for MFU.\n";
}

void Serving(std::string& out, const RunModel& m) {
  const auto& s = m.serving;
  if (!s.ttft_ns && !s.tpot_ns) return;
  out += "\n## Serving metrics (from NVTX regions)\n\n| Metric | Value | From |\n|---|---:|---|\n";
  out += fmt::format(
      "| TTFT (ms), mean `{}` time | {} | {} |\n", MdCell(m.run.prefill_region), s.ttft_ns ? MsText(*s.ttft_ns) : "n/a",
      s.ttft_ns ? fmt::format("{} over {} instances", s.ttft_from, s.prefill_instances) : s.ttft_missing);
  out += fmt::format("| TPOT (ms), mean `{}` step | {} | {} |\n", MdCell(m.run.decode_region),
                     s.tpot_ns ? MsText(*s.tpot_ns) : "n/a",
                     s.tpot_ns ? fmt::format("{} over {} steps", s.tpot_from, s.decode_steps) : s.tpot_missing);
  out += fmt::format("| Tokens/s ({:g} per step) | {} | 1 / TPOT x tokens per step |\n", m.run.tokens_per_step,
                     s.tokens_per_s ? fmt::format("{:.1f}", *s.tokens_per_s) : "n/a");
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
      "\nBound: ncu's SOLBottleneck decision from SM and memory throughput (% of peak) and waves per SM "
      "(docs/analysis.md); unknown without those metrics.\n";
}

}  // namespace

std::string StakeholderSummary(const RunModel& m) {
  const RunContext& run = m.run;
  std::string out = "# Stakeholder Summary\n\n## Environment\n\n";
  out += fmt::format("- Run: {}\n- GPU: {}\n- Workload: `{}`\n", run.run_name, run.gpu.empty() ? "unknown" : run.gpu,
                     fmt::join(run.workload, " "));
  if (!m.times_from.empty()) out += fmt::format("- Kernel times from: `{}`\n", m.times_from);
  out += fmt::format(
      "\n## Aggregates\n\n| Metric | Value |\n|---|---:|\n| GPU kernel time (ms) | {} |\n| Kernel "
      "launches | {} |\n| Distinct kernels | {} |\n",
      m.times_from.empty() ? "n/a" : MsText(m.gpu_kernel_ns),
      m.times_from.empty() ? "n/a" : fmt::format("{}", m.launches),
      m.times_from.empty() ? "n/a" : fmt::format("{}", m.distinct_kernels));
  Stages(out, m);
  Mfu(out, m);
  Mbu(out, m);
  Serving(out, m);
  TopKernels(out, m);
  RankedActionsMd(out, m.ranked);
  out += "\n## Notes\n\n";
  for (const auto& l : m.recommendations) out += "- " + l + "\n";
  return out;
}

std::string RunReportMarkdown(const RunModel& m) {
  const RunContext& run = m.run;
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
