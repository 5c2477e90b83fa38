#include "src/analysis/metric_catalogue.h"

#include <optional>
#include <utility>

#include "src/model/records.h"

namespace llmpo::analysis {
namespace {

using A = Aggregation;

// Display names of ncu's sections (details page) and the raw metric each
// stands for, by that metric's rule. Launch Statistics, Occupancy and PM
// Sampling are configuration: handled by section.
constexpr std::pair<std::string_view, A> kDisplayNames[] = {
    // SpeedOfLight
    {"Duration", A::kSum},                            // gpu__time_duration.sum
    {"Elapsed Cycles", A::kMax},                      // gpc__cycles_elapsed.max
    {"SM Active Cycles", A::kMean},                   // sm__cycles_active.avg
    {"SM Frequency", A::kDurationWeightedMean},       // gpc__cycles_elapsed.avg.per_second
    {"DRAM Frequency", A::kDurationWeightedMean},     // dram__cycles_elapsed.avg.per_second
    {"Memory Throughput", A::kDurationWeightedMean},  // .pct_of_peak_sustained_elapsed, or dram__bytes.sum.per_second
    {"DRAM Throughput", A::kDurationWeightedMean},
    {"L1/TEX Cache Throughput", A::kDurationWeightedMean},
    {"L2 Cache Throughput", A::kDurationWeightedMean},
    {"Compute (SM) Throughput", A::kDurationWeightedMean},
    // ComputeWorkloadAnalysis
    {"Executed Ipc Active", A::kDurationWeightedMean},  // sm__inst_executed.avg.per_cycle_active
    {"Executed Ipc Elapsed", A::kDurationWeightedMean},
    {"Issue Slots Busy", A::kDurationWeightedMean},
    {"Issued Ipc Active", A::kDurationWeightedMean},
    {"SM Busy", A::kDurationWeightedMean},
    // MemoryWorkloadAnalysis
    {"Mem Busy", A::kDurationWeightedMean},
    {"Max Bandwidth", A::kDurationWeightedMean},
    {"Mem Pipes Busy", A::kDurationWeightedMean},
    {"L1/TEX Hit Rate", A::kMean},  // .ratio
    {"L2 Hit Rate", A::kMean},
    {"L2 Sector Promotion Misses", A::kMean},
    {"L2 Compression Success Rate", A::kMean},
    {"L2 Compression Ratio", A::kMean},
    {"L2 Compression Input Sectors", A::kSum},
    {"L2 Persisting Size", A::kMean},
    {"Local Memory Spilling Requests", A::kSum},
    {"Local Memory Spilling Request Overhead", A::kMean},
    {"Shared Memory Spilling Requests", A::kSum},
    {"Shared Memory Spilling Request Overhead", A::kMean},
    // SchedulerStats
    {"One or More Eligible", A::kDurationWeightedMean},  // smsp__issue_active.avg.pct_of_peak_sustained_active
    {"No Eligible", A::kDurationWeightedMean},
    {"Issued Warp Per Scheduler", A::kDurationWeightedMean},  // smsp__issue_active.avg.per_cycle_active
    {"Active Warps Per Scheduler", A::kDurationWeightedMean},
    {"Eligible Warps Per Scheduler", A::kDurationWeightedMean},
    // WarpStateStats
    {"Warp Cycles Per Issued Instruction", A::kMean},  // smsp__average_warp_latency_per_inst_issued.ratio
    {"Warp Cycles Per Executed Instruction", A::kMean},
    {"Avg. Active Threads Per Warp", A::kMean},  // smsp__thread_inst_executed_per_inst_executed.ratio
    {"Avg. Not Predicated Off Threads Per Warp", A::kMean},
    // InstructionStats
    {"Avg. Executed Instructions Per Scheduler", A::kMean},  // smsp__inst_executed.avg
    {"Executed Instructions", A::kSum},                      // sm__inst_executed.sum
    {"Avg. Issued Instructions Per Scheduler", A::kMean},
    {"Issued Instructions", A::kSum},
    // WorkloadDistribution
    {"Average DRAM Active Cycles", A::kMean},
    {"Total DRAM Elapsed Cycles", A::kSum},
    {"Average L1 Active Cycles", A::kMean},
    {"Total L1 Elapsed Cycles", A::kSum},
    {"Average L2 Active Cycles", A::kMean},
    {"Total L2 Elapsed Cycles", A::kSum},
    {"Average SM Active Cycles", A::kMean},
    {"Total SM Elapsed Cycles", A::kSum},
    {"Average SMSP Active Cycles", A::kMean},
    {"Total SMSP Elapsed Cycles", A::kSum},
    // SourceCounters
    {"Branch Instructions Ratio", A::kMean},
    {"Branch Instructions", A::kSum},
    {"Branch Efficiency", A::kMean},
    {"Avg. Divergent Branches", A::kMean},
    // Older section versions
    {"Achieved Occupancy", A::kMean},
    {"Theoretical Occupancy", A::kMean},
    {"Registers Per Thread", A::kMean},
    {"Block Size", A::kMean},
    {"Grid Size", A::kMean},
    {"Waves Per SM", A::kMean},
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

MetricRule RuleForMetric(std::string_view name, std::string_view section) {
  if (auto raw = RawNameRule(name)) return {*raw, true};
  if (IsConfigurationSection(section)) return {A::kMean, true};
  for (const auto& [display, rule] : kDisplayNames) {
    if (display == name) return {rule, true};
  }
  // Roofline chart items: device peaks ("Theoretical ...") and rates ("... Per Cycle").
  if (name.starts_with("Theoretical ")) return {A::kMean, true};
  if (name.ends_with(" Per Cycle") || name.ends_with(" Bandwidth")) return {A::kDurationWeightedMean, true};
  return {A::kMean, false};
}

}  // namespace llmpo::analysis
