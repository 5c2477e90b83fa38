// GPU busy and idle time per device from a timeline (nsys SQLite, our
// tracer): busy is the union of the kernel and copy intervals (overlapping
// work on several streams counts once), the span runs from the first start
// to the last end, idle is the rest. ncu results carry no start/end and
// never enter it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/model/sink.h"

namespace llmpo::analysis {

struct DeviceBusy {
  std::string source;
  std::string device;
  std::uint64_t kernels = 0;
  std::uint64_t copies = 0;        // memcpy and memset operations
  double span_ns = 0;              // first start to last end
  double busy_ns = 0;              // union of the intervals
  double idle_ns = 0;              // span - busy
  std::optional<double> idle_pct;  // of the span; null when the span is 0
};

class GpuTimeline : public model::RecordSink {
 public:
  void SetSource(std::string source) { source_ = std::move(source); }
  void OnLaunch(const model::LaunchRecord& launch) override;
  void OnKernelSummary(const model::KernelSummaryRow&) override {}

  // Per (source, device), in that order.
  std::vector<DeviceBusy> Busy() const;

 private:
  struct Track {
    std::vector<std::pair<std::int64_t, std::int64_t>> intervals;
    std::uint64_t kernels = 0, copies = 0;
  };
  std::string source_;
  std::map<std::pair<std::string, std::string>, Track> tracks_;
};

}  // namespace llmpo::analysis
