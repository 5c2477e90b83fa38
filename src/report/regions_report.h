// The NVTX region report: a finished model built from the region trees, and
// its writers. ncu/regions/report.{md,json} (or regions/ for `import`) hold
// every region; each region also gets a folder with report.md, report.json,
// kernels.csv and, when sections were requested, sections_report.txt.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "src/analysis/kernel_category.h"
#include "src/analysis/metric_selection.h"
#include "src/analysis/region_combine.h"
#include "src/analysis/region_tree.h"
#include "src/analysis/roofline.h"
#include "src/model/diagnostics.h"
#include "src/report/kernels_report.h"

namespace llmpo::report {

inline constexpr const char* kRegionsSchemaVersion = "1.0.0";

// One ncu rule over the kernels of a region.
struct RegionFinding {
  std::string rule;
  std::uint64_t kernels = 0;
  std::uint64_t launches = 0;
  // Sum over its kernels of kernel time x ncu's global speedup, over the
  // region's kernel time (both from the same input): % of the region's
  // kernel time the rule estimates can go.
  std::optional<double> saving_pct;
};

struct RegionEntry {
  const analysis::Region* region;  // owned by the CombinedRegions, which outlive the report
  std::optional<std::string> parent_label;
  std::string folder;  // relative to the regions folder; empty when the scope has no folders
  // The region's index in its tree (what Region::parent and children hold);
  // entries are in tree order, which is not the tree's storage order.
  std::size_t tree_index = 0;
  // Analysis (docs/analysis.md), filled by BuildRegionsReport:
  std::vector<std::pair<std::string, double>> category_ns;  // inclusive kernel time per category, largest first
  std::optional<double> busy_pct;       // (kernel + copy time) / GPU projection, timelines only; > 100: overlap
  std::string busy_missing;             // why busy_pct is absent
  std::vector<RegionFinding> findings;  // rules with a global speedup, largest saving first
  std::vector<analysis::RooflineSummary> roofline;  // its kernels' rooflines, weighted by kernel time
  // Its kernel table as the writers show it: kernel names (keys of the
  // region's kernel map), most GPU kernel time first, and the (section, name) of up to four metric columns the
  // Markdown shows; the same for its range-replay row.
  std::vector<std::string> kernels_by_time;
  std::vector<std::pair<std::string, std::string>> metric_columns;
  std::vector<std::pair<std::string, std::string>> range_metric_columns;
};

// The kernels of a table, most GPU kernel time first (ties by name), and the
// first `max_columns` metrics with values that `selection` shows, in that
// order: what a region's kernel table lists.
void ChooseKernelTable(const std::map<std::string, analysis::KernelAggregate>& kernels,
                       const analysis::MetricSelection& selection, std::vector<std::string>& by_time,
                       std::vector<std::pair<std::string, std::string>>& columns, std::size_t max_columns = 4);

struct ScopeEntry {
  model::ProcessId process;
  std::string device;
  std::vector<RegionEntry> regions;
};

struct RegionsReport {
  std::vector<SourceInfo> sources;
  std::optional<std::vector<RegionEntry>> aggregate;  // absent when the aggregate is turned off
  std::vector<ScopeEntry> scopes;
  analysis::MetricSelection selection;
  std::uint64_t launches_with_nvtx = 0;
  std::uint64_t launches_outside = 0;
  bool launches_per_range = false;  // launches_with_nvtx counts (launch, range) pairs
  std::vector<std::string> notes;  // selection checks, unused patterns, no-match causes
  model::Diagnostics diagnostics;
  // The regions the entries point at when the report owns them (one read
  // back from report_set.json); null when an import's CombinedRegions do.
  std::shared_ptr<const std::deque<analysis::Region>> owned_regions;
};

// Builds the model; regions get folders (sanitized, unique) in the
// aggregate, or in each scope when the aggregate is off.
RegionsReport BuildRegionsReport(const analysis::CombinedRegions& regions, std::vector<SourceInfo> sources,
                                 analysis::MetricSelection selection, bool aggregate,
                                 const model::Diagnostics& diagnostics,
                                 const analysis::KernelCategorizer* categorizer = nullptr);

// Keeps per-region folders for at most `max_folders` regions of each list
// (the aggregate, or each scope without one): those with the most GPU kernel
// time, else projected, else CPU range time (the first quantity any region
// has), ties in tree order. The others keep their place in report.md and
// report.json with no folder; a note says how many got one and by what.
void LimitRegionFolders(RegionsReport& report, std::size_t max_folders);

// The longest region folder name, a "-2", "-3" uniqueness suffix included.
inline constexpr std::size_t kMaxFolderName = 80;

// A folder name from a region path: [A-Za-z0-9._-] kept, '::' -> '__', other
// characters -> '_', runs collapsed, no leading dots, at most 80 characters.
std::string SanitizeFolderName(const std::vector<std::string>& path);

// Streamed: a report over thousands of regions is never held whole in memory.
void WriteRegionsMarkdown(const RegionsReport& report, std::ostream& out);
void WriteRegionsJson(const RegionsReport& report, std::ostream& out);

// Per-region files.
std::string RegionMarkdown(const RegionEntry& entry);  // its kernel table as the entry chose it
std::string RegionJson(const RegionEntry& entry, const analysis::MetricSelection& selection, const std::string& process,
                       const std::string& device);
std::string RegionKernelsCsv(const RegionEntry& entry, const analysis::MetricSelection& selection);
std::string RegionSectionsText(const RegionEntry& entry, const analysis::MetricSelection& selection);

}  // namespace llmpo::report
