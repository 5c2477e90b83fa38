#include "src/analysis/metric_selection.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>
#include <utility>

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

}  // namespace

std::string_view SectionDisplayName(std::string_view id) {
  for (const auto& [key, name] : kSections) {
    if (key == id) return name;
  }
  return "";
}

bool MetricSelection::Shows(const MetricAggregate& m) const {
  if (ShowsAll()) return true;
  if (std::find(metrics.begin(), metrics.end(), m.name) != metrics.end()) return true;
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
    if (names.count(metric)) continue;
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
