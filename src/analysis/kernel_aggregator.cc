#include "src/analysis/kernel_aggregator.h"

#include <algorithm>

#include "src/core/hash.h"

namespace llmpo::analysis {
double MetricAggregate::Value() const {
  switch (rule) {
    case Aggregation::kSum:
      return sum;
    case Aggregation::kMin:
      return min;
    case Aggregation::kMax:
      return max;
    case Aggregation::kDurationWeightedMean:
      // Time average where every value has its launch's duration; else plain.
      if (unweighted == 0 && weight_ns > 0) return weighted_sum / weight_ns;
      [[fallthrough]];
    case Aggregation::kMean:
      break;
  }
  return values ? sum / static_cast<double>(values) : 0;
}

std::size_t KernelAggregator::ViewHash::operator()(const View& v) const {
  return HashBytes(std::get<2>(v), HashBytes(std::get<1>(v), std::get<0>(v)));
}

std::uint32_t KernelAggregator::ProcessNumber(const model::ProcessId& process) {
  // Launches come in runs of one process: compare with the last one first.
  if (last_process_ != nullptr && *last_process_ == process) return last_process_number_;
  auto [it, inserted] = process_numbers_.try_emplace(process, static_cast<std::uint32_t>(process_numbers_.size()));
  last_process_ = &it->first;
  last_process_number_ = it->second;
  return it->second;
}

KernelAggregate& KernelAggregator::Entry(const model::ProcessId& process, const std::string& device,
                                         const std::string& name) {
  const std::uint32_t number = ProcessNumber(process);
  if (auto hit = index_.find(View{number, device, name}); hit != index_.end()) return *hit->second;
  auto [it, inserted] = kernels_.try_emplace(Key{source_, process, device, name});
  if (inserted) {
    it->second.source = source_;
    it->second.process = process;
    it->second.device = device;
    it->second.name = name;
  }
  const Key& key = it->first;  // map nodes do not move: views of their keys stay valid
  index_.emplace(View{number, std::get<2>(key), std::get<3>(key)}, &it->second);
  return it->second;
}

KernelAggregate& KernelAggregator::LaunchEntry(const model::LaunchRecord& launch) {
  KeyedEntry* known = by_name_key_.Find(launch.kernel_name_key);
  // Equal origin keys have equal processes and devices: nothing to compare.
  if (known != nullptr && launch.origin_key != 0 && known->origin_key == launch.origin_key) return *known->entry;
  const std::uint32_t number = ProcessNumber(launch.process);
  if (known != nullptr && known->process == number && known->device == launch.device) {
    known->origin_key = launch.origin_key;
    return *known->entry;
  }
  KernelAggregate& entry = Entry(launch.process, launch.device, launch.kernel_name);
  by_name_key_.Put(launch.kernel_name_key, KeyedEntry{number, launch.device, &entry, launch.origin_key});
  return entry;
}

namespace {

void AddDuration(KernelAggregate& k, double ns) {
  k.min_ns = k.min_ns ? std::min(*k.min_ns, ns) : ns;
  k.max_ns = k.max_ns ? std::max(*k.max_ns, ns) : ns;
  const double mean_before = k.timed_calls ? k.total_ns / static_cast<double>(k.timed_calls) : 0;
  k.total_ns += ns;
  ++k.timed_calls;
  if (k.sum_sq_dev_ns2)
    *k.sum_sq_dev_ns2 += (ns - mean_before) * (ns - k.total_ns / static_cast<double>(k.timed_calls));
}

}  // namespace

std::optional<double> CombinedSpread(std::uint64_t n_a, double mean_a, std::optional<double> m2_a, std::uint64_t n_b,
                                     double mean_b, std::optional<double> m2_b) {
  if (n_a == 0) return m2_b;
  if (n_b == 0) return m2_a;
  if (!m2_a || !m2_b) return std::nullopt;
  const double n = static_cast<double>(n_a + n_b);
  const double delta = mean_b - mean_a;
  return *m2_a + *m2_b + delta * delta * static_cast<double>(n_a) * static_cast<double>(n_b) / n;
}

namespace {

bool SameMetric(const MetricAggregate& m, const model::Metric& metric) {
  return m.name == metric.name && m.section == metric.section;
}

// Launches of one kernel list their metrics in the same order, so the
// metric's position in the launch is tried first; a scan is the fallback.
MetricAggregate& MetricSlot(KernelAggregate& k, const model::Metric& metric, std::size_t hint) {
  if (hint < k.metrics.size() && SameMetric(k.metrics[hint], metric)) return k.metrics[hint];
  for (auto& m : k.metrics) {
    if (SameMetric(m, metric)) return m;
  }
  MetricAggregate m;
  m.name = metric.name;
  m.section = metric.section;
  m.unit = metric.value.unit;
  m.dimension = metric.value.dimension;
  const MetricRule rule = RuleForMetric(metric.name, metric.section);
  m.rule = rule.rule;
  m.rule_known = rule.known;
  k.metrics.push_back(std::move(m));
  return k.metrics.back();
}

void AddValue(MetricAggregate& m, double v, const std::optional<double>& duration_ns) {
  m.min = m.values == 0 ? v : std::min(m.min, v);
  m.max = m.values == 0 ? v : std::max(m.max, v);
  m.sum += v;
  ++m.values;
  if (duration_ns) {
    m.weighted_sum += v * *duration_ns;
    m.weight_ns += *duration_ns;
  } else {
    ++m.unweighted;
  }
}

}  // namespace

void AddLaunch(KernelAggregate& k, const model::LaunchRecord& launch) {
  ++k.calls;
  if (launch.duration_ns) AddDuration(k, *launch.duration_ns);
  if (!launch.findings.empty()) AddFindings(k.findings, launch.findings, launch.duration_ns);
  // A layout already matched one to one needs no name compares.
  const bool known_layout = launch.metric_layout != 0 && launch.metric_layout == k.metric_layout;
  bool one_to_one = true;
  for (std::size_t i = 0; i < launch.metrics.size(); ++i) {
    const model::Metric& metric = launch.metrics[i];
    MetricAggregate& m = known_layout ? k.metrics[i] : MetricSlot(k, metric, i);
    one_to_one = one_to_one && static_cast<std::size_t>(&m - k.metrics.data()) == i;
    if (metric.value.value && metric.value.unit != m.unit) {
      ++m.unit_conflicts;  // another scale that could not be normalised: never averaged with this one
    } else if (metric.value.value) {
      AddValue(m, *metric.value.value, launch.duration_ns);
    } else {
      ++m.missing;
    }
  }
  k.metric_layout = one_to_one ? launch.metric_layout : 0;
}

const MetricAggregate* KernelAggregate::FindMetric(std::string_view section, std::string_view name) const {
  for (const auto& m : metrics) {
    if (m.section == section && m.name == name) return &m;
  }
  return nullptr;
}

std::optional<double> KernelAggregate::FirstValue(std::span<const std::string_view> names) const {
  for (auto name : names) {
    for (const auto& m : metrics) {
      if (m.name == name && m.values > 0) return m.Value();
    }
  }
  return std::nullopt;
}

void MergeKernel(KernelAggregate& dst, const KernelAggregate& src) {
  if (dst.name.empty()) dst.name = src.name;
  const bool first = dst.calls == 0;
  dst.median_ns = first ? src.median_ns : std::nullopt;
  dst.stddev_ns = first ? src.stddev_ns : std::nullopt;
  dst.time_pct = first ? src.time_pct : std::nullopt;
  dst.sum_sq_dev_ns2 = CombinedSpread(dst.timed_calls, dst.MeanNs(), dst.sum_sq_dev_ns2, src.timed_calls, src.MeanNs(),
                                      src.sum_sq_dev_ns2);
  dst.calls += src.calls;
  dst.timed_calls += src.timed_calls;
  dst.total_ns += src.total_ns;
  if (src.min_ns) dst.min_ns = dst.min_ns ? std::min(*dst.min_ns, *src.min_ns) : *src.min_ns;
  if (src.max_ns) dst.max_ns = dst.max_ns ? std::max(*dst.max_ns, *src.max_ns) : *src.max_ns;
  MergeFindings(dst.findings, src.findings);
  for (const auto& m : src.metrics) {
    MetricAggregate* mine = nullptr;
    for (auto& d : dst.metrics) {
      if (d.section == m.section && d.name == m.name) mine = &d;
    }
    if (mine == nullptr) {
      dst.metrics.push_back(m);
      continue;
    }
    if (m.unit != mine->unit) {  // another scale: counted, never averaged in
      mine->unit_conflicts += m.values + m.unit_conflicts;
      mine->missing += m.missing;
      continue;
    }
    if (m.values > 0) {
      mine->min = mine->values == 0 ? m.min : std::min(mine->min, m.min);
      mine->max = mine->values == 0 ? m.max : std::max(mine->max, m.max);
    }
    mine->sum += m.sum;
    mine->weighted_sum += m.weighted_sum;
    mine->weight_ns += m.weight_ns;
    mine->unweighted += m.unweighted;
    mine->values += m.values;
    mine->missing += m.missing;
    mine->unit_conflicts += m.unit_conflicts;
  }
}

void AddSummary(KernelAggregate& k, const model::KernelSummaryRow& row) {
  // nsys' StdDev is the sample standard deviation: (n - 1) s^2 is the row's spread.
  const auto n = static_cast<std::uint64_t>(row.calls);
  std::optional<double> row_spread;
  if (n == 1) row_spread = 0.0;
  if (n > 1 && row.stddev_ns) row_spread = *row.stddev_ns * *row.stddev_ns * static_cast<double>(n - 1);
  k.sum_sq_dev_ns2 = CombinedSpread(k.timed_calls, k.MeanNs(), k.sum_sq_dev_ns2, n,
                                    n ? row.total_ns / static_cast<double>(n) : 0, row_spread);
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
  k.median_ns = first ? row.median_ns : std::nullopt;
  k.stddev_ns = first ? row.stddev_ns : std::nullopt;
  k.time_pct = first ? row.time_pct : std::nullopt;
}

void KernelAggregator::OnLaunch(const model::LaunchRecord& launch) {
  // Copies and memsets are not kernels: they reach regions (gpu_ops_ms), not the kernel table.
  if (launch.kind == model::LaunchKind::kMemcpy || launch.kind == model::LaunchKind::kMemset) return;
  AddLaunch(LaunchEntry(launch), launch);
  if (launch.launch_call_start_ns && launch.start_ns) {
    if (timelines_.empty() || timelines_.back().input != input_) timelines_.push_back({input_, source_, {}});
    timelines_.back().builder.Add(launch);
  }
}

void KernelAggregator::OnKernelSummary(const model::KernelSummaryRow& row) {
  AddSummary(Entry(row.process, row.device, row.kernel_name), row);
}

void KernelAggregator::OnApiSummary(const model::ApiSummaryRow& row) {
  for (const auto& have : runtime_.api_calls) {
    if (have.row.name == row.name && have.row.rank == row.rank) {  // other ranks' calls are other calls
      ++runtime_.repeated_rows;
      return;
    }
  }
  runtime_.api_calls.push_back({source_, row});
}

void KernelAggregator::OnGpuOpSummary(const model::GpuOpSummaryRow& row) {
  for (auto& have : runtime_.gpu_ops) {
    if (have.row.operation != row.operation) continue;
    const bool adds_time = !have.row.time && row.time;
    const bool adds_size = !have.row.total_bytes && row.total_bytes;
    if (adds_time) have.row.time = row.time;
    if (adds_size) {
      have.row.total_bytes = row.total_bytes;
      have.row.mean_bytes = row.mean_bytes;
      have.row.max_bytes = row.max_bytes;
    }
    if (!adds_time && !adds_size) ++runtime_.repeated_rows;
    return;
  }
  runtime_.gpu_ops.push_back({source_, row});
}

void KernelAggregator::OnLaunchOverhead(const model::LaunchOverheadRow& row) {
  overhead_rows_.push_back({input_, {source_, row}});
}

RuntimeSummaries KernelAggregator::runtime() const {
  RuntimeSummaries out = runtime_;
  std::vector<OverheadRow> all = overhead_rows_;
  for (const auto& t : timelines_) {
    for (auto& row : t.builder.Rows()) all.push_back({t.input, {t.source, std::move(row)}});
  }
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.input < b.input; });
  // Per launch path, the ranks kept and where each row came from. Two ranks'
  // processes may share a pid (one per container): rows of different ranks
  // are different launches; a row without a rank (nsys stats) may be any.
  std::map<LaunchPath, std::vector<std::pair<std::optional<std::int64_t>, model::LaunchOverheadFrom>>> kept;
  for (auto& r : all) {
    const model::LaunchOverheadRow& row = r.row.row;
    auto& same_path = kept[PathOf(row)];
    const auto earlier = std::find_if(same_path.begin(), same_path.end(), [&](const auto& k) {
      return !k.first || !row.process.rank || *k.first == *row.process.rank;
    });
    if (earlier == same_path.end()) {
      same_path.emplace_back(row.process.rank, row.from);
      out.launch_overhead.push_back(std::move(r.row));
    } else if (earlier->second == row.from && row.from == model::LaunchOverheadFrom::kKernExecSum) {
      ++out.repeated_rows;  // the same nsys report again
    } else {
      ++out.repeated_launch_paths;
    }
  }
  return out;
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
