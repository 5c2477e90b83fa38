#include "src/analysis/launch_pairing.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <iterator>
#include <set>
#include <tuple>

#include "src/analysis/region_tree.h"

namespace llmpo::analysis {
namespace {

using TimelineLaunch = LaunchPairing::TimelineLaunch;
using NcuResult = LaunchPairing::NcuResult;

std::optional<std::int64_t> ResultNumber(const std::string& id) {
  std::int64_t n = 0;
  const auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), n);
  if (ec != std::errc() || end != id.data() + id.size()) return std::nullopt;
  return n;
}

// Why the launches of one kernel cannot be paired one by one; "" when they can.
std::string WhyNotByLaunch(const std::vector<TimelineLaunch>& launches, const std::vector<NcuResult>& results) {
  if (launches.size() != results.size()) {
    return fmt::format("the timeline has {} launch(es), ncu {} result(s) (ncu profiled a subset?)", launches.size(),
                       results.size());
  }
  std::set<std::pair<model::ProcessId, std::string>> scopes;
  for (const auto& l : launches) scopes.emplace(l.process, l.device);
  if (scopes.size() > 1) return fmt::format("the timeline has it in {} processes/devices", scopes.size());
  std::set<std::tuple<std::string, model::ProcessId, std::string>> ncu_scopes;
  for (const auto& r : results) ncu_scopes.emplace(r.source, r.record.process, r.record.device);
  if (ncu_scopes.size() > 1) return fmt::format("ncu has it in {} inputs/processes/devices", ncu_scopes.size());
  return "";
}

std::vector<const TimelineLaunch*> InLaunchOrder(const std::vector<TimelineLaunch>& launches) {
  std::vector<const TimelineLaunch*> order;
  order.reserve(launches.size());
  for (const auto& l : launches) order.push_back(&l);
  std::stable_sort(order.begin(), order.end(), [](const TimelineLaunch* a, const TimelineLaunch* b) {
    return std::tie(a->launch_ns, a->start_ns) < std::tie(b->launch_ns, b->start_ns);
  });
  return order;
}

std::vector<const NcuResult*> InResultOrder(const std::vector<NcuResult>& results) {
  std::vector<const NcuResult*> order;
  order.reserve(results.size());
  for (const auto& r : results) order.push_back(&r);
  std::stable_sort(order.begin(), order.end(), [](const NcuResult* a, const NcuResult* b) { return a->id < b->id; });
  return order;
}

// A record with only the timeline's duration, for the calls and times of a row.
model::LaunchRecord TimesOnly(const TimelineLaunch& l) {
  model::LaunchRecord r;
  if (l.timed) r.duration_ns = l.duration_ns;
  return r;
}

struct RowBuilder {
  KernelAggregate times;
  KernelAggregate metrics;  // the paired results (ncu's durations weigh its rates)
};

void TakeMetrics(KernelAggregate& into, const KernelAggregate& from) {
  into.metrics = from.metrics;
  into.findings = from.findings;
}

}  // namespace

std::uint32_t LaunchPairing::RegionId(const model::LaunchRecord& launch) {
  std::vector<std::string> path;
  path.reserve(launch.nvtx_stack.size());
  for (const auto& frame : launch.nvtx_stack) path.push_back(RegionLabel(frame));
  auto [it, inserted] = region_ids_.try_emplace(path, static_cast<std::uint32_t>(regions_.size()));
  if (inserted) regions_.push_back(std::move(path));
  return it->second;
}

void LaunchPairing::OnLaunch(const model::LaunchRecord& launch) {
  if (launch.kind != model::LaunchKind::kKernel) return;
  const std::int64_t arrival = arrival_++;
  // ncu results have no start time, timeline launches do: each is kept only
  // where it can be used (a copy of every timeline launch with its NVTX stack
  // would grow with the trace), and an ncu copy without its NVTX stacks.
  if (!launch.start_ns) {
    NcuResult r{"", ResultNumber(launch.result_id).value_or(arrival), launch};
    r.record.nvtx_stack.clear();
    r.record.nvtx_start_end.clear();
    pending_ncu_[launch.kernel_name].push_back(std::move(r));
    return;
  }
  TimelineLaunch t;
  t.process = launch.process;
  t.device = launch.device;
  t.start_ns = launch.start_ns.value_or(arrival);
  t.launch_ns = launch.launch_call_start_ns.value_or(t.start_ns);
  t.timed = launch.duration_ns.has_value();
  t.duration_ns = launch.duration_ns.value_or(0);
  t.region = RegionId(launch);
  pending_timeline_[launch.kernel_name].push_back(std::move(t));
}

void LaunchPairing::EndInput(const std::string& source, model::SourceFamily family) {
  if (family == model::SourceFamily::kTimeline) {
    auto& into = timelines_[source];
    for (auto& [name, launches] : pending_timeline_) {
      auto& v = into[name];
      v.insert(v.end(), std::make_move_iterator(launches.begin()), std::make_move_iterator(launches.end()));
    }
  } else if (family == model::SourceFamily::kNcu) {
    for (auto& [name, results] : pending_ncu_) {
      for (auto& r : results) {
        r.source = source;
        ncu_[name].push_back(std::move(r));
      }
    }
  }
  pending_timeline_.clear();
  pending_ncu_.clear();
}

PairingResult LaunchPairing::Pair(const std::string& timeline_source, model::Diagnostics& diagnostics) const {
  PairingResult out;
  const auto timeline = timelines_.find(timeline_source);
  if (timeline == timelines_.end()) return out;
  std::map<std::pair<std::uint32_t, std::string>, RowBuilder> rows;  // (region, kernel)
  std::set<std::pair<std::uint32_t, std::string>> by_launch;
  for (const auto& [name, launches] : timeline->second) {
    const auto found = ncu_.find(name);
    static const std::vector<NcuResult> kNone;
    const std::vector<NcuResult>& results = found == ncu_.end() ? kNone : found->second;
    const std::string why = results.empty() ? "" : WhyNotByLaunch(launches, results);
    if (!results.empty() && why.empty()) {
      ++out.kernels_by_launch;
      const auto order = InLaunchOrder(launches);
      const auto ncu_order = InResultOrder(results);
      for (std::size_t i = 0; i < order.size(); ++i) {
        RowBuilder& row = rows[{order[i]->region, name}];
        AddLaunch(row.times, TimesOnly(*order[i]));
        AddLaunch(row.metrics, ncu_order[i]->record);
        by_launch.insert({order[i]->region, name});
      }
      continue;
    }
    KernelAggregate all_results;
    for (const auto& r : results) AddLaunch(all_results, r.record);
    if (results.empty()) {
      ++out.kernels_unmatched;
    } else {
      ++out.kernels_by_name;
      diagnostics.Add(model::Diag::kernel_paired_by_name, fmt::format("kernels_combined: kernel '{}': {}; every launch takes ncu's aggregate over its "
                                  "results (matched by name, not launch by launch)",
                                  model::Excerpt(name), why));
    }
    for (const auto& l : launches) {
      RowBuilder& row = rows[{l.region, name}];
      AddLaunch(row.times, TimesOnly(l));
      row.metrics = all_results;
    }
  }
  out.rows.reserve(rows.size());
  for (auto& [key, row] : rows) {
    RegionKernel rk{regions_[key.first], std::move(row.times), by_launch.contains(key)};
    rk.kernel.source = timeline_source;
    rk.kernel.name = key.second;
    TakeMetrics(rk.kernel, row.metrics);
    out.rows.push_back(std::move(rk));
  }
  std::stable_sort(out.rows.begin(), out.rows.end(), [](const RegionKernel& a, const RegionKernel& b) {
    return std::tie(a.region, a.kernel.name) < std::tie(b.region, b.kernel.name);
  });
  return out;
}

}  // namespace llmpo::analysis
