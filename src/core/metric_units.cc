#include "src/core/metric_units.h"

#include <algorithm>
#include <array>
#include <utility>

namespace llmpo {
namespace {

#include "src/core/metric_units_table.inc"

template <std::size_t N>
std::optional<std::string_view> Find(const std::pair<std::string_view, std::string_view> (&table)[N],
                                     std::string_view key) {
  auto it = std::lower_bound(std::begin(table), std::end(table), key,
                             [](const auto& entry, std::string_view k) { return entry.first < k; });
  if (it == std::end(table) || it->first != key) return std::nullopt;
  return it->second;
}

// The metric name proper: from the first dot-separated part holding "__".
std::string_view StripPrefixes(std::string_view metric) {
  if (metric.starts_with("breakdown:")) metric.remove_prefix(10);
  std::size_t start = 0;
  while (start < metric.size()) {
    const std::size_t dot = metric.find('.', start);
    const std::string_view part = metric.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (part.find("__") != std::string_view::npos) return metric.substr(start);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return metric;
}

bool IsRollup(std::string_view part) { return part == "sum" || part == "avg" || part == "min" || part == "max"; }

// The unit of counter.rollup.<sub> given the counter's own unit.
std::optional<std::string> SubmetricUnit(std::string_view sub, std::string_view counter_unit) {
  if (sub.empty()) return std::string(counter_unit);
  // ncu prints no unit for the rates of a unitless counter either.
  const bool rate = sub == "per_second" || sub.starts_with("per_cycle") || sub.starts_with("peak_sustained");
  if (counter_unit.empty() && rate && sub.find('.') == std::string_view::npos) return std::string();
  if (sub == "per_second") return counter_unit == "cycle" ? std::string("hz") : std::string(counter_unit) + "/s";
  if (sub.starts_with("per_cycle") || sub.starts_with("peak_sustained")) {
    if (sub.find('.') != std::string_view::npos) return std::nullopt;  // e.g. peak_sustained.per_second
    if (counter_unit == "cycle") return std::string();  // cycles per cycle: a ratio, printed without a unit
    return std::string(counter_unit) + "/cycle";
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> BaseUnitOfMetric(std::string_view metric) {
  const std::string_view name = StripPrefixes(metric);
  if (auto named = Find(kNamedUnits, name)) return std::string(*named);
  const std::size_t dot = name.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const std::string_view counter = name.substr(0, dot);
  std::string_view rest = name.substr(dot + 1);
  const std::size_t next = rest.find('.');
  const std::string_view rollup = rest.substr(0, next);
  const std::string_view sub = next == std::string_view::npos ? std::string_view() : rest.substr(next + 1);
  if (!IsRollup(rollup)) return std::nullopt;
  if (sub.starts_with("pct")) return std::string("%");
  if (sub == "ratio") return std::string();
  const auto counter_unit = Find(kCounterUnits, counter);
  if (!counter_unit) return std::nullopt;
  return SubmetricUnit(sub, *counter_unit);
}

BreakdownSplit SplitBreakdownPrefix(std::string_view column) {
  std::size_t start = 0;
  while (start < column.size()) {
    const std::size_t dot = column.find('.', start);
    const std::string_view part = column.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (part.find("__") != std::string_view::npos) break;
    if (dot == std::string_view::npos) return {{}, column};
    start = dot + 1;
  }
  if (start == 0 || start >= column.size()) return {{}, column};
  return {column.substr(0, start - 1), column.substr(start)};
}

}  // namespace llmpo
