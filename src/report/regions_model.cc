#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "src/report/regions_report.h"

namespace llmpo::report {
namespace {

// In tree order: each region right after its parent's earlier children and
// their subtrees, siblings in the order they were first seen. Storage order
// is not enough: a child first seen after other top-level regions would be
// listed (and indented) under the wrong one.
std::vector<RegionEntry> Entries(const analysis::RegionTree& tree) {
  const auto& regions = tree.regions();
  std::vector<std::vector<std::size_t>> children(regions.size());
  std::vector<std::size_t> roots;
  for (std::size_t i = 0; i < regions.size(); ++i) {
    const auto& parent = regions[i].parent;
    (parent && *parent < regions.size() ? children[*parent] : roots).push_back(i);
  }
  std::vector<RegionEntry> out;
  out.reserve(regions.size());
  std::vector<std::size_t> stack(roots.rbegin(), roots.rend());  // iterative: NVTX depth is the input's
  while (!stack.empty()) {
    const std::size_t i = stack.back();
    stack.pop_back();
    const auto& r = regions[i];
    RegionEntry e{&r, std::nullopt, ""};
    e.tree_index = i;
    if (r.parent) e.parent_label = regions[*r.parent].label;
    out.push_back(std::move(e));
    stack.insert(stack.end(), children[i].rbegin(), children[i].rend());
  }
  return out;
}

void AssignFolders(std::vector<RegionEntry>& entries, const std::string& prefix) {
  std::set<std::string> used;
  for (auto& e : entries) {
    const std::string base = SanitizeFolderName(e.region->path);
    std::string name = base;
    for (int n = 2; used.count(name); ++n) {
      // The suffix counts towards the 80 characters: the base gives way.
      const std::string suffix = fmt::format("-{}", n);
      name = base.substr(0, std::min(base.size(), kMaxFolderName - suffix.size())) + suffix;
    }
    used.insert(name);
    e.folder = prefix + name;
  }
}

std::vector<std::string> NoMatchCauses() {
  return {
      "No launch ran inside an NVTX range. Likely causes:",
      "- push/pop ranges are matched by ncu only with a trailing '/': --nvtx-include 'A/' (config: "
      "pipeline.ncu.ncu_cli.nvtx.include='A/')",
      "- the ranges are in a named domain: write DOMAIN@RANGE/ (Python's nvtx package uses the domain NVTX)",
      "- nsys records registered strings only with NSYS_NVTX_PROFILER_REGISTER_ONLY=0",
      "- the program emitted no NVTX ranges around its kernels (or emitted them on another thread than the launches)",
  };
}

// The quantity folders are ranked by: the first of GPU kernel time,
// projection and CPU range time that any region has.
struct RankQuantity {
  std::optional<double> analysis::Region::*member;
  const char* meaning;
};

std::optional<RankQuantity> ChooseRankQuantity(const std::vector<RegionEntry>& entries) {
  static const RankQuantity kOrder[] = {{&analysis::Region::total_ns, "GPU kernel time"},
                                        {&analysis::Region::projected_ns, "GPU projection"},
                                        {&analysis::Region::cpu_ns, "CPU range time"}};
  for (const auto& q : kOrder) {
    for (const auto& e : entries) {
      if ((e.region->*q.member).has_value()) return q;
    }
  }
  return std::nullopt;
}

// Clears the folder of all but the `max_folders` largest entries; returns how
// many lost theirs.
std::size_t KeepLargestFolders(std::vector<RegionEntry>& entries, std::size_t max_folders, const RankQuantity* rank) {
  if (entries.size() <= max_folders) return 0;
  std::vector<std::size_t> order(entries.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (rank != nullptr) {
    // Regions without the quantity rank after every region with it.
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      const auto& va = entries[a].region->*rank->member;
      const auto& vb = entries[b].region->*rank->member;
      if (va.has_value() != vb.has_value()) return va.has_value();
      return va.has_value() && *va > *vb;
    });
  }
  for (std::size_t i = max_folders; i < order.size(); ++i) entries[order[i]].folder.clear();
  return entries.size() - max_folders;
}

// Kernel names repeat over thousands of regions: each is matched once.
using CategoryCache = std::unordered_map<std::string, std::string_view>;

std::vector<std::pair<std::string, double>> CategoryTimes(const analysis::Region& r,
                                                          const analysis::KernelCategorizer& categorizer,
                                                          CategoryCache& cache) {
  std::map<std::string, double> by;
  for (const auto& [name, k] : r.kernels) {
    if (k.timed_calls == 0) continue;
    auto it = cache.find(name);
    if (it == cache.end()) it = cache.emplace(name, categorizer.Categorize(name)).first;
    by[std::string(it->second)] += k.total_ns;
  }
  std::vector<std::pair<std::string, double>> out(by.begin(), by.end());
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return out;
}

// GPU busy % of the projection: kernel and copy time over the span from the
// first start to the last end of the GPU work launched inside. Durations
// measured under ncu (serialised, clocks locked) never enter it.
void Busy(RegionEntry& e, const std::vector<SourceInfo>& sources) {
  const analysis::Region& r = *e.region;
  for (const auto& input : r.inputs) {
    for (const auto& s : sources) {
      if (s.path != input || s.family == model::SourceFamily::kTimeline) continue;
      e.busy_missing = s.family == model::SourceFamily::kNcu
                           ? "kernel times from ncu (serialised); busy time needs a timeline (nsys, the tracer, a "
                             "PyTorch trace)"
                           : "times from nsys stats summaries (no per-launch times); busy time needs a timeline "
                             "(an nsys SQLite export, the tracer, a PyTorch trace)";
      return;
    }
  }
  if (!r.projected_ns || *r.projected_ns <= 0) {
    // A timeline that traced GPU work projects every range (0 without work
    // inside); no projection at all means the input holds no GPU trace.
    e.busy_missing = r.projected_ns ? "GPU projection is 0: no GPU work launched inside the range"
                                    : "no GPU projection: the input traced no GPU work (an nsys export without CUDA "
                                      "tables, a trace without CUPTI)";
    return;
  }
  if (!r.total_ns) {
    e.busy_missing = "no kernel time";
    return;
  }
  e.busy_pct = 100.0 * (*r.total_ns + r.gpu_ops_ns.value_or(0)) / *r.projected_ns;
}

void RegionFindings(RegionEntry& e) {
  std::map<std::string, RegionFinding> by;
  double region_ns = 0;
  for (const auto& [name, k] : e.region->kernels) {
    region_ns += k.total_ns;
    std::set<std::string> rules;
    for (const auto& f : k.findings) {
      if (f.finding.speedup_kind != model::SpeedupKind::kGlobal) continue;
      RegionFinding& rf = by[f.finding.rule];
      rf.rule = f.finding.rule;
      if (rules.insert(f.finding.rule).second) ++rf.kernels;
      rf.launches += f.launches;
      const auto pct = f.MeanSpeedupPct();
      if (pct && k.timed_calls > 0) rf.saving_pct = rf.saving_pct.value_or(0) + k.total_ns * *pct / 100.0;
    }
  }
  for (auto& [rule, rf] : by) {
    if (rf.saving_pct) rf.saving_pct = region_ns > 0 ? std::optional(100.0 * *rf.saving_pct / region_ns) : std::nullopt;
    e.findings.push_back(rf);
  }
  std::stable_sort(e.findings.begin(), e.findings.end(),
                   [](const auto& a, const auto& b) { return a.saving_pct.value_or(-1) > b.saving_pct.value_or(-1); });
}

void Analyze(std::vector<RegionEntry>& entries, const std::vector<SourceInfo>& sources,
             const analysis::KernelCategorizer* categorizer, const analysis::MetricSelection& selection) {
  CategoryCache cache;
  for (auto& e : entries) {
    ChooseKernelTable(e.region->kernels, selection, e.kernels_by_time, e.metric_columns);
    if (!e.region->range_metrics.metrics.empty()) {
      std::vector<std::string> whole;
      ChooseKernelTable({{"(whole range)", e.region->range_metrics}}, selection, whole, e.range_metric_columns);
    }
    if (categorizer != nullptr) e.category_ns = CategoryTimes(*e.region, *categorizer, cache);
    Busy(e, sources);
    RegionFindings(e);
    std::vector<const analysis::KernelAggregate*> kernels;
    for (const auto& [name, k] : e.region->kernels) kernels.push_back(&k);
    e.roofline = analysis::TimeWeightedRoofline(kernels);
  }
}

}  // namespace

void ChooseKernelTable(const std::map<std::string, analysis::KernelAggregate>& kernels,
                       const analysis::MetricSelection& selection, std::vector<std::string>& by_time,
                       std::vector<std::pair<std::string, std::string>>& columns, std::size_t max_columns) {
  std::vector<std::pair<const std::string*, const analysis::KernelAggregate*>> sorted;  // (key, kernel)
  for (const auto& [name, k] : kernels) sorted.emplace_back(&name, &k);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second->total_ns > b.second->total_ns; });
  by_time.clear();
  columns.clear();
  for (const auto& [key, k] : sorted) {
    by_time.push_back(*key);
    for (const auto& m : k->metrics) {
      if (columns.size() < max_columns && selection.Shows(m) && m.values > 0 &&
          std::find(columns.begin(), columns.end(), std::pair(m.section, m.name)) == columns.end()) {
        columns.emplace_back(m.section, m.name);
      }
    }
  }
}

void LimitRegionFolders(RegionsReport& report, std::size_t max_folders) {
  auto limit = [&](std::vector<RegionEntry>& entries, const std::string& where) {
    const auto rank = ChooseRankQuantity(entries);
    const std::size_t dropped = KeepLargestFolders(entries, max_folders, rank ? &*rank : nullptr);
    if (dropped == 0) return;
    report.notes.push_back(
        fmt::format("Per-region folders{}: {} of {} regions have one, those with the most {}; every region is in "
                    "report.md and report.json (pipeline.regions.max_folders sets the limit)",
                    where, max_folders, entries.size(), rank ? rank->meaning : "(no time known: first in tree order)"));
  };
  if (report.aggregate) {
    limit(*report.aggregate, "");
    return;
  }
  for (auto& scope : report.scopes) {
    limit(scope.regions, fmt::format(" ({}, device {})", scope.process, scope.device));
  }
}

std::string SanitizeFolderName(const std::vector<std::string>& path) {
  std::string raw;
  for (const auto& part : path) raw += (raw.empty() ? "" : "__") + part;
  std::string out;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (c == ':' && i + 1 < raw.size() && raw[i + 1] == ':') {
      out += "__";
      ++i;
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_') {
      out += c;
    } else if (out.empty() || out.back() != '_') {
      out += '_';
    }
  }
  while (!out.empty() && (out.front() == '.' || out.front() == '_')) out.erase(0, 1);
  while (!out.empty() && (out.back() == '.' || out.back() == '_')) out.pop_back();
  if (out.size() > kMaxFolderName) out.resize(kMaxFolderName);
  return out.empty() ? "region" : out;
}

RegionsReport BuildRegionsReport(const analysis::CombinedRegions& regions, std::vector<SourceInfo> sources,
                                 analysis::MetricSelection selection, bool aggregate,
                                 const model::Diagnostics& diagnostics,
                                 const analysis::KernelCategorizer* categorizer) {
  RegionsReport report;
  report.sources = std::move(sources);
  report.selection = std::move(selection);
  report.launches_with_nvtx = regions.launches_with_nvtx;
  report.launches_per_range = regions.launches_per_range;
  report.launches_outside = regions.launches_outside;
  report.diagnostics = diagnostics;
  if (aggregate) {
    report.aggregate = Entries(regions.aggregate);
    AssignFolders(*report.aggregate, "");
    Analyze(*report.aggregate, report.sources, categorizer, report.selection);
  }
  for (const auto& [scope, tree] : regions.scopes) {
    ScopeEntry s{scope.process, scope.device, Entries(tree)};
    Analyze(s.regions, report.sources, categorizer, report.selection);
    if (!aggregate) {
      AssignFolders(s.regions, SanitizeFolderName({scope.process.Known() ? scope.process.Label() : "process",
                                                   "device" + scope.device}) +
                                   "/");
    }
    report.scopes.push_back(std::move(s));
  }
  std::vector<const analysis::MetricAggregate*> present;
  for (const auto& [scope, tree] : regions.scopes) {
    for (const auto& r : tree.regions()) {
      for (const auto& [name, k] : r.kernels) {
        for (const auto& m : k.metrics) present.push_back(&m);
      }
      for (const auto& m : r.range_metrics.metrics) present.push_back(&m);
    }
  }
  report.notes = regions.notes;
  if (!present.empty()) {
    const auto checks = report.selection.Check(present);
    report.notes.insert(report.notes.end(), checks.begin(), checks.end());
  }
  if (regions.aggregate.regions().empty()) {
    const auto causes = NoMatchCauses();
    report.notes.insert(report.notes.end(), causes.begin(), causes.end());
  }
  return report;
}

}  // namespace llmpo::report
