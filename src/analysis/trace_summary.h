// Summaries of our tracer's traces, with the definitions of the nsys stats
// reports they stand in for (docs/trace.md): per-kernel GPU time
// (cuda_gpu_kern_sum), NVTX range time (nvtx_sum) and the GPU projection of
// NVTX ranges (nvtx_gpu_proj_sum: from the first GPU operation launched
// inside a range instance, on its thread, to the end of the last one).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "src/model/trace.h"

namespace llmpo::analysis {

struct TimeStats {
  std::uint64_t count = 0;
  double total = 0, avg = 0, med = 0, min = 0, max = 0, stddev = 0;  // ns; stddev: sample (n-1)
  static TimeStats Of(std::vector<double> values);
};

struct NamedStats {
  std::string name;     // kernel name, or "domain:name" for ranges
  std::string style;    // ranges: "PushPop" or "StartEnd"
  std::string mangled;  // kernels: CUPTI's name (the grouping key)
  TimeStats stats;
  double share_pct = 0;  // of the table's total
};

struct ProjectionRow {
  std::string range;  // "domain:name"
  std::string style;
  double total_range_ns = 0;
  TimeStats projected;  // over the instances with GPU work
  std::uint64_t instances = 0;
  std::uint64_t gpu_ops = 0;
  double avg_level = 0, avg_children = 0;
};

struct TraceSummaries {
  std::vector<NamedStats> kernels;  // by total GPU time, largest first
  std::vector<NamedStats> ranges;
  std::vector<ProjectionRow> projection;
  std::uint64_t unattributed_ops = 0;  // GPU ops without a matching API call
};

TraceSummaries Summarize(const std::vector<model::TraceData>& traces);

// "domain:name", the default domain as a leading ':' (nsys' spelling).
std::string RangeLabel(const model::TraceData& t, const model::TraceRange& r);

}  // namespace llmpo::analysis
