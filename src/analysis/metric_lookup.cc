#include "src/analysis/metric_lookup.h"

#include <fmt/format.h>

#include <algorithm>

namespace llmpo::analysis {
namespace {

// The metric itself before a copy of it under a raw page's breakdown prefix
// ("LTS.TriageCompute.lts__throughput...", often empty): a prefixed column is
// taken only where the page has no column of the metric itself.
const MetricAggregate* FindRaw(const KernelAggregate& kernel, std::string_view name) {
  if (name.empty()) return nullptr;
  const MetricAggregate* prefixed = nullptr;
  for (const auto& m : kernel.metrics) {
    if (m.name != name) continue;
    if (m.section.empty()) return &m;
    if (prefixed == nullptr) prefixed = &m;
  }
  return prefixed;
}

const MetricAggregate* Find(const KernelAggregate& kernel, const MetricRef& ref) {
  if (const MetricAggregate* m = FindRaw(kernel, ref.name)) return m;
  if (const MetricAggregate* m = FindRaw(kernel, ref.alt_name)) return m;
  if (ref.label.empty()) return nullptr;
  // A chart item's section ("<section> / <item>") first, then any item of the section.
  for (const auto& m : kernel.metrics) {
    if (m.name == ref.label && m.section == ref.section) return &m;
  }
  for (const auto& m : kernel.metrics) {
    if (m.name == ref.label && model::BaseSection(m.section) == ref.section) return &m;
  }
  return nullptr;
}

}  // namespace

MetricValue Lookup(const KernelAggregate& kernel, const MetricRef& ref) {
  const MetricAggregate* m = Find(kernel, ref);
  if (m == nullptr) {
    if (ref.label.empty()) return {std::nullopt, fmt::format("{} not captured", ref.name)};
    if (ref.name.empty()) return {std::nullopt, fmt::format("'{}' ({}) not captured", ref.label, ref.section)};
    return {std::nullopt, fmt::format("{} ('{}') not captured", ref.name, ref.label)};
  }
  // Launches without the row at all count as missing too.
  const std::uint64_t launches = std::max(m->values + m->missing + m->unit_conflicts, kernel.calls);
  if (m->values + m->unit_conflicts < launches || m->values == 0) {
    return {std::nullopt, fmt::format("{} absent in {} of {} launches", m->name, launches - m->values, launches)};
  }
  if (m->unit_conflicts > 0) {
    return {std::nullopt,
            fmt::format("{} in units that do not convert ({} of {} launches)", m->name, m->unit_conflicts, launches)};
  }
  return {m->Value(), ""};
}

}  // namespace llmpo::analysis
