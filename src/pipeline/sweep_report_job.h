// The sweep report of a sweep folder: every point's report set (its run
// folder's report_set.json, when the point got that far) read back, then
// sweep.md, sweep.json and sweep.html written into the sweep folder.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "src/core/result.h"
#include "src/pipeline/sweep_job.h"

namespace llmpo::pipeline {

struct SweepReportRequest {
  std::string command;
  std::vector<std::string> keys;
  std::vector<SweepPointPlan> points;
  std::vector<PointOutcome> outcomes;  // this invocation's, one per point
  std::filesystem::path sweep_dir;
  std::vector<std::string> pareto;  // sweep.pareto
  std::size_t top_kernels = 5;      // sweep.top_kernels
};

// The files written, relative to the sweep folder.
Result<std::vector<std::string>> WriteSweepReport(const SweepReportRequest& request);

}  // namespace llmpo::pipeline
