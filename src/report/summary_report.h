// stakeholder_summary.md and the run's report.md: short, decision-oriented
// pages built from the kernel table and the region tree (no raw counters).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/analysis/rank_stragglers.h"
#include "src/report/kernels_report.h"
#include "src/report/regions_report.h"

namespace llmpo::report {

// What the run's config says of the model, for MFU, MBU and the serving
// metrics: model.flops (FLOPs done inside a region over the whole run, by
// region path "a/b") with pipeline.mfu.peak_tflops; model.bytes (bytes read
// inside a region over the run) with pipeline.mfu.peak_bandwidth_gbps;
// analysis.llm.{prefill_region, decode_region, tokens_per_step}.
struct ModelInputs {
  std::vector<std::pair<std::string, double>> region_flops;
  std::optional<double> peak_tflops;
  std::vector<std::pair<std::string, double>> region_bytes;
  std::optional<double> peak_gbps;
  std::string prefill_region = "prefill";
  std::string decode_region = "decode";
  double tokens_per_step = 1;
};

struct RunContext : ModelInputs {
  std::string run_name;               // the run folder's name
  std::vector<std::string> workload;  // argv
  std::string gpu;                    // from env.json, "" if unknown
  struct Step {
    std::string name, status, reason;
    std::optional<int> exit_code;
  };
  std::vector<Step> steps;
  std::vector<std::string> files;  // report files, relative to the run folder
  // Under a launcher: each rank as rank-exec recorded it (ranks/), for the
  // stragglers' Ranks table; empty otherwise.
  std::vector<analysis::RankWho> launched_ranks;
};

struct RunModel;
// Both render the run model (run_model.h), built once in the report set.
std::string StakeholderSummary(const RunModel& model);
std::string RunReportMarkdown(const RunModel& model);

}  // namespace llmpo::report
