// `import`: read existing profiler outputs, whatever their format, and write
// kernels.md and kernels.json into an output folder, plus the NVTX region
// report under regions/ when an input carries NVTX data. A bad input is
// reported and skipped; the others still make it into the reports.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/core/result.h"
#include "src/pipeline/region_options.h"
#include "src/report/kernels_report.h"
#include "src/report/regions_report.h"
#include "src/report/summary_report.h"
#include "src/report/timeline_model.h"

namespace llmpo::pipeline {

struct ImportRequest {
  std::vector<std::filesystem::path> inputs;
  // Inputs captured for one region each (the seeds' one-ncu-run-per-region
  // plan): path -> region label ("A", "LLM@decode"). Their launches count in
  // that region even without NVTX columns.
  std::map<std::string, std::string> capture_regions;
  std::filesystem::path out_dir;
  std::size_t top_k = 50;
  RegionOptions regions;
  std::string regions_subdir = "regions";  // under out_dir; a run folder uses ncu/regions
  // When set, inputs under this folder are named relative to it in the
  // reports (a run folder's reports then do not depend on where it lives).
  std::optional<std::filesystem::path> label_base;
  // report.html: the run the reports belong to (default: a run named after
  // out_dir), the timeline it draws and the trace.json it links (relative
  // to out_dir), when there is one.
  std::optional<report::RunContext> html_run;
  std::optional<report::TimelineOverview> timeline;
  std::string trace_json_link;
};

struct ImportOutcome {
  report::KernelsReport report;
  std::vector<std::string> written;  // files written under out_dir
  std::vector<Error> failures;       // one per input that could not be imported
};

// Called after kernels.md/json and the region report are written, with the
// finished models (the region report is null without NVTX data); returns the
// extra files it wrote (relative to out_dir).
using ExtraReports =
    std::function<Result<std::vector<std::string>>(const report::KernelsReport&, const report::RegionsReport*)>;

// Fails only when the reports cannot be written. When every input failed
// before giving a row, nothing is written (`written` is empty) and the
// folder keeps what it held.
Result<ImportOutcome> RunImport(const ImportRequest& request, const ExtraReports& extra = nullptr);

}  // namespace llmpo::pipeline
