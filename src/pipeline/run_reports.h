// Every report of a run, built from its folder alone: the exports whose
// steps succeeded in run.json are imported into kernels.md/json and
// ncu/regions/ (or, when only the tracer ran, its traces into trace/regions/
// and the trace/ files), with stakeholder_summary.md, report.md and the
// rest of the output table. `profile`, `trace` and `report RUN_DIR` all call
// this, so they write the same bytes.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "src/core/result.h"
#include "src/pipeline/region_options.h"
#include "src/report/report_set.h"

namespace llmpo::pipeline {

// The files written, relative to the run folder. Errors: unreadable
// run.json/inputs.yaml (input), unusable exports (input), write failures.
// `traced`: the run's traces when the run has read them already (else they
// are read here when the reports come from them).
Result<std::vector<std::string>> BuildRunReports(const std::filesystem::path& run_dir, const RegionOptions& regions,
                                                 const report::TraceOutputs* traced = nullptr);

// Reads the run's own config.yaml for the region options.
Result<RegionOptions> RunRegionOptions(const std::filesystem::path& run_dir);

}  // namespace llmpo::pipeline
