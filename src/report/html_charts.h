// The SVG charts of report.html, drawn here so the page is the same bytes
// for the same model and needs no chart library. Text in them is escaped
// (html_text.h); every mark carries a <title> with its numbers (hover).
#pragma once

#include <string>
#include <vector>

#include "src/analysis/region_tree.h"
#include "src/report/regions_report.h"
#include "src/report/run_model.h"
#include "src/report/timeline_model.h"

namespace llmpo::report {

// What the icicle's widths measure: the first quantity the tree's top
// regions know, in the order GPU kernel time, CPU range time, projected GPU
// time, GPU memory-operation time.
analysis::Quantity IcicleQuantity(const std::vector<RegionEntry>& entries);
std::string QuantityMeaning(analysis::Quantity q);  // "GPU kernel time (inclusive)", ...

struct IcicleResult {
  std::string svg;
  std::size_t drawn = 0;
  std::size_t hidden = 0;  // narrower than kIcicleMinShare of the width, or without a value
};
IcicleResult IcicleSvg(const std::vector<RegionEntry>& entries, analysis::Quantity q);

// Top kernels as horizontal bars (total GPU time), largest first.
std::string KernelBarsSvg(const std::vector<TopKernel>& top);

// One strip per GPU row: bin shade by busy share; hover shows the numbers.
// Log-log: DRAM arithmetic intensity (FLOP/byte) against achieved FLOP/s,
// one point per kernel and precision sized by its time, with each
// precision's compute roof and the DRAM bandwidth slope.
std::string RooflineSvg(const std::vector<RooflinePoint>& points);

std::string TimelineSvg(const TimelineOverview& timeline);

// A stable colour for a name (hue from a hash), as "hsl(h,55%,62%)".
std::string NameColour(std::string_view name);

}  // namespace llmpo::report
