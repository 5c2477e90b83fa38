// Which metrics a report shows: the configured ncu sections (by identifier,
// e.g. SpeedOfLight) and metrics (raw names). Nothing configured shows all.
// ncu prints section display names in CSV ("GPU Speed Of Light Throughput"),
// so identifiers are mapped through a table of the standard sections.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "src/analysis/kernel_aggregator.h"

namespace llmpo::analysis {

// The display name ncu prints for a section identifier ("" if unknown).
std::string_view SectionDisplayName(std::string_view id);

struct MetricSelection {
  std::vector<std::string> sections;  // identifiers, as in --section
  std::vector<std::string> metrics;   // raw metric names, as in --metrics

  bool ShowsAll() const { return sections.empty() && metrics.empty(); }
  bool Shows(const MetricAggregate& m) const;

  // Names configured but absent from `present` (the metrics the data holds),
  // each with a "did you mean" when one is close.
  std::vector<std::string> Check(const std::vector<const MetricAggregate*>& present) const;
};

}  // namespace llmpo::analysis
