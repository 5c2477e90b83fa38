// The unit of an ncu metric, by name. A binary report (.ncu-rep) stores
// values in base units but no unit strings; this catalogue supplies them:
// a table built from the units rows of real raw pages
// (scripts/gen_metric_units.py) and ncu's naming rules for submetrics
// (counter.rollup.submetric: .pct* is a percent, .ratio is unitless,
// .per_second is per second, .per_cycle_* and .peak_sustained* are per cycle).
// A metric it cannot place is unknown (nullopt), never guessed.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace llmpo {

// The base unit ("ns", "byte", "cycle", "byte/s", "hz", "%", "inst/cycle",
// "" for a dimensionless number), or nullopt when the catalogue does not
// know the metric. Instance and breakdown prefixes ("SM.TriageA.",
// "breakdown:") are ignored.
std::optional<std::string> BaseUnitOfMetric(std::string_view metric);

// A raw-page column or report metric at its breakdown prefix: the metric
// starts at the first dot-separated part holding "__"
// ("TPC.TriageCompute.sm__cycles_active.avg" -> {"TPC.TriageCompute",
// "sm__cycles_active.avg"}). No prefix (or no such part): prefix empty,
// metric the whole name. The CSV and .ncu-rep readers both split so.
struct BreakdownSplit {
  std::string_view prefix;
  std::string_view metric;
};
BreakdownSplit SplitBreakdownPrefix(std::string_view column);

}  // namespace llmpo
