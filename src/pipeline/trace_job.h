// `trace`: a profile plan of one step, the program under our NVTX + CUPTI
// tracer (tracer/), run by the profile step runner (profile_job.h). Its
// traces are read once, right after the program ends: into the summaries
// nsys would give (kernel, NVTX range, GPU projection; CSV in the nsys stats
// shapes), a Chrome/Perfetto trace JSON and trace/data_quality.txt (the
// output table's trace rows), and, through BuildRunReports, the kernel and
// region reports.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "src/pipeline/profile_job.h"
#include "src/pipeline/region_options.h"
#include "src/pipeline/run_folder.h"
#include "src/report/report_set.h"

namespace llmpo::pipeline {

// The tracer library: $LLMPO_TRACER_LIBRARY, else libllmpo_tracer.so next to
// the running executable; an error names both when neither exists.
Result<std::filesystem::path> FindTracerLibrary();

// Runs `workload` with the tracer (step "trace", outputs in trace/), then the
// trace files (step "trace-summaries") and the reports (step "report").
// Under a launcher (`launch`), the tracer goes inside it, one trace per rank
// (rank_plan.h).
ProfileOutcome RunTrace(RunFolder& run, const std::vector<std::string>& workload, const std::filesystem::path& library,
                        const RegionOptions& regions, const ExecuteOptions& options,
                        const std::optional<LaunchSplit>& launch = std::nullopt);

// Every trace/trace.*.tsv of a run folder, read once, and their summaries.
// An input error when there is none.
Result<report::TraceOutputs> LoadTraceOutputs(const std::filesystem::path& run_dir);

// The summaries, trace/trace.json and trace/data_quality.txt (the output
// table's trace rows); returns the files written.
Result<std::vector<std::string>> WriteTraceFiles(const std::filesystem::path& run_dir,
                                                 const report::TraceOutputs& traced);

// The trace.*.tsv files of a run's trace/ folder, sorted.
std::vector<std::filesystem::path> TraceFiles(const std::filesystem::path& trace_dir);

}  // namespace llmpo::pipeline
