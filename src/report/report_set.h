// The report set: everything every output shows, built once from what an
// import collected by one pure function (BuildReportSet). Every decision is
// taken here or in the analysis it calls: which input the run's kernel times
// come from, the combined kernel table, ranks in order and compared, region
// folders and their cut, unknown-metric notes, actions, the run model. The
// writers (src/report/*_markdown.cc, *_json.cc, html_*.cc) only render it and
// the output table (src/pipeline/outputs.h) only says which file gets what.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "src/analysis/gpu_timeline.h"
#include "src/analysis/kernel_aggregator.h"
#include "src/analysis/kernel_category.h"
#include "src/analysis/launch_pairing.h"
#include "src/analysis/launch_sequence.h"
#include "src/analysis/metric_selection.h"
#include "src/analysis/phases.h"
#include "src/analysis/rank_stragglers.h"
#include "src/analysis/region_combine.h"
#include "src/analysis/trace_summary.h"
#include "src/model/diagnostics.h"
#include "src/model/gpu_breakdown.h"
#include "src/model/trace.h"
#include "src/report/gpu_breakdown_report.h"
#include "src/report/kernels_report.h"
#include "src/report/page_model.h"
#include "src/report/regions_report.h"
#include "src/report/run_model.h"
#include "src/report/summary_report.h"
#include "src/report/timeline_model.h"
#include "src/report/trace_report.h"

namespace llmpo::report {

// A traced run's own files (trace/): its traces, read once, and their
// nsys-shaped summaries.
struct TraceOutputs {
  std::vector<model::TraceData> traces;
  std::vector<std::filesystem::path> files;             // files[i] held traces[i]
  std::vector<model::Diagnostics> file_diagnostics;     // what reading files[i] found
  analysis::TraceSummaries summaries;
  model::Diagnostics diagnostics;  // every file's, merged (trace/data_quality.txt)
};

// What an import's collectors hold when the last input is read
// (src/pipeline/collectors.h). The regions and the pairing stay owned by
// the collectors, which outlive the report set.
struct Collected {
  std::vector<SourceInfo> sources;
  std::vector<analysis::KernelAggregate> kernels;  // sorted per source, largest total first
  analysis::RuntimeSummaries runtime;
  std::vector<analysis::DeviceBusy> gpu_busy;
  model::GpuBreakdown gpu_breakdown;
  std::optional<TimelineOverview> timeline;  // from the launches of the first timed timeline input
  const analysis::CombinedRegions* regions = nullptr;
  std::vector<std::string> unused_kernel_patterns;
  const analysis::LaunchPairing* pairing = nullptr;  // null: pairing was not wanted
  std::vector<analysis::SourceSequences> launch_sequences;  // per input, for compare
  model::Diagnostics diagnostics;                    // the importers'
  model::Diagnostics region_diagnostics;             // the region builders'
  const TraceOutputs* trace = nullptr;        // a traced run's own outputs (owned by the trace job)
  analysis::PhaseInput phases;                // steps and timed kernels (analysis/phases.h)
};

struct ReportOptions {
  std::size_t top_k = 50;
  analysis::MetricSelection selection;
  bool aggregate = true;
  std::size_t max_folders = 1000;
  const analysis::KernelCategorizer* categorizer = nullptr;  // required
  std::string regions_subdir = "regions";
  // A run folder's reports (stakeholder_summary.md, report.md): its context.
  std::optional<RunContext> run_folder;
  // report.html's run when there is no run folder (default: named after the inputs).
  std::optional<RunContext> html_run;
  // A trace run's overview (its traces hold copies and NVTX ranges too),
  // instead of the one drawn from the launches.
  std::optional<TimelineOverview> timeline;
  std::string trace_json_link;  // relative to the output folder; "" when none
  analysis::PhaseOptions phases;
};

struct ReportSet {
  KernelsReport kernels;
  std::size_t top_k = 50;
  std::optional<KernelsReport> combined;  // kernels_combined: a timeline and an ncu input together
  std::optional<GpuBreakdownReport> gpu_breakdown;
  std::optional<RegionsReport> regions;
  std::string regions_subdir = "regions";
  std::optional<TimelineOverview> timeline;
  std::string trace_json_link;
  RunModel run;                // report.html, and a run folder's summaries
  PageModel page;              // report.html's choices of rows
  bool run_folder = false;     // stakeholder_summary.md and report.md are written
  const TraceOutputs* trace = nullptr;  // a traced run's trace/ files (owned by the trace job)
  // Kernel launch order per region and input (compare's alignment; in report_set.json only).
  std::vector<analysis::SourceSequences> launch_sequences;
  std::optional<analysis::PhaseReport> phases;  // LLM phases (report/phases_model.h); null: no steps, no graphs
  std::optional<analysis::Stragglers> stragglers;  // two or more ranks with regions (stragglers.md)
};

// Takes what was collected by value: the kernel table, the breakdown and the
// diagnostics move into the set instead of being copied.
ReportSet BuildReportSet(Collected collected, const ReportOptions& options);

// Its parts, for tests and for BuildReportSet.
GpuBreakdownReport BuildGpuBreakdownReport(model::GpuBreakdown breakdown, std::size_t top_cpu_ops);

}  // namespace llmpo::report
