#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "src/report/regions_report.h"

namespace llmpo::report {
namespace {

std::vector<RegionEntry> Entries(const analysis::RegionTree& tree) {
  std::vector<RegionEntry> out;
  for (const auto& r : tree.regions()) {
    RegionEntry e{&r, std::nullopt, ""};
    if (r.parent) e.parent_label = tree.regions()[*r.parent].label;
    out.push_back(std::move(e));
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

}  // namespace

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
                                 const model::Diagnostics& diagnostics) {
  RegionsReport report;
  report.sources = std::move(sources);
  report.selection = std::move(selection);
  report.launches_with_nvtx = regions.launches_with_nvtx;
  report.launches_outside = regions.launches_outside;
  report.diagnostics = diagnostics;
  if (aggregate) {
    report.aggregate = Entries(regions.aggregate);
    AssignFolders(*report.aggregate, "");
  }
  for (const auto& [scope, tree] : regions.scopes) {
    ScopeEntry s{scope.process, scope.device, Entries(tree)};
    if (!aggregate) {
      AssignFolders(
          s.regions,
          SanitizeFolderName({scope.process.empty() ? "process" : scope.process, "device" + scope.device}) + "/");
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
