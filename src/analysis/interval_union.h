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

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <iterator>
#include <optional>
#include <utility>

namespace llmpo::analysis {

// Adds [start, end) to `seg`, disjoint segments sorted by start (a vector or
// a deque). Intervals mostly come in time order: one that starts after the
// last segment follows it, one that starts inside it extends it; any other
// merges with every segment it touches.
template <class Segments>
void AddToSegments(Segments& seg, std::int64_t start, std::int64_t end) {
  if (seg.empty() || start > seg.back().second) {
    seg.emplace_back(start, end);
    return;
  }
  if (auto& last = seg.back(); last.first <= start) {
    last.second = std::max(last.second, end);
    return;
  }
  // From the last segment starting at or before `start` (if it reaches it)
  // to the last one starting by `end`.
  auto it =
      std::upper_bound(seg.begin(), seg.end(), start,
                       [](std::int64_t s, const std::pair<std::int64_t, std::int64_t>& x) { return s < x.first; });
  if (it != seg.begin() && std::prev(it)->second >= start) --it;
  auto stop = it;
  while (stop != seg.end() && stop->first <= end) {
    start = std::min(start, stop->first);
    end = std::max(end, stop->second);
    ++stop;
  }
  if (it == stop) {
    seg.insert(it, {start, end});  // into a gap between segments
  } else {
    *it = {start, end};
    seg.erase(std::next(it), stop);
  }
}

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
