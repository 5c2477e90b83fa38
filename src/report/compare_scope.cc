// Scopes in compare: a side narrowed to one rank or device (`SIDE@rank=3`),
// and the per-scope table, scopes matched by role (docs/compare.md).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "src/report/compare_model.h"
#include "src/report/kernels_report.h"

namespace llmpo::report {
namespace {

// How scopes of two sides are matched: the rank where the process has one,
// else the device, else the process as reports name it.
std::string RoleOf(const model::ProcessId& process, const std::string& device) {
  if (process.rank) return fmt::format("rank {}", *process.rank);
  if (!device.empty()) return fmt::format("device {}", device);
  return process.Label();
}

bool Matches(const model::ProcessId& process, const std::string& device, const ScopeFilter& f) {
  if (f.key == "rank") return process.rank && std::to_string(*process.rank) == f.value;
  return device == f.value;
}

struct ScopeTotals {
  double ns = 0;
  std::uint64_t launches = 0;
  std::optional<double> var = 0.0;  // variance of ns; null when a kernel's spread is unknown
};

std::map<std::string, ScopeTotals> TotalsByRole(const ReportSet& set) {
  // The kernels TimesFromEachRank picks, read in place: only their times and
  // counts are summed, not the metrics it would copy them with.
  const TimingChoice timing = TimingChoice::Of(set.kernels);
  std::map<std::string, ScopeTotals> out;
  for (const auto& k : set.kernels.kernels) {
    if (!timing.Times(k.source, k.process.rank)) continue;
    ScopeTotals& t = out[RoleOf(k.process, k.device)];
    if (k.timed_calls) t.ns += k.total_ns;
    t.launches += k.calls;
    const auto v = analysis::TotalVariance(k.timed_calls, k.sum_sq_dev_ns2);
    if (t.var && v) {
      *t.var += *v;
    } else {
      t.var.reset();
    }
  }
  return out;
}

// The regions of the kept scopes, in one list: a narrowed side's aggregate.
std::vector<RegionEntry> ScopeRegions(const std::vector<ScopeEntry>& scopes) {
  std::vector<RegionEntry> regions;
  for (const auto& scope : scopes) regions.insert(regions.end(), scope.regions.begin(), scope.regions.end());
  return regions;
}

}  // namespace

std::vector<ScopeDelta> ScopeDeltas(const ReportSet& base, const ReportSet& next, const CompareOptions& options) {
  const auto b = TotalsByRole(base), n = TotalsByRole(next);
  if (b.size() < 2 && n.size() < 2) return {};
  std::set<std::string> roles;
  for (const auto& [role, t] : b) roles.insert(role);
  for (const auto& [role, t] : n) roles.insert(role);
  std::vector<ScopeDelta> out;
  for (const auto& role : roles) {
    ScopeDelta d;
    d.scope = role;
    const auto bi = b.find(role), ni = n.find(role);
    if (bi != b.end()) d.base_ns = bi->second.ns, d.base_launches = bi->second.launches;
    if (ni != n.end()) d.new_ns = ni->second.ns, d.new_launches = ni->second.launches;
    d.delta_ns = d.new_ns.value_or(0) - d.base_ns.value_or(0);
    if (bi != b.end() && ni != n.end()) {
      d.test = analysis::TestTotal(bi->second.ns, bi->second.var, ni->second.ns, ni->second.var,
                                   options.significance);
    }
    out.push_back(std::move(d));
  }
  std::stable_sort(out.begin(), out.end(), [](const ScopeDelta& x, const ScopeDelta& y) {
    return std::fabs(x.delta_ns) > std::fabs(y.delta_ns);
  });
  return out;
}

std::optional<std::string> SelectScope(ReportSet& set, const ScopeFilter& filter) {
  std::set<std::string> present;
  std::vector<KernelRow> kept;
  for (auto& k : set.kernels.kernels) {
    present.insert(filter.key == "rank" ? (k.process.rank ? std::to_string(*k.process.rank) : "") : k.device);
    if (Matches(k.process, k.device, filter)) kept.push_back(std::move(k));
  }
  present.erase("");
  if (kept.empty()) {
    return fmt::format("no kernel ran in {} {}; the {}s there are: {}", filter.key, filter.value, filter.key,
                       present.empty() ? std::string("none") : fmt::format("{}", fmt::join(present, ", ")));
  }
  set.kernels.kernels = std::move(kept);
  if (set.regions) {
    std::erase_if(set.regions->scopes, [&](const ScopeEntry& s) { return !Matches(s.process, s.device, filter); });
    set.regions->aggregate = ScopeRegions(set.regions->scopes);
  }
  for (auto& source : set.launch_sequences) {
    std::erase_if(source.sequences,
                  [&](const analysis::LaunchSequence& s) { return !Matches(s.process, s.device, filter); });
  }
  return std::nullopt;
}

std::optional<ReportSet> ScopeCopy(const ReportSet& set, const ScopeFilter& filter) {
  ReportSet one;
  one.kernels = KernelsReportHead(set.kernels);
  for (const auto& k : set.kernels.kernels) {
    if (Matches(k.process, k.device, filter)) one.kernels.kernels.push_back(k);
  }
  if (one.kernels.kernels.empty()) return std::nullopt;
  for (const auto& o : set.kernels.runtime.launch_overhead) {
    if (Matches(o.row.process, o.row.device, filter)) one.kernels.runtime.launch_overhead.push_back(o);
  }
  one.top_k = set.top_k;
  if (set.regions) {
    RegionsReport& r = one.regions.emplace();
    r.sources = set.regions->sources;
    r.selection = set.regions->selection;
    r.launches_with_nvtx = set.regions->launches_with_nvtx;
    r.launches_outside = set.regions->launches_outside;
    r.launches_per_range = set.regions->launches_per_range;
    r.notes = set.regions->notes;
    r.diagnostics = set.regions->diagnostics;
    r.owned_regions = set.regions->owned_regions;
    for (const auto& scope : set.regions->scopes) {
      if (Matches(scope.process, scope.device, filter)) r.scopes.push_back(scope);
    }
    r.aggregate = ScopeRegions(r.scopes);
  }
  one.regions_subdir = set.regions_subdir;
  one.run = set.run;
  for (const auto& source : set.launch_sequences) {
    analysis::SourceSequences& copy = one.launch_sequences.emplace_back();
    copy.source = source.source;
    copy.launches_not_recorded = source.launches_not_recorded;
    for (const auto& s : source.sequences) {
      if (Matches(s.process, s.device, filter)) copy.sequences.push_back(s);
    }
    // The kernels the kept sequences name; another rank's input keeps none.
    if (!copy.sequences.empty()) copy.signatures = source.signatures;
  }
  return one;
}

}  // namespace llmpo::report
