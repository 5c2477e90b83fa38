// The length of a union of time intervals (GPU busy time: overlapping work
// on several streams counts once), streamed in bounded memory. One
// implementation for every busy time the reports show: per device
// (GpuTimeline), per stream row and over a whole timeline (the HTML page).
//
// It keeps the latest kMaxSegments disjoint segments and folds older ones
// into a sum. Timelines arrive nearly in time order (per launching thread);
// an interval that starts before the folded part could overlap it unseen,
// so the total becomes unknown rather than a guess.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <utility>

namespace llmpo::analysis {

class IntervalUnion {
 public:
  static constexpr std::size_t kMaxSegments = 65536;

  // [start, end) in ns; callers drop intervals with end < start.
  void Add(std::int64_t start, std::int64_t end);
  // The union's length in ns; null when an interval came too far out of order.
  std::optional<double> TotalNs() const;
  bool out_of_order() const { return out_of_order_; }

 private:
  void FoldOldest();  // keeps at most kMaxSegments segments

  std::deque<std::pair<std::int64_t, std::int64_t>> segments_;  // disjoint, by start
  double folded_ns_ = 0;                                        // length of the segments folded out of `segments_`
  std::int64_t frontier_ = 0;                                   // the latest end folded out
  bool folded_ = false;
  bool out_of_order_ = false;
};

}  // namespace llmpo::analysis
