// A timeline reduced for drawing: the traced span cut into equal bins, and
// per GPU row (device and stream) the busy time in each bin. Built from the
// tracer's traces; report.html draws it and links trace.json for the rest.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/model/trace.h"

namespace llmpo::report {

struct TimelineRow {
  std::string label;            // "GPU 0 stream 7 (pid 123)"
  std::vector<double> busy_ns;  // GPU operation time per bin (kernels, copies, sets)
  double busy_total_ns = 0;     // the row's busy time (its operations' union)
};

struct TimelineOverview {
  std::uint64_t start_ns = 0, end_ns = 0;  // first to last traced event (NVTX or GPU), tracer clock
  std::size_t bins = 0;
  std::vector<TimelineRow> rows;  // sorted by label
  // Time any GPU operation ran on any stream (the union over streams) and the
  // rest of the span; unknown without GPU tracing.
  std::optional<double> gpu_busy_ns, gpu_idle_ns;
  std::uint64_t gpu_ops = 0;
};

inline constexpr std::size_t kTimelineBins = 200;

// Null without any traced event.
std::optional<TimelineOverview> BuildTimelineOverview(const std::vector<model::TraceData>& traces,
                                                      std::size_t bins = kTimelineBins);

}  // namespace llmpo::report
