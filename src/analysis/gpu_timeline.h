// GPU busy and idle time per device from a timeline (nsys SQLite, our
// tracer): busy is the union of the kernel and copy intervals (overlapping
// work on several streams counts once), the span runs from the first start
// to the last end, idle is the rest. ncu results carry no start/end and
// never enter it.
//
// Memory stays bounded (IntervalUnion): operations too far out of time order
// make busy and idle unknown (stated) rather than a guess.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/analysis/device_waits.h"
#include "src/analysis/interval_union.h"
#include "src/model/sink.h"

namespace llmpo::analysis {

struct DeviceBusy {
  std::string source;
  std::string device;
  std::uint64_t kernels = 0;
  std::uint64_t copies = 0;        // memcpy and memset operations
  double span_ns = 0;              // first start to last end
  std::optional<double> busy_ns;   // union of the intervals; null: see missing
  std::optional<double> idle_ns;   // span - busy
  std::optional<double> idle_pct;  // of the span; null when the span is 0
  std::string missing;             // why busy and idle are unknown
  TimelineFacts facts;             // what the timeline rules read beyond busy and idle
};

// A CPU op or range of kCpuOpMinNs or more whose device stayed idle through
// at least this share of it in one stretch starves the GPU.
inline constexpr double kStarvedMinPct = 50;

class GpuTimeline : public model::RecordSink {
 public:
  void SetSource(std::string source) {
    source_ = std::move(source);
    last_track_ = nullptr;
  }
  void OnLaunch(const model::LaunchRecord& launch) override;
  void OnKernelSummary(const model::KernelSummaryRow&) override {}
  // Long CPU ops (Kineto) and CPU ranges (NVTX, our tracer, annotations) of
  // kCpuOpMinNs or more, for cpu_op_starving.
  void OnCpuOp(const model::CpuOp& op) override;
  void OnNvtxRange(const model::NvtxRange& range) override;

  // Per (source, device), in that order.
  std::vector<DeviceBusy> Busy() const;

 private:
  struct Track {
    IntervalUnion busy;
    std::int64_t first = 0, last = 0;
    std::uint64_t kernels = 0, copies = 0;
    mutable DeviceWaits waits;  // drained once, by Busy()
  };
  struct CpuRange {
    std::string name;
    std::int64_t start, end;
  };
  void AddCpuRange(const std::string& name, std::int64_t start, std::int64_t end);
  void MatchCpuRanges(const std::vector<CpuRange>& ranges, const DeviceWaits& waits, TimelineFacts& facts) const;
  std::map<std::string, std::vector<CpuRange>> cpu_ranges_;  // per source, at most kMaxCpuRanges each
  std::string source_;
  Track* last_track_ = nullptr;  // the last launch's track (map nodes stay put) and its device
  std::string last_device_;
  std::map<std::pair<std::string, std::string>, Track> tracks_;
};

}  // namespace llmpo::analysis
