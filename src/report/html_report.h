// report.html: one self-contained page (no network: a Content-Security-Policy
// forbids it) drawn from the report models. It renders; every number it shows
// comes from RunModel, KernelsReport, RegionsReport or TimelineOverview.
// The same models give the same bytes.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "src/analysis/rank_stragglers.h"

#include "src/report/gpu_breakdown_report.h"
#include "src/analysis/phases.h"
#include "src/report/kernels_report.h"
#include "src/report/page_model.h"
#include "src/report/regions_report.h"
#include "src/report/run_model.h"
#include "src/report/timeline_model.h"

namespace llmpo::report {

struct HtmlReportInput {
  const RunModel* run = nullptr;               // required
  const KernelsReport* kernels = nullptr;      // required
  const RegionsReport* regions = nullptr;      // null: the inputs had no NVTX data
  const TimelineOverview* timeline = nullptr;  // null: no timeline in the inputs
  const PageModel* page = nullptr;             // required: which rows the tables list
  std::string trace_json;                      // link to the Chrome/Perfetto trace, relative to the page; "" when none
  const GpuBreakdownReport* gpu_breakdown = nullptr;  // null: no PyTorch trace with CPU ops
  const analysis::PhaseReport* phases = nullptr;  // null: no steps and no graph launches
  const analysis::Stragglers* stragglers = nullptr;  // null: fewer than two ranks with regions
};

// The page into `sink`, a section at a time.
void WriteHtmlReport(const HtmlReportInput& input, std::ostream& sink);

}  // namespace llmpo::report
