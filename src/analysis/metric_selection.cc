#include "src/analysis/metric_selection.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>
#include <span>
#include <utility>

#include "src/analysis/kernel_aggregator.h"
#include "src/analysis/metric_catalogue.h"
#include "src/core/spellcheck.h"

namespace llmpo::analysis {
namespace {

constexpr std::array<std::pair<std::string_view, std::string_view>, 16> kSections = {{
    {"SpeedOfLight", "GPU Speed Of Light Throughput"},
    {"SpeedOfLight_RooflineChart", "GPU Speed Of Light Roofline Chart"},
    {"ComputeWorkloadAnalysis", "Compute Workload Analysis"},
    {"MemoryWorkloadAnalysis", "Memory Workload Analysis"},
    {"MemoryWorkloadAnalysis_Chart", "Memory Workload Analysis Chart"},
    {"MemoryWorkloadAnalysis_Tables", "Memory Workload Analysis Tables"},
    {"Occupancy", "Occupancy"},
    {"SchedulerStats", "Scheduler Statistics"},
    {"WarpStateStats", "Warp State Statistics"},
    {"LaunchStats", "Launch Statistics"},
    {"InstructionStats", "Instruction Statistics"},
    {"WorkloadDistribution", "GPU and Memory Workload Distribution"},
    {"SourceCounters", "Source Counters"},
    {"PmSampling", "PM Sampling"},
    {"Nvlink", "NVLink"},
    {"NumaAffinity", "NUMA Affinity"},
}};

// Whether `name` (as the data spells it) is the metric `wanted` (as the
// config spells it): the same name, a details-page label ncu prints for it,
// or another spelling of one of the well-known metrics (DRAM throughput is
// dram__throughput on raw pages, gpu__dram_throughput in the Speed Of Light
// section, "DRAM Throughput" on details pages).
bool SameMetric(std::string_view name, std::string_view wanted) {
  if (name == wanted || RawNameOf(name) == wanted) return true;
  for (std::span<const std::string_view> spellings :
       {std::span<const std::string_view>(kSmThroughputPct), std::span<const std::string_view>(kDramThroughputPct),
        std::span<const std::string_view>(kAchievedOccupancyPct),
        std::span<const std::string_view>(kRegistersPerThread)}) {
    const bool has_wanted = std::find(spellings.begin(), spellings.end(), wanted) != spellings.end();
    if (has_wanted && std::find(spellings.begin(), spellings.end(), name) != spellings.end()) return true;
  }
  return false;
}

}  // namespace

std::string_view SectionDisplayName(std::string_view id) {
  for (const auto& [key, name] : kSections) {
    if (key == id) return name;
  }
  return "";
}

bool MetricSelection::Shows(const MetricAggregate& m) const {
  if (ShowsAll()) return true;
  if (std::any_of(metrics.begin(), metrics.end(), [&](const std::string& w) { return SameMetric(m.name, w); })) {
    return true;
  }
  const std::string_view section = model::BaseSection(m.section);
  return std::any_of(sections.begin(), sections.end(), [&](const std::string& id) {
    return section == id || (!SectionDisplayName(id).empty() && section == SectionDisplayName(id));
  });
}

std::vector<std::string> MetricSelection::Check(const std::vector<const MetricAggregate*>& present) const {
  std::set<std::string> names, section_names;
  for (const auto* m : present) {
    names.insert(m->name);
    section_names.emplace(model::BaseSection(m->section));
  }
  std::vector<std::string> notes;
  const std::vector<std::string> name_list(names.begin(), names.end());
  for (const auto& metric : metrics) {
    if (std::any_of(names.begin(), names.end(), [&](const std::string& n) { return SameMetric(n, metric); })) continue;
    std::string note = fmt::format("metric '{}' is not in the data", metric);
    if (auto near = ClosestMatch(metric, name_list)) note += fmt::format("; did you mean '{}'?", *near);
    notes.push_back(std::move(note));
  }
  std::vector<std::string> ids;
  for (const auto& [id, name] : kSections) ids.emplace_back(id);
  for (const auto& id : sections) {
    const std::string display(SectionDisplayName(id));
    if (section_names.count(id) || (!display.empty() && section_names.count(display))) continue;
    if (display.empty()) {
      std::string note = fmt::format("section '{}' is not a standard ncu section identifier", id);
      if (auto near = ClosestMatch(id, ids)) note += fmt::format("; did you mean '{}'?", *near);
      notes.push_back(std::move(note));
    } else {
      notes.push_back(fmt::format("section '{}' ({}) is not in the data: was it collected?", id, display));
    }
  }
  return notes;
}

}  // namespace llmpo::analysis
