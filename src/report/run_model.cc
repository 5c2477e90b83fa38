#include "src/report/run_model.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

#include "src/report/text_format.h"

namespace llmpo::report {
namespace {

constexpr std::size_t kTopKernels = 10;
constexpr double kBoundMargin = 5.0;  // percentage points, the original tool's rule

// SM vs DRAM throughput (% of peak): more than 5 points apart decides.
std::string Boundness(const analysis::KernelAggregate& k) {
  const auto sm = k.FirstValue(analysis::kSmThroughputPct);
  const auto dram = k.FirstValue(analysis::kDramThroughputPct);
  if (!sm || !dram) return "unknown";
  if (*sm - *dram > kBoundMargin) return "compute-bound";
  if (*dram - *sm > kBoundMargin) return "memory-bound";
  return "balanced";
}

}  // namespace

// A run can hold the same kernels from several inputs (nsys or our tracer,
// and ncu); summed together they would count twice. Times come from one: a
// timeline when there is one (whole-run, unserialised durations), else the
// first input; its kernels borrow the metrics they lack (SM/DRAM throughput,
// occupancy) from same-named kernels of the others.
std::vector<analysis::KernelAggregate> TimesFromOneSource(const KernelsReport& all, std::string* source) {
  source->clear();
  for (const auto& s : all.sources) {
    if (s.status == "ok" && s.family == model::SourceFamily::kTimeline) *source = s.path;
  }
  if (source->empty() && !all.kernels.empty()) *source = all.kernels.front().source;
  std::vector<analysis::KernelAggregate> one;
  for (const auto& k : all.kernels) {
    if (k.source == *source) one.push_back(k);
  }
  for (auto& k : one) {
    for (const auto& other : all.kernels) {
      if (other.source == *source || other.name != k.name) continue;
      for (const auto& m : other.metrics) {
        if (k.FindMetric(m.section, m.name) == nullptr) k.metrics.push_back(m);
      }
    }
  }
  return one;
}

namespace {

// Kernels by name over processes and devices, largest total first.
std::vector<analysis::KernelAggregate> ByName(const std::vector<analysis::KernelAggregate>& kernels) {
  std::map<std::string, analysis::KernelAggregate> by_name;
  for (const auto& kernel : kernels) analysis::MergeKernel(by_name[kernel.name], kernel);
  std::vector<analysis::KernelAggregate> all;
  for (auto& [name, kernel] : by_name) all.push_back(std::move(kernel));
  analysis::SortByTime(all);
  return all;
}

void Stages(RunModel& m, const RegionsReport& regions) {
  double top_total = 0;
  for (const auto& e : *regions.aggregate) {
    if (e.region->depth == 0) top_total += e.region->TotalNs();
  }
  for (const auto& e : *regions.aggregate) {
    if (e.region->depth != 0) continue;
    m.stages.push_back(StageRow{e.region->label, e.region->total_ns,
                                top_total > 0 ? 100.0 * e.region->TotalNs() / top_total : 0, e.region->launches});
  }
}

const analysis::Region* FindRegion(const RegionsReport& regions, const std::string& path) {
  for (const auto& e : *regions.aggregate) {
    if (fmt::format("{}", fmt::join(e.region->path, "/")) == path) return e.region;
  }
  return nullptr;
}

// Model FLOPs utilisation per configured region: FLOPs / (GPU time x peak).
void Mfu(RunModel& m, const RunContext& run, const RegionsReport* regions) {
  m.mfu_configured = !run.region_flops.empty();
  if (!m.mfu_configured) return;
  if (regions == nullptr || !regions->aggregate) {
    m.mfu_without_regions = true;
    return;
  }
  for (const auto& [path, flops] : run.region_flops) {
    MfuRow row{path, flops, std::nullopt, "", std::nullopt, std::nullopt};
    const analysis::Region* r = FindRegion(*regions, path);
    if (r == nullptr || !r->total_ns || *r->total_ns <= 0) {
      row.missing = r == nullptr ? "region not in this run" : "no GPU time";
    } else {
      row.gpu_kernel_ns = *r->total_ns;
      row.achieved_tflops = flops / (*r->total_ns * 1e-9) / 1e12;
      if (run.peak_tflops) row.mfu_pct = 100.0 * *row.achieved_tflops / *run.peak_tflops;
    }
    m.mfu.push_back(std::move(row));
  }
}

void Recommendations(RunModel& m, const RegionsReport* regions) {
  auto& lines = m.recommendations;
  if (!m.top_kernels.empty() && m.gpu_kernel_ns > 0) {
    const auto& top = m.top_kernels[0];
    lines.push_back(fmt::format("Start with `{}`: {:.1f} % of GPU time ({} calls).", MdCell(top.kernel.name, 80),
                                top.share_pct, top.kernel.calls));
  }
  std::size_t memory = 0, compute = 0;
  for (const auto& k : m.top_kernels) {
    memory += k.bound == "memory-bound";
    compute += k.bound == "compute-bound";
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
}

}  // namespace

RunModel BuildRunModel(const RunContext& run, const KernelsReport& kernels, const RegionsReport* regions) {
  RunModel m;
  m.run = run;
  const auto timed = TimesFromOneSource(kernels, &m.times_from);
  for (const auto& k : timed) {
    m.gpu_kernel_ns += k.total_ns;
    m.launches += k.calls;
  }
  m.distinct_kernels = timed.size();
  auto by_name = ByName(timed);
  if (by_name.size() > kTopKernels) by_name.resize(kTopKernels);
  for (auto& k : by_name) {
    const double share = m.gpu_kernel_ns > 0 ? 100.0 * k.total_ns / m.gpu_kernel_ns : 0.0;
    const std::string bound = Boundness(k);
    m.top_kernels.push_back(TopKernel{std::move(k), share, bound});
  }
  m.has_regions = regions != nullptr && regions->aggregate && !regions->aggregate->empty();
  if (regions != nullptr && regions->aggregate) m.region_count = regions->aggregate->size();
  if (m.has_regions) Stages(m, *regions);
  Mfu(m, run, regions);
  Recommendations(m, regions);
  return m;
}

}  // namespace llmpo::report
