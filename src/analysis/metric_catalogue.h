// How each metric combines over the launches of one kernel, decided by what
// the metric is (docs/import.md, "Metric aggregation"):
//   sum                     counters (.sum: instructions, bytes, cycles, time)
//   mean                    per-launch averages and ratios (.avg, .ratio, .pct)
//                           and launch configuration (launch__*, device__*,
//                           sections "Launch Statistics", "Occupancy")
//   duration_weighted_mean  rates (.per_second, .per_cycle_*, .pct_of_peak_*):
//                           the time average over the launches
//   min / max               .min (min of mins) / .max (max of maxes)
// Raw metric names (raw page, --metrics) follow ncu's naming; the details
// page's display names ("Duration", "Avg. Active Threads Per Warp") come
// from a table of the names ncu's sections print. A metric neither knows is
// averaged (summing an average is the worse mistake) and reported.
#pragma once

#include <string_view>

namespace llmpo::analysis {

enum class Aggregation { kSum, kMean, kDurationWeightedMean, kMin, kMax };
std::string_view ToString(Aggregation a);

struct MetricRule {
  Aggregation rule = Aggregation::kMean;
  bool known = false;  // false: the safe rule, for a metric the catalogue does not know
};

MetricRule RuleForMetric(std::string_view name, std::string_view section);

// The raw metric a details-page display name stands for, where known ("").
std::string_view RawNameOf(std::string_view display);

}  // namespace llmpo::analysis
