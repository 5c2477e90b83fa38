// What report.html lists of a report set, decided when the set is built
// (report_set.cc), so the page only renders: the rows of its kernel table,
// the top-level regions of its overview, how many region rows it holds.
#pragma once

#include <cstddef>
#include <vector>

namespace llmpo::report {

// Table rows the page embeds at most; the rest are counted, and named in
// kernels.json / the region reports.
inline constexpr std::size_t kHtmlMaxKernelRows = 2000;
inline constexpr std::size_t kHtmlMaxRegionRows = 20000;
// Top-level regions listed in the overview (the largest).
inline constexpr std::size_t kHtmlTopRegions = 10;
// Regions narrower than this share of the icicle's width (0.05 px of 1000;
// 5 px after zooming into a region of 1 %) are not drawn
// (their time shows inside their parent's block).
inline constexpr double kIcicleMinShare = 1.0 / 20000;

// What report.html lists, decided once (the page renders it as it is).
struct PageModel {
  // The kernel table's rows: indices into kernels.kernels, most GPU kernel
  // time first, at most kHtmlMaxKernelRows; the rest are counted.
  std::vector<std::size_t> kernel_rows;
  std::size_t kernels_omitted = 0;
  // The top-level regions the overview lists: indices into run.stages,
  // largest share first, at most kHtmlTopRegions; the share of the others.
  std::vector<std::size_t> top_stages;
  double other_stages_share_pct = 0;
  // How many region rows the page's region table holds (tree order, at most
  // kHtmlMaxRegionRows); the rest are counted there.
  std::size_t region_rows = 0;
};

}  // namespace llmpo::report
