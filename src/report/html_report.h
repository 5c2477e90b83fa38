// report.html: one self-contained page (no network: a Content-Security-Policy
// forbids it) drawn from the report models. It renders; every number it shows
// comes from RunModel, KernelsReport, RegionsReport or TimelineOverview.
// The same models give the same bytes.
#pragma once

#include <optional>
#include <string>

#include "src/report/kernels_report.h"
#include "src/report/regions_report.h"
#include "src/report/run_model.h"
#include "src/report/timeline_model.h"

namespace llmpo::report {

struct HtmlReportInput {
  const RunModel* run = nullptr;               // required
  const KernelsReport* kernels = nullptr;      // required
  const RegionsReport* regions = nullptr;      // null: the inputs had no NVTX data
  const TimelineOverview* timeline = nullptr;  // null: no timeline in the inputs
  std::string trace_json;                      // link to the Chrome/Perfetto trace, relative to the page; "" when none
};

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

std::string HtmlReport(const HtmlReportInput& input);

}  // namespace llmpo::report
