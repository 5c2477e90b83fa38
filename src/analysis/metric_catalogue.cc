#include "src/analysis/metric_catalogue.h"

#include <optional>

#include "src/model/records.h"

namespace llmpo::analysis {
namespace {

using A = Aggregation;

// Display names of ncu's sections (details page), the raw metric each stands
// for where it was matched value for value against a raw page of the same
// run (the shared sglang-h200 pages: 30 launches), and the raw metric's rule.
// Launch Statistics, Occupancy and PM Sampling are configuration: by section.
struct DisplayName {
  std::string_view display;
  std::string_view raw;  // empty: not matched on a real raw page
  A rule;
};
constexpr DisplayName kDisplayNames[] = {
    // SpeedOfLight
    {"Duration", "gpu__time_duration.sum", A::kSum},
    {"Elapsed Cycles", "gpc__cycles_elapsed.max", A::kMax},
    {"SM Active Cycles", "sm__cycles_active.avg", A::kMean},
    {"SM Frequency", "", A::kDurationWeightedMean},  // gpc__cycles_elapsed.avg.per_second
    {"DRAM Frequency", "dram__cycles_elapsed.avg.per_second", A::kDurationWeightedMean},
    {"Memory Throughput", "",
     A::kDurationWeightedMean},  // .pct_of_peak_sustained_elapsed, or dram__bytes.sum.per_second
    {"DRAM Throughput", "", A::kDurationWeightedMean},
    {"L1/TEX Cache Throughput", "l1tex__throughput.avg.pct_of_peak_sustained_active", A::kDurationWeightedMean},
    {"L2 Cache Throughput", "", A::kDurationWeightedMean},
    {"Compute (SM) Throughput", "",
     A::kDurationWeightedMean},  // not sm__throughput.avg.pct_of_peak_sustained_elapsed on ncu 2026 (values differ)
    // ComputeWorkloadAnalysis
    {"Executed Ipc Active", "", A::kDurationWeightedMean},  // sm__inst_executed.avg.per_cycle_active
    {"Executed Ipc Elapsed", "", A::kDurationWeightedMean},
    {"Issue Slots Busy", "", A::kDurationWeightedMean},
    {"Issued Ipc Active", "", A::kDurationWeightedMean},
    {"SM Busy", "", A::kDurationWeightedMean},
    // MemoryWorkloadAnalysis
    {"Mem Busy", "", A::kDurationWeightedMean},
    {"Max Bandwidth", "", A::kDurationWeightedMean},
    {"Mem Pipes Busy", "", A::kDurationWeightedMean},
    {"L1/TEX Hit Rate", "", A::kMean},  // .ratio
    {"L2 Hit Rate", "lts__t_sector_hit_rate.pct", A::kMean},
    {"L2 Sector Promotion Misses", "", A::kMean},
    {"L2 Compression Success Rate", "", A::kMean},
    {"L2 Compression Ratio", "", A::kMean},
    {"L2 Compression Input Sectors", "", A::kSum},
    {"L2 Persisting Size", "", A::kMean},
    {"Local Memory Spilling Requests", "", A::kSum},
    {"Local Memory Spilling Request Overhead", "", A::kMean},
    {"Shared Memory Spilling Requests", "", A::kSum},
    {"Shared Memory Spilling Request Overhead", "", A::kMean},
    // SchedulerStats
    {"One or More Eligible", "smsp__issue_active.avg.pct_of_peak_sustained_active", A::kDurationWeightedMean},
    {"No Eligible", "smsp__issue_inst0.avg.pct_of_peak_sustained_active", A::kDurationWeightedMean},
    {"Issued Warp Per Scheduler", "smsp__issue_active.avg.per_cycle_active", A::kDurationWeightedMean},
    {"Active Warps Per Scheduler", "", A::kDurationWeightedMean},
    {"Eligible Warps Per Scheduler", "", A::kDurationWeightedMean},
    // WarpStateStats
    {"Warp Cycles Per Issued Instruction", "smsp__average_warp_latency_per_inst_issued.ratio", A::kMean},
    {"Warp Cycles Per Executed Instruction", "smsp__average_warps_active_per_inst_executed.ratio", A::kMean},
    {"Avg. Active Threads Per Warp", "smsp__thread_inst_executed_per_inst_executed.ratio", A::kMean},
    {"Avg. Not Predicated Off Threads Per Warp", "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio",
     A::kMean},
    // InstructionStats
    {"Avg. Executed Instructions Per Scheduler", "", A::kMean},  // smsp__inst_executed.avg
    {"Executed Instructions", "smsp__inst_executed.sum", A::kSum},
    {"Avg. Issued Instructions Per Scheduler", "", A::kMean},
    {"Issued Instructions", "smsp__inst_issued.sum", A::kSum},
    // WorkloadDistribution
    {"Average DRAM Active Cycles", "dram__cycles_active.avg", A::kMean},
    {"Total DRAM Elapsed Cycles", "dram__cycles_elapsed.sum", A::kSum},
    {"Average L1 Active Cycles", "l1tex__cycles_active.avg", A::kMean},
    {"Total L1 Elapsed Cycles", "l1tex__cycles_elapsed.sum", A::kSum},
    {"Average L2 Active Cycles", "lts__cycles_active.avg", A::kMean},
    {"Total L2 Elapsed Cycles", "lts__cycles_elapsed.sum", A::kSum},
    {"Average SM Active Cycles", "sm__cycles_active.avg", A::kMean},
    {"Total SM Elapsed Cycles", "sm__cycles_elapsed.sum", A::kSum},
    {"Average SMSP Active Cycles", "smsp__cycles_active.avg", A::kMean},
    {"Total SMSP Elapsed Cycles", "smsp__cycles_elapsed.sum", A::kSum},
    // SourceCounters
    {"Branch Instructions Ratio", "", A::kMean},
    {"Branch Instructions", "smsp__inst_executed_op_branch.sum", A::kSum},
    {"Branch Efficiency", "smsp__sass_average_branch_targets_threads_uniform.pct", A::kMean},
    {"Avg. Divergent Branches", "", A::kMean},
    // Occupancy: measured, not configuration (the section's other rows are)
    {"Achieved Occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active", A::kDurationWeightedMean},
    {"Achieved Active Warps Per SM", "sm__warps_active.avg.per_cycle_active", A::kDurationWeightedMean},
    // Older section versions
    {"Theoretical Occupancy", "", A::kMean},
    {"Registers Per Thread", "", A::kMean},
    {"Block Size", "launch__block_size", A::kMean},
    {"Grid Size", "launch__grid_size", A::kMean},
    {"Waves Per SM", "launch__waves_per_multiprocessor", A::kMean},
};

bool IsConfigurationSection(std::string_view section) {
  const std::string_view base = model::BaseSection(section);
  return base == "Launch Statistics" || base == "Occupancy" || base == "PM Sampling";
}

// ncu's raw naming: unit__counter.rollup[.submetric] (nsight-reference A).
std::optional<A> RawNameRule(std::string_view name) {
  if (name.starts_with("launch__") || name.starts_with("device__") || name.starts_with("profiler__")) return A::kMean;
  const auto dot = name.find('.');
  if (dot == std::string_view::npos || name.find(' ') != std::string_view::npos) return std::nullopt;
  const std::string_view rollup = name.substr(dot + 1);
  const auto part = [&rollup](std::string_view p) { return rollup.find(p) != std::string_view::npos; };
  if (part("peak_sustained") && !part("pct_of_peak")) return A::kMean;  // a device peak, not a measurement
  if (part("per_second") || part("per_cycle") || part("pct_of_peak")) return A::kDurationWeightedMean;
  if (rollup == "ratio" || rollup == "pct" || rollup.ends_with(".ratio") || rollup.ends_with(".pct")) return A::kMean;
  if (rollup.starts_with("sum")) return A::kSum;
  if (rollup.starts_with("avg")) return A::kMean;
  if (rollup.starts_with("min")) return A::kMin;
  if (rollup.starts_with("max")) return A::kMax;
  return std::nullopt;
}

}  // namespace

std::string_view ToString(Aggregation a) {
  switch (a) {
    case A::kSum:
      return "sum";
    case A::kMean:
      return "mean";
    case A::kDurationWeightedMean:
      return "duration_weighted_mean";
    case A::kMin:
      return "min";
    case A::kMax:
      return "max";
  }
  return "mean";
}

std::string_view RawNameOf(std::string_view display) {
  for (const auto& d : kDisplayNames) {
    if (d.display == display) return d.raw;
  }
  return {};
}

MetricRule RuleForMetric(std::string_view name, std::string_view section) {
  if (auto raw = RawNameRule(name)) return {*raw, true};
  for (const auto& d : kDisplayNames) {
    if (d.display == name) return {d.raw.empty() ? d.rule : RawNameRule(d.raw).value_or(d.rule), true};
  }
  if (IsConfigurationSection(section)) return {A::kMean, true};
  // Roofline chart items: device peaks ("Theoretical ...") and rates ("... Per Cycle").
  if (name.starts_with("Theoretical ")) return {A::kMean, true};
  if (name.ends_with(" Per Cycle") || name.ends_with(" Bandwidth")) return {A::kDurationWeightedMean, true};
  return {A::kMean, false};
}

}  // namespace llmpo::analysis
