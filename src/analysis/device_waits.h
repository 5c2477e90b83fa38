// What one device's timeline says beyond busy and idle, for the timeline
// rules (docs/analysis.md "Timeline findings"): its idle time split as HTA
// splits it (host wait, kernel wait, other), the time only copies run (no
// kernel), its pageable-memory copies and its long idle stretches, which
// the CPU ops that ran through them are matched against.
//
// The operations are taken in start order through a bounded reorder window
// (importers give them nearly in order); one that arrives too late makes
// every number unknown (`missing` says so) rather than a guess.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/analysis/reorder_window.h"
#include "src/model/records.h"

namespace llmpo::analysis {

// HTA's consecutive_kernel_delay: a shorter gap whose next operation was
// launched before the gap opened is "kernel wait".
inline constexpr std::int64_t kKernelWaitMaxNs = 30'000;
// Idle stretches this long or longer are kept for cpu_op_starving.
inline constexpr std::int64_t kLongGapNs = 500'000;

struct TimelineFacts {
  // Idle gaps between the device's busy stretches, split as HTA does: host
  // wait (the next operation's launch call started after the device went
  // idle), kernel wait (launched before, gap under 30 us), other (launched
  // before, longer gap). unclassified: the next operation has no launch call.
  std::uint64_t gaps = 0;
  std::optional<double> host_wait_ns, kernel_wait_ns, other_wait_ns, unclassified_wait_ns;
  std::uint64_t with_launch_call = 0;     // operations whose launch call is known
  std::optional<double> kernel_busy_ns;   // union of the kernels alone
  std::optional<double> copy_only_ns;     // copies or memsets running while no kernel runs
  double copy_ns = 0;                     // memcpy durations summed
  std::uint64_t copies_with_memory = 0;   // memcpys whose memory kinds are known
  std::uint64_t pageable_copies = 0;      // ... of which from or to pageable host memory
  double pageable_copy_ns = 0;
  std::uint64_t cpu_ranges = 0;           // long CPU ops and ranges of this device's input
  // The CPU op or range through which the device stayed idle longest in one
  // stretch (cpu_op_starving), and that stretch.
  std::string starving_op;
  std::optional<double> starving_op_ns, starving_idle_ns;
  std::string missing;  // why the numbers are unknown
};

class DeviceWaits {
 public:
  static constexpr std::size_t kWindow = 65536;

  void Add(const model::LaunchRecord& op);
  // Drains the window (idempotent; no Add after it) and gives the facts,
  // without the CPU ops (GpuTimeline matches those).
  const TimelineFacts& Finish();
  // Idle stretches of at least kLongGapNs, in time order; complete after Finish().
  const std::vector<std::pair<std::int64_t, std::int64_t>>& long_gaps() const { return long_gaps_; }

 private:
  static constexpr std::int64_t kNoCall = INT64_MIN;
  struct Op {
    std::int64_t start, end, call_start;  // call_start: kNoCall when unknown
    bool kernel;
    // Start order; ties by end, then launch call, so the operation that ends a gap is well defined.
    bool operator>(const Op& o) const {
      if (start != o.start) return start > o.start;
      return end != o.end ? end > o.end : call_start > o.call_start;
    }
  };
  void Process(const Op& op);

  ReorderWindow<Op> window_{kWindow};
  bool out_of_order_ = false, finished_ = false;
  std::int64_t last_start_ = INT64_MIN;  // the latest start processed
  bool started_ = false, kernel_started_ = false;
  std::int64_t busy_start_ = 0, busy_end_ = 0, kernel_start_ = 0, kernel_end_ = 0;
  double busy_closed_ns_ = 0, kernel_closed_ns_ = 0;  // lengths of the closed union segments
  double host_ns_ = 0, kernel_wait_ns_ = 0, other_ns_ = 0, unclassified_ns_ = 0;
  TimelineFacts facts_;
  std::vector<std::pair<std::int64_t, std::int64_t>> long_gaps_;
};

}  // namespace llmpo::analysis
