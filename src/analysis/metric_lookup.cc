#include "src/analysis/metric_lookup.h"

#include <fmt/format.h>

#include <algorithm>

namespace llmpo::analysis {
namespace {

const MetricAggregate* Find(const KernelAggregate& kernel, const MetricRef& ref) {
  for (const auto& m : kernel.metrics) {
    if (!ref.name.empty() && m.name == ref.name) return &m;
  }
  for (const auto& m : kernel.metrics) {
    if (!ref.alt_name.empty() && m.name == ref.alt_name) return &m;
  }
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
