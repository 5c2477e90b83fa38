// Ranks (processes) of a multi-rank input compared: per quantity its min,
// median and max over processes, and per ProfilerStep its CPU time spread;
// and the CPU ops with the most GPU time. Pure functions over the GPU
// breakdown the Kineto importer collects (model/gpu_breakdown.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "src/model/gpu_breakdown.h"

namespace llmpo::analysis {

// Min / median / max of one quantity over ranks (one value per process:
// its devices' values added).
struct RankSpread {
  std::string quantity;  // "gpu_busy_ms", ...
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

// The (process, op) rows with GPU time, most GPU total time first (then
// GPU self time), over every rank: indices into breakdown.cpu_ops.
std::vector<std::size_t> CpuOpsByGpuTime(const model::GpuBreakdown& breakdown);

// Devices in rank order, unranked last (an archive lists its members in any order).
void SortDevicesByRank(model::GpuBreakdown& breakdown);

}  // namespace llmpo::analysis
