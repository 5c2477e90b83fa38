// `trace`: runs a program under our NVTX + CUPTI tracer (tracer/), then turns
// the per-process traces in TRACE_DIR into the summaries nsys would give
// (kernel, NVTX range, GPU projection; CSV in the nsys stats shapes), a
// Chrome/Perfetto trace JSON, and, through the importers, kernels.md/json
// and the region report.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "src/core/exit_status.h"
#include "src/pipeline/profile_job.h"
#include "src/pipeline/region_options.h"
#include "src/pipeline/run_folder.h"
#include "src/report/report_set.h"
#include "src/report/timeline_model.h"

namespace llmpo::pipeline {

// The tracer library: $LLMPO_TRACER_LIBRARY, else libllmpo_tracer.so next to
// the running executable; an error names both when neither exists.
Result<std::filesystem::path> FindTracerLibrary();

struct TraceOutcome {
  RunStatus status = RunStatus::kOk;
  ExitStatus exit = ExitStatus::kOk;
  std::string reason;
};

// Runs `workload` with the tracer (step "trace", outputs in trace/), then
// BuildTraceReports.
TraceOutcome RunTrace(RunFolder& run, const std::vector<std::string>& workload, const std::filesystem::path& library,
                      const RegionOptions& regions, const ExecuteOptions& options);

// Every trace/trace.*.tsv of a run folder, read once, and their summaries.
// An input error when there is none.
Result<report::TraceOutputs> LoadTraceOutputs(const std::filesystem::path& run_dir);

// Reads every trace/trace.*.tsv of a run folder and writes the summaries,
// trace/trace.json and trace/data_quality.txt (the output table's trace
// rows); returns the files written.
Result<std::vector<std::string>> WriteTraceSummaries(const std::filesystem::path& run_dir);

// The overview report.html draws from a run's traces; null when there are
// none or they cannot be read (WriteTraceSummaries reports why).
std::optional<report::TimelineOverview> TraceTimeline(const std::filesystem::path& run_dir);

// The trace.*.tsv files of a run's trace/ folder, sorted.
std::vector<std::filesystem::path> TraceFiles(const std::filesystem::path& trace_dir);

// What the kernel and region reports of a traced run are imported from: with
// GPU work the traces themselves (kernels in their nested ranges); without,
// the NVTX summary (range times). Needs WriteTraceSummaries first.
std::vector<std::filesystem::path> TraceReportInputs(const std::filesystem::path& trace_dir);

// The trace files (as WriteTraceSummaries), then kernels.md/json,
// trace/regions/ and the rest of the output table from them.
Result<std::vector<std::string>> BuildTraceReports(const std::filesystem::path& run_dir, const RegionOptions& regions);

}  // namespace llmpo::pipeline
