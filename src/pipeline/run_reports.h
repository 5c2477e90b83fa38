// Every report of a run, built from its folder alone: the exports whose
// steps succeeded in run.json are imported into kernels.md/json and
// ncu/regions/, then stakeholder_summary.md and report.md are written. The
// profile run and `report RUN_DIR` both call this, so they write the same bytes.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "src/core/result.h"
#include "src/pipeline/region_options.h"

namespace llmpo::pipeline {

// The files written, relative to the run folder. Errors: unreadable
// run.json/inputs.yaml (input), unusable exports (input), write failures.
Result<std::vector<std::string>> BuildRunReports(const std::filesystem::path& run_dir, const RegionOptions& regions);

// Reads the run's own config.yaml for the region options.
Result<RegionOptions> RunRegionOptions(const std::filesystem::path& run_dir);

}  // namespace llmpo::pipeline
