// The GPU breakdown of timeline inputs with CPU ops (Kineto traces): per
// rank and device, HTA's temporal and kernel-type breakdowns, launch
// statistics, per-step times, a comparison across ranks, and per CPU op its
// GPU time. gpu_breakdown.md / gpu_breakdown.json (docs/import.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/model/gpu_breakdown.h"

namespace llmpo::report {

// Min / median / max of one quantity over ranks (one value per process:
// its devices' values added).
struct RankSpread {
  std::string quantity;  // "busy_ms", ...
  double min = 0, median = 0, max = 0;
  std::string min_process, max_process;
};

// One ProfilerStep number over the ranks that have it.
struct StepSpread {
  std::int64_t step = 0;
  int ranks = 0;
  double min_cpu_ms = 0, median_cpu_ms = 0, max_cpu_ms = 0;
  std::string slowest_process;
};

struct RankComparison {
  int processes = 0;
  std::vector<RankSpread> quantities;
  std::vector<StepSpread> steps;
};

// Empty (processes < 2) when the inputs hold one process.
RankComparison CompareRanks(const model::GpuBreakdown& breakdown);

std::string GpuBreakdownMarkdown(const model::GpuBreakdown& breakdown, std::size_t top_cpu_ops);
std::string GpuBreakdownJson(const model::GpuBreakdown& breakdown);

}  // namespace llmpo::report
