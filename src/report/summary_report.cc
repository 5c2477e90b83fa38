#include "src/report/summary_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "src/report/text_format.h"

namespace llmpo::report {
namespace {

constexpr std::size_t kTopKernels = 10;
constexpr double kBoundMargin = 5.0;  // percentage points, the original tool's rule

double TotalNs(const KernelsReport& k) {
  double total = 0;
  for (const auto& kernel : k.kernels) total += kernel.total_ns;
  return total;
}

// SM vs DRAM throughput (% of peak): more than 5 points apart decides.
std::string Boundness(const analysis::KernelAggregate& k) {
  const auto sm = k.FirstValue(analysis::kSmThroughputPct);
  const auto dram = k.FirstValue(analysis::kDramThroughputPct);
  if (!sm || !dram) return "unknown";
  if (*sm - *dram > kBoundMargin) return "compute-bound";
  if (*dram - *sm > kBoundMargin) return "memory-bound";
  return "balanced";
}

// Kernels by name over all inputs and scopes, largest total first.
std::vector<analysis::KernelAggregate> TopKernels(const KernelsReport& k) {
  std::map<std::string, analysis::KernelAggregate> by_name;
  for (const auto& kernel : k.kernels) analysis::MergeKernel(by_name[kernel.name], kernel);
  std::vector<analysis::KernelAggregate> all;
  for (auto& [name, kernel] : by_name) all.push_back(std::move(kernel));
  analysis::SortByTime(all);
  if (all.size() > kTopKernels) all.resize(kTopKernels);
  return all;
}

// A run can hold the same kernels from several sources (nsys or our tracer,
// and ncu); summed together they would count twice. The summary takes its
// times from one: a timeline when there is one (whole-run, unserialised
// durations), else the first source; kernels there borrow the metrics they
// lack (SM/DRAM throughput, occupancy) from same-named kernels of the others.
bool IsTimeline(const std::string& format) { return format == "nsys-sqlite" || format == "llmpo-trace"; }

KernelsReport TimesFromOneSource(const KernelsReport& all, std::string* source) {
  source->clear();
  for (const auto& s : all.sources) {
    if (s.status == "ok" && IsTimeline(s.format)) *source = s.path;
  }
  if (source->empty() && !all.kernels.empty()) *source = all.kernels.front().source;
  KernelsReport one;
  one.sources = all.sources;
  for (const auto& k : all.kernels) {
    if (k.source == *source) one.kernels.push_back(k);
  }
  for (auto& k : one.kernels) {
    for (const auto& other : all.kernels) {
      if (other.source == *source || other.name != k.name) continue;
      for (const auto& m : other.metrics) {
        if (k.FindMetric(m.section, m.name) == nullptr) k.metrics.push_back(m);
      }
    }
  }
  return one;
}

void Stages(std::string& out, const RegionsReport* regions) {
  out += "\n## Per-Stage Timings\n\n";
  if (regions == nullptr || !regions->aggregate || regions->aggregate->empty()) {
    out += "No NVTX regions in this run: add ranges around the phases (prefill, decode, layers) to see them here.\n";
    return;
  }
  double top_total = 0;
  for (const auto& e : *regions->aggregate) {
    if (e.region->depth == 0) top_total += e.region->TotalNs();
  }
  out += "Top-level NVTX regions, GPU time of the kernels inside each (regions may overlap).\n\n";
  out += "| Region | Total (ms) | Share | Launches |\n|---|---:|---:|---:|\n";
  for (const auto& e : *regions->aggregate) {
    if (e.region->depth != 0) continue;
    const double share = top_total > 0 ? 100.0 * e.region->TotalNs() / top_total : 0;
    out += fmt::format("| {} | {} | {:.1f} % | {} |\n", MdCell(e.region->label), MsText(e.region->TotalNs()), share,
                       e.region->launches);
  }
}

const analysis::Region* FindRegion(const RegionsReport& regions, const std::string& path) {
  for (const auto& e : *regions.aggregate) {
    if (fmt::format("{}", fmt::join(e.region->path, "/")) == path) return e.region;
  }
  return nullptr;
}

// Model FLOPs utilisation per configured region: FLOPs / (GPU time x peak).
void Mfu(std::string& out, const RunContext& run, const RegionsReport* regions) {
  out += "\n## MFU\n\n";
  if (run.region_flops.empty()) {
    out +=
        "Not computed: set `model.flops` (FLOPs done inside an NVTX region over the run, by region path) and "
        "`pipeline.mfu.peak_tflops` (the GPU's dense peak for the model's precision); see docs/profile.md.\n";
    return;
  }
  if (regions == nullptr || !regions->aggregate) {
    out += "Not computed: `model.flops` is set, but this run has no NVTX region report (aggregate scope).\n";
    return;
  }
  out += "| Region | GFLOP | GPU time (ms) | Achieved TFLOP/s | MFU |\n|---|---:|---:|---:|---:|\n";
  for (const auto& [path, flops] : run.region_flops) {
    const analysis::Region* r = FindRegion(*regions, path);
    if (r == nullptr || r->TotalNs() <= 0) {
      out += fmt::format("| {} | {:.3f} | n/a | n/a | {} |\n", MdCell(path), flops * 1e-9,
                         r == nullptr ? "region not in this run" : "no GPU time");
      continue;
    }
    const double tflops = flops / (r->TotalNs() * 1e-9) / 1e12;
    const std::string mfu = run.peak_tflops ? fmt::format("{:.2f} %", 100.0 * tflops / *run.peak_tflops) : "n/a";
    out += fmt::format("| {} | {:.3f} | {} | {:.3f} | {} |\n", MdCell(path), flops * 1e-9, MsText(r->TotalNs()), tflops,
                       mfu);
  }
  out += run.peak_tflops ? fmt::format("\nPeak: {:g} TFLOP/s (pipeline.mfu.peak_tflops). ", *run.peak_tflops)
                         : "\nMFU needs `pipeline.mfu.peak_tflops`. ";
  out +=
      "GPU time is the region's measured range time, or else the sum of its kernels' durations (ncu serialises "
      "kernels, so gaps between them are not counted and this MFU is an upper bound on wall-clock MFU).\n";
}

void Recommendations(std::string& out, const KernelsReport& kernels, const RegionsReport* regions) {
  out += "\n## Recommendations\n\n";
  const double total = TotalNs(kernels);
  const auto top = TopKernels(kernels);
  std::vector<std::string> lines;
  if (!top.empty() && total > 0) {
    const double share = 100.0 * top[0].total_ns / total;
    lines.push_back(
        fmt::format("Start with `{}`: {:.1f} % of GPU time ({} calls).", MdCell(top[0].name, 80), share, top[0].calls));
  }
  std::size_t memory = 0, compute = 0;
  for (const auto& k : top) {
    const std::string b = Boundness(k);
    memory += b == "memory-bound";
    compute += b == "compute-bound";
  }
  if (memory > 0) {
    lines.push_back(
        fmt::format("{} of the top kernels are memory-bound: cut bytes moved (fuse elementwise ops, "
                    "lower precision, reuse data in shared memory/L2).",
                    memory));
  }
  if (compute > 0) {
    lines.push_back(
        fmt::format("{} of the top kernels are compute-bound: use tensor cores (bf16/fp16/fp8 GEMMs) and "
                    "check occupancy.",
                    compute));
  }
  if (memory == 0 && compute == 0) {
    lines.push_back("Collect SpeedOfLight (SM and DRAM throughput) to classify kernels as compute- or memory-bound.");
  }
  if (regions == nullptr || !regions->aggregate || regions->aggregate->empty()) {
    lines.push_back("Add NVTX ranges (prefill, decode, per layer) to attribute time to phases.");
  }
  lines.push_back(
      "Confirm findings over at least three runs; ncu serialises kernels and may lock clocks, so compare "
      "ncu times with ncu times only.");
  for (const auto& l : lines) out += "- " + l + "\n";
}

}  // namespace

std::string StakeholderSummary(const RunContext& run, const KernelsReport& all_kernels, const RegionsReport* regions) {
  std::string source;
  const KernelsReport kernels = TimesFromOneSource(all_kernels, &source);
  std::string out = "# Stakeholder Summary\n\n## Environment\n\n";
  out += fmt::format("- Run: {}\n- GPU: {}\n- Workload: `{}`\n", run.run_name, run.gpu.empty() ? "unknown" : run.gpu,
                     fmt::join(run.workload, " "));
  if (!source.empty()) out += fmt::format("- Kernel times from: `{}`\n", source);
  const double total = TotalNs(kernels);
  std::uint64_t calls = 0;
  for (const auto& k : kernels.kernels) calls += k.calls;
  out += fmt::format(
      "\n## Aggregates\n\n| Metric | Value |\n|---|---:|\n| GPU kernel time (ms) | {} |\n| Kernel "
      "launches | {} |\n| Distinct kernels | {} |\n",
      MsText(total), calls, kernels.kernels.size());
  Stages(out, regions);
  Mfu(out, run, regions);
  out += "\n## Top Kernels\n\n";
  const auto top = TopKernels(kernels);
  if (top.empty()) {
    out += "No kernel records in this run.\n";
  } else {
    out += "| Kernel | Total (ms) | Share | Calls | Mean (ms) | Bound |\n|---|---:|---:|---:|---:|---|\n";
    for (const auto& k : top) {
      out += fmt::format("| {} | {} | {:.1f} % | {} | {} | {} |\n", MdCell(k.name, 80), MsText(k.total_ns),
                         total > 0 ? 100.0 * k.total_ns / total : 0.0, k.calls,
                         k.timed_calls ? MsText(k.MeanNs()) : "n/a", Boundness(k));
    }
    out += fmt::format(
        "\nBound: SM vs DRAM throughput (% of peak); more than {:.0f} points apart decides, else "
        "balanced; unknown without both metrics.\n",
        kBoundMargin);
  }
  Recommendations(out, kernels, regions);
  return out;
}

std::string RunReportMarkdown(const RunContext& run, const KernelsReport& all_kernels, const RegionsReport* regions) {
  std::string source;
  const KernelsReport kernels = TimesFromOneSource(all_kernels, &source);
  std::string out = fmt::format("# Deep Profiling Report\n\n- Run: {}\n- Workload: `{}`\n", run.run_name,
                                fmt::join(run.workload, " "));
  out += "\n## Steps\n\n| Step | Status | Exit | Note |\n|---|---|---:|---|\n";
  for (const auto& s : run.steps) {
    out += fmt::format("| {} | {} | {} | {} |\n", MdCell(s.name), MdCell(s.status),
                       s.exit_code ? std::to_string(*s.exit_code) : "", MdCell(s.reason, 200));
  }
  out += fmt::format("\n## Results\n\n- GPU kernel time: {} ms over {} distinct kernels{}\n", MsText(TotalNs(kernels)),
                     kernels.kernels.size(), source.empty() ? "" : fmt::format(" (from `{}`)", source));
  if (regions && regions->aggregate) out += fmt::format("- NVTX regions: {}\n", regions->aggregate->size());
  out += "\n## Reports\n\n";
  for (const auto& f : run.files) out += fmt::format("- [{}]({})\n", f, f);
  return out;
}

}  // namespace llmpo::report
