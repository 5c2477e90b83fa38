#include "src/analysis/launch_overhead.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include "src/core/hash.h"

namespace llmpo::analysis {
namespace {

std::optional<double> Mean(double sum, std::size_t n) {
  if (n == 0) return std::nullopt;
  return sum / static_cast<double>(n);
}


}  // namespace

LaunchOverheadBuilder::Entry LaunchOverheadBuilder::Find(const model::LaunchRecord& launch) {
  if (KeyedEntry* known = by_name_key_.Find(launch.kernel_name_key)) {
    if (launch.origin_key != 0 && known->origin_key == launch.origin_key) return known->entry;
    const Key& k = known->entry->first;
    if (std::get<0>(k) == launch.process && std::get<1>(k) == launch.launch_thread &&
        std::get<2>(k) == launch.device && std::get<3>(k) == launch.launch_call_name) {
      known->origin_key = launch.origin_key;
      return known->entry;
    }
  }
  const auto key =
      std::tie(launch.process, launch.launch_thread, launch.device, launch.launch_call_name, launch.kernel_name);
  std::size_t hash = 0;
  for (const std::string* field : {&launch.process.host, &launch.process.name, &launch.launch_thread, &launch.device,
                                   &launch.launch_call_name, &launch.kernel_name}) {
    hash = HashBytes(*field, hash);
  }
  hash ^= static_cast<std::size_t>(launch.process.pid.value_or(-1)) * 0xC2B2AE3D27D4EB4Full;
  hash ^= static_cast<std::size_t>(launch.process.rank.value_or(-1)) * 0x165667B19E3779F9ull;
  const auto cached = by_hash_.find(hash);
  const bool hit = cached != by_hash_.end() && cached->second->first == key;
  auto it = hit ? cached->second : keys_.find(key);
  if (it == keys_.end()) {
    it = keys_
             .emplace(
                 Key{launch.process, launch.launch_thread, launch.device, launch.launch_call_name, launch.kernel_name},
                 Samples{})
             .first;
  }
  if (!hit) by_hash_.insert_or_assign(hash, it);
  by_name_key_.Put(launch.kernel_name_key, KeyedEntry{it, launch.origin_key});
  return it;
}

void LaunchOverheadBuilder::Add(const model::LaunchRecord& launch) {
  if (launch.kind != model::LaunchKind::kKernel || !launch.start_ns || !launch.end_ns || !launch.launch_call_start_ns ||
      !launch.launch_call_end_ns) {
    return;
  }
  const std::int64_t call_start = *launch.launch_call_start_ns;
  const std::int64_t call_end = *launch.launch_call_end_ns;
  if (call_end < call_start) return;  // a damaged call: no API time to speak of
  Samples& s = Find(launch)->second;
  s.api_ns.Add(call_end - call_start);
  if (*launch.start_ns >= call_end) s.queue_ns.Add(*launch.start_ns - call_end);
  s.kernel_sum_ns += static_cast<double>(*launch.end_ns - *launch.start_ns);
  s.total_sum_ns += static_cast<double>(std::max(call_end, *launch.end_ns) - call_start);
}

std::vector<model::LaunchOverheadRow> LaunchOverheadBuilder::Rows() const {
  std::vector<model::LaunchOverheadRow> rows;
  rows.reserve(keys_.size());
  for (const auto& [key, s] : keys_) {
    model::LaunchOverheadRow row;
    std::tie(row.process, row.thread, row.device, row.api_name, row.kernel_name) = key;
    row.from = model::LaunchOverheadFrom::kTimeline;
    row.count = static_cast<std::int64_t>(s.api_ns.size());
    row.queue_count = static_cast<std::int64_t>(s.queue_ns.size());
    row.api_mean_ns = Mean(s.api_ns.sum(), s.api_ns.size());
    row.api_median_ns = s.api_ns.Median();
    row.api_max_ns = s.api_ns.Max();
    row.queue_mean_ns = Mean(s.queue_ns.sum(), s.queue_ns.size());
    row.queue_median_ns = s.queue_ns.Median();
    row.queue_max_ns = s.queue_ns.Max();
    row.kernel_mean_ns = Mean(s.kernel_sum_ns, s.api_ns.size());
    row.total_mean_ns = Mean(s.total_sum_ns, s.api_ns.size());
    rows.push_back(std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    if (*a.total_mean_ns != *b.total_mean_ns) return *a.total_mean_ns > *b.total_mean_ns;
    return a.kernel_name < b.kernel_name;
  });
  return rows;
}

std::string ProcessMatchKey(const model::ProcessId& process) {
  return process.pid ? fmt::format("pid {}", *process.pid) : process.Label();
}

LaunchPath PathOf(const model::LaunchOverheadRow& row) {
  return {ProcessMatchKey(row.process), row.thread, row.device, row.api_name, row.kernel_name};
}

}  // namespace llmpo::analysis
