// A timeline reduced for drawing: the traced span cut into equal bins, and
// per GPU row (device and stream) the busy time in each bin. Built from the
// tracer's traces; report.html draws it and links trace.json for the rest.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "src/analysis/interval_union.h"
#include "src/model/sink.h"
#include "src/model/trace.h"

namespace llmpo::report {

struct TimelineRow {
  std::string label;            // "GPU 0 stream 7 (pid 123)"
  std::vector<double> busy_ns;  // GPU operation time per bin (kernels, copies, sets)
  // The row's busy time (its operations' union); unknown when its operations
  // arrived too far out of time order from a streamed input.
  std::optional<double> busy_total_ns;
};

struct TimelineOverview {
  std::string source;                      // the input it comes from
  std::uint64_t start_ns = 0, end_ns = 0;  // first to last event (NVTX or GPU), the input's clock
  std::size_t bins = 0;
  double bin_ns = 0;                // bin width
  std::uint64_t bins_start_ns = 0;  // bins cover [bins_start_ns, + bins * bin_ns), the whole span
  std::vector<TimelineRow> rows;    // the busiest kTimelineMaxRows, by label (traces: device, stream, pid)
  // Rows past kTimelineMaxRows, the least busy, left out of `rows` (the
  // kernel and GPU breakdown reports still count their operations).
  std::size_t rows_left_out = 0;
  // Time any GPU operation ran on any stream of the one device (the union
  // over its streams) and the rest of the span; unknown without GPU tracing,
  // and with several devices: a union over devices is no GPU's busy time
  // (report.html shows each device's own, from KernelsReport::gpu_busy).
  std::optional<double> gpu_busy_ns, gpu_idle_ns;
  std::size_t devices = 0;  // distinct (process, device) pairs with GPU operations
  std::uint64_t gpu_ops = 0;
};

inline constexpr std::size_t kTimelineBins = 200;
// At most this many rows (device and stream) are kept for drawing: the
// busiest ones. 10,000 one-kernel ranks made a 236 MB page otherwise.
inline constexpr std::size_t kTimelineMaxRows = 64;

// Null without any traced event.
std::optional<TimelineOverview> BuildTimelineOverview(const std::vector<model::TraceData>& traces,
                                                      std::size_t bins = kTimelineBins);

// The same overview from a timeline input's kernel launches (start and end
// times: nsys SQLite exports, our traces), streamed in bounded memory: a
// fixed number of bins whose width doubles when a launch falls outside them.
// Only the first input with timed launches counts (two exports of one run
// would count twice). Busy times are unions (analysis::IntervalUnion, the
// one GpuTimeline uses per device): exact, or unknown when launches arrive
// too far out of time order to keep them in bounded memory.
class TimelineCollector : public model::RecordSink {
 public:
  void SetSource(std::string source) { source_ = std::move(source); }
  void OnLaunch(const model::LaunchRecord& launch) override;
  void OnKernelSummary(const model::KernelSummaryRow&) override {}
  std::optional<TimelineOverview> Finish() const;

  static constexpr std::size_t kBins = 256;

 private:
  struct Row {
    std::vector<double> busy;
    analysis::IntervalUnion busy_union;
  };
  // The bin grid in 128 bits: 256 bins wide enough for any two 64-bit
  // times, and their sums and products, never overflow.
  __extension__ typedef __int128 Wide;
  void Fit(Wide start, Wide end);
  void Rebin(Wide new_origin, Wide new_width);

  std::string source_, used_;
  std::map<std::tuple<model::ProcessId, std::string, std::int64_t>, Row> rows_;  // process, device, stream
  Row* last_row_ = nullptr;  // the last launch's row (map nodes stay put) and its key
  std::tuple<model::ProcessId, std::string, std::int64_t> last_key_;
  std::uint64_t last_origin_key_ = 0;  // the last launch's, whose process and device last_key_ holds
  Wide origin_ = 0, width_ = 0;
  std::int64_t min_start_ = 0, max_end_ = 0;
  bool any_ = false;
  analysis::IntervalUnion all_;
  std::uint64_t ops_ = 0;
};

}  // namespace llmpo::report
