#include "src/analysis/kernel_aggregator.h"

#include <algorithm>

namespace llmpo::analysis {
namespace {

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

}  // namespace

std::string_view ToString(Aggregation a) { return a == Aggregation::kSum ? "sum" : "mean"; }

Aggregation RuleFor(const model::Metric& metric) {
  if (metric.section == "Launch Statistics" || metric.section == "Occupancy" || StartsWith(metric.name, "launch__") ||
      StartsWith(metric.name, "device__")) {
    return Aggregation::kMean;
  }
  switch (metric.value.dimension) {
    case Dimension::kTime:
    case Dimension::kBytes:
    case Dimension::kNone:
      return Aggregation::kSum;
    default:
      return Aggregation::kMean;
  }
}

KernelAggregate& KernelAggregator::Entry(const std::string& process, const std::string& device,
                                         const std::string& name) {
  Key key{source_, process, device, name};
  auto [it, inserted] = kernels_.try_emplace(key);
  if (inserted) {
    it->second.source = source_;
    it->second.process = process;
    it->second.device = device;
    it->second.name = name;
  }
  return it->second;
}

namespace {

void AddDuration(KernelAggregate& k, double ns) {
  k.min_ns = k.min_ns ? std::min(*k.min_ns, ns) : ns;
  k.max_ns = k.max_ns ? std::max(*k.max_ns, ns) : ns;
  k.total_ns += ns;
  ++k.timed_calls;
}

void AddMetric(KernelAggregate& k, const model::Metric& metric) {
  auto [it, inserted] = k.metric_index.try_emplace({metric.section, metric.name}, k.metrics.size());
  if (inserted) {
    MetricAggregate m;
    m.name = metric.name;
    m.section = metric.section;
    m.unit = metric.value.unit;
    m.dimension = metric.value.dimension;
    m.rule = RuleFor(metric);
    k.metrics.push_back(std::move(m));
  }
  MetricAggregate& m = k.metrics[it->second];
  if (!metric.value.value) {
    ++m.missing;
    return;
  }
  const double v = *metric.value.value;
  m.min = m.values == 0 ? v : std::min(m.min, v);
  m.max = m.values == 0 ? v : std::max(m.max, v);
  m.sum += v;
  ++m.values;
}

}  // namespace

void AddLaunch(KernelAggregate& k, const model::LaunchRecord& launch) {
  ++k.calls;
  if (launch.duration_ns) AddDuration(k, *launch.duration_ns);
  for (const auto& metric : launch.metrics) AddMetric(k, metric);
}

void AddSummary(KernelAggregate& k, const model::KernelSummaryRow& row) {
  k.calls += static_cast<std::uint64_t>(row.calls);
  k.timed_calls += static_cast<std::uint64_t>(row.calls);
  k.total_ns += row.total_ns;
  // A row without a minimum leaves the kernel's minimum unknown: a partial
  // minimum would look exact and be wrong.
  const bool first = k.calls == static_cast<std::uint64_t>(row.calls);
  k.min_ns = (row.min_ns && (first || k.min_ns)) ? std::optional(first ? *row.min_ns : std::min(*k.min_ns, *row.min_ns))
                                                 : std::nullopt;
  k.max_ns = (row.max_ns && (first || k.max_ns)) ? std::optional(first ? *row.max_ns : std::max(*k.max_ns, *row.max_ns))
                                                 : std::nullopt;
}

void KernelAggregator::OnLaunch(const model::LaunchRecord& launch) {
  AddLaunch(Entry(launch.process, launch.device, launch.kernel_name), launch);
}

void KernelAggregator::OnKernelSummary(const model::KernelSummaryRow& row) {
  AddSummary(Entry(row.process, row.device, row.kernel_name), row);
}

void SortByTime(std::vector<KernelAggregate>& kernels) {
  std::stable_sort(kernels.begin(), kernels.end(), [](const KernelAggregate& a, const KernelAggregate& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    return a.name < b.name;
  });
}

std::vector<KernelAggregate> KernelAggregator::Sorted() const {
  std::vector<KernelAggregate> out;
  out.reserve(kernels_.size());
  for (const auto& [key, k] : kernels_) out.push_back(k);
  std::stable_sort(out.begin(), out.end(), [](const KernelAggregate& a, const KernelAggregate& b) {
    if (a.source != b.source) return a.source < b.source;
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    return a.name < b.name;
  });
  return out;
}

}  // namespace llmpo::analysis
