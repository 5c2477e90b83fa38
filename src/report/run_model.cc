#include "src/report/run_model.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>

#include "src/analysis/model_utilization.h"
#include "src/analysis/serving_metrics.h"
#include "src/report/text_format.h"

namespace llmpo::report {
namespace {

constexpr std::size_t kTopKernels = 10;

std::vector<std::pair<std::string, double>> CategoryTimes(const InsightsByName& insights,
                                                          const std::vector<analysis::KernelAggregate>& timed) {
  std::map<std::string, double> by;
  for (const auto& k : timed) {
    const std::string category = insights.Category(k.name);
    if (category.empty()) return {};  // not categorised: no table rather than a partial one
    by[category] += k.total_ns;
  }
  std::vector<std::pair<std::string, double>> out(by.begin(), by.end());
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return out;
}

std::vector<RooflinePoint> RooflinePoints(const KernelsReport& all) {
  std::vector<RooflinePoint> out;
  for (std::size_t i = 0; i < all.kernels.size(); ++i) {
    if (!all.kernels[i].insight) continue;
    for (const auto& p : all.kernels[i].insight->roofline.precisions) {
      for (const auto& level : p.levels) {
        if (level.level != "DRAM" || !level.intensity || !p.achieved_per_s) continue;
        if (*level.intensity <= 0 || *p.achieved_per_s <= 0) continue;  // no point on a log scale
        // Tensor paths have their own peaks (mma.sync, wgmma, sparse): one roof each.
        std::string precision = p.precision;
        if (!p.instruction.empty()) precision += " (" + p.instruction + (p.sparse ? ", sparse)" : ")");
        out.push_back(RooflinePoint{
            all.kernels[i].name, precision, *level.intensity, *p.achieved_per_s, p.peak_per_s, level.peak_bytes_per_s,
            all.kernels[i].timed_calls > 0 ? std::optional(all.kernels[i].total_ns) : std::nullopt});
      }
    }
  }
  return out;
}

}  // namespace

// A run can hold the same kernels from several inputs (nsys or our tracer,
// and ncu); summed together they would count twice. Times come from one: a
// timeline when there is one (whole-run, unserialised durations), else the
// first input; its kernels borrow the metrics they lack (SM/DRAM throughput,
// occupancy) from same-named kernels of the others.
namespace {

// Each timed kernel takes the metrics it lacks (SM/DRAM throughput,
// occupancy) from the same-named kernels not timed (ncu's).
void BorrowMetrics(std::vector<analysis::KernelAggregate>& timed,
                   const std::unordered_map<std::string_view, std::vector<const analysis::KernelAggregate*>>& others) {
  for (auto& k : timed) {
    const auto same_name = others.find(k.name);
    if (same_name == others.end()) continue;
    for (const analysis::KernelAggregate* other : same_name->second) {
      for (const auto& m : other->metrics) {
        if (k.FindMetric(m.section, m.name) == nullptr) k.metrics.push_back(m);
      }
    }
  }
}

}  // namespace

std::vector<analysis::KernelAggregate> TimesFromOneSource(const KernelsReport& all, std::string* source) {
  *source = TimingSource(all);
  std::vector<analysis::KernelAggregate> one;
  std::unordered_map<std::string_view, std::vector<const analysis::KernelAggregate*>> others;  // by name, in order
  for (const auto& k : all.kernels) {
    if (k.source == *source) {
      one.push_back(k);
    } else {
      others[k.name].push_back(&k);
    }
  }
  BorrowMetrics(one, others);
  return one;
}

std::vector<analysis::KernelAggregate> TimesFromEachRank(const KernelsReport& all, std::string* source) {
  const TimingChoice timing = TimingChoice::Of(all);
  *source = timing.label();
  std::vector<analysis::KernelAggregate> timed;
  std::unordered_map<std::string_view, std::vector<const analysis::KernelAggregate*>> others;
  for (const auto& k : all.kernels) {
    if (timing.Times(k.source, k.process.rank)) {
      timed.push_back(k);
    } else {
      others[k.name].push_back(&k);
    }
  }
  BorrowMetrics(timed, others);
  return timed;
}

InsightsByName::InsightsByName(const KernelsReport& all) : all_(all) {
  for (std::size_t i = 0; i < all.kernels.size(); ++i) {
    if (!all.kernels[i].insight) continue;
    const std::string& name = all.kernels[i].name;
    first_.try_emplace(name, i);
    if (all.kernels[i].insight->bound.cls != analysis::BoundClass::kUnknown) first_bound_.try_emplace(name, i);
  }
}

std::string InsightsByName::Bound(const std::string& name) const {
  const auto it = first_bound_.find(name);
  return it == first_bound_.end() ? "unknown"
                                  : std::string(analysis::ToString(all_.kernels[it->second].insight->bound.cls));
}

std::string InsightsByName::Category(const std::string& name) const {
  const auto it = first_.find(name);
  return it == first_.end() ? "" : all_.kernels[it->second].insight->category;
}

std::vector<analysis::KernelAggregate> ByName(const std::vector<analysis::KernelAggregate>& kernels) {
  std::map<std::string, analysis::KernelAggregate> by_name;
  for (const auto& kernel : kernels) analysis::MergeKernel(by_name[kernel.name], kernel);
  std::vector<analysis::KernelAggregate> all;
  for (auto& [name, kernel] : by_name) all.push_back(std::move(kernel));
  analysis::SortByTime(all);
  return all;
}

namespace {

void Stages(RunModel& m, const RegionsReport& regions) {
  double top_total = 0;
  for (const auto& e : *regions.aggregate) {
    if (e.region->depth == 0) top_total += e.region->TotalNs();
  }
  bool flat = false;  // nsys summary regions: nesting unknown, all at depth 0
  for (const auto& e : *regions.aggregate) flat = flat || e.region->kind == analysis::RegionKind::kSummary;
  for (const auto& e : *regions.aggregate) {
    if (e.region->depth != 0) continue;
    StageRow row;
    row.label = e.region->label;
    row.gpu_kernel_ns = e.region->total_ns;
    row.share_pct = top_total > 0 ? 100.0 * e.region->TotalNs() / top_total : 0;
    row.share_known = !flat;
    row.launches = e.region->KnownLaunches();
    row.from = fmt::format("{}", fmt::join(e.region->inputs, ", "));
    m.stages.push_back(std::move(row));
  }
}

const analysis::Region* FindRegion(const RegionsReport& regions, const std::string& path) {
  for (const auto& e : *regions.aggregate) {
    if (fmt::format("{}", fmt::join(e.region->path, "/")) == path) return e.region;
  }
  return nullptr;
}

// Model FLOPs utilisation per configured region (analysis/model_utilization.h).
void Mfu(RunModel& m, const RunContext& run, const RegionsReport* regions) {
  m.mfu_configured = !run.region_flops.empty();
  if (!m.mfu_configured) return;
  if (regions == nullptr || !regions->aggregate) {
    m.mfu_without_regions = true;
    return;
  }
  for (const auto& [path, flops] : run.region_flops) {
    const analysis::Utilization u =
        analysis::RegionUtilization(FindRegion(*regions, path), flops, 1e12, run.peak_tflops);
    m.mfu.push_back(MfuRow{path, flops, u.gpu_kernel_ns, u.missing, u.achieved, u.pct_of_peak});
  }
}

// Model bandwidth utilisation: bytes read over the region's GPU time, over
// the peak bandwidth (the time MFU uses, so the two compare; analysis/model_utilization.h).
void Mbu(RunModel& m, const RunContext& run, const RegionsReport* regions) {
  if (run.region_bytes.empty() || regions == nullptr || !regions->aggregate) return;
  for (const auto& [path, bytes] : run.region_bytes) {
    const analysis::Utilization u = analysis::RegionUtilization(FindRegion(*regions, path), bytes, 1e9, run.peak_gbps);
    m.mbu.push_back(MbuRow{path, bytes, u.gpu_kernel_ns, u.missing, u.achieved, u.pct_of_peak});
  }
}

// The shallowest region whose label, name or path is `wanted`.
const analysis::Region* RegionNamed(const RegionsReport& regions, const std::string& wanted) {
  const analysis::Region* best = nullptr;
  for (const auto& e : *regions.aggregate) {
    const auto* r = e.region;
    const bool hit = r->label == wanted || r->name == wanted || fmt::format("{}", fmt::join(r->path, "/")) == wanted;
    if (hit && (best == nullptr || r->depth < best->depth)) best = r;
  }
  return best;
}

void Serving(RunModel& m, const RunContext& run, const RegionsReport* regions) {
  if (regions == nullptr || !regions->aggregate) {
    m.serving.ttft_missing = m.serving.tpot_missing = "no NVTX region report";
    return;
  }
  m.serving = analysis::ServingFromRegions(RegionNamed(*regions, run.prefill_region),
                                           RegionNamed(*regions, run.decode_region), run.tokens_per_step);
}

void Recommendations(RunModel& m, const KernelsReport& kernels, const RegionsReport* regions) {
  auto& lines = m.recommendations;
  m.actions = kernels.actions;
  m.why_no_actions = kernels.why_no_actions;  // said with the actions, not among these notes
  m.timeline_rules = kernels.timeline_rules;
  m.ranked = kernels.ranked;
  if (regions == nullptr || !regions->aggregate || regions->aggregate->empty()) {
    lines.push_back("Add NVTX ranges (prefill, decode, per layer) to attribute time to phases.");
  }
  if (!m.actions.empty()) {
    lines.push_back(
        "ncu's estimated speedups are its own upper-bound guesses and overlap within a kernel (never add them); "
        "confirm each change by measuring again.");
  }
}

}  // namespace

RunModel BuildRunModel(const RunContext& run, const KernelsReport& kernels, const RegionsReport* regions) {
  RunModel m;
  m.run = run;
  const auto timed = TimesFromEachRank(kernels, &m.times_from);
  for (const auto& k : timed) {
    m.gpu_kernel_ns += k.total_ns;
    m.launches += k.calls;
  }
  auto by_name = ByName(timed);
  m.distinct_kernels = by_name.size();  // names, not (process, device, name) rows
  const InsightsByName insights(kernels);
  m.category_ns = CategoryTimes(insights, timed);
  m.roofline = RooflinePoints(kernels);
  if (by_name.size() > kTopKernels) by_name.resize(kTopKernels);
  for (auto& k : by_name) {
    const double share = m.gpu_kernel_ns > 0 ? 100.0 * k.total_ns / m.gpu_kernel_ns : 0.0;
    const std::string bound = insights.Bound(k.name);
    std::string category = insights.Category(k.name);
    m.top_kernels.push_back(TopKernel{std::move(k), share, bound, std::move(category)});
  }
  m.has_regions = regions != nullptr && regions->aggregate && !regions->aggregate->empty();
  if (regions != nullptr && regions->aggregate) m.region_count = regions->aggregate->size();
  if (m.has_regions) Stages(m, *regions);
  Mfu(m, run, regions);
  Mbu(m, run, regions);
  Serving(m, run, regions);
  Recommendations(m, kernels, regions);
  return m;
}

}  // namespace llmpo::report
