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
#include <iterator>
#include <optional>
#include <utility>
#include <vector>

namespace llmpo::analysis {

// Adds [start, end) to `seg`, disjoint segments sorted by start (a vector or a
// SegmentQueue). Intervals mostly come in time order: one that starts after the
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

// The segments of an IntervalUnion: a vector whose first `head_` entries
// were dropped from the front (pop_front moves an index; the dropped room is
// given back once it is half the vector), so the one-in, one-out of a full
// union costs an index step instead of a deque's block bookkeeping. What
// AddToSegments uses of a vector, over the live entries.
class SegmentQueue {
 public:
  using value_type = std::pair<std::int64_t, std::int64_t>;
  using iterator = std::vector<value_type>::iterator;
  using const_iterator = std::vector<value_type>::const_iterator;

  bool empty() const { return head_ == items_.size(); }
  std::size_t size() const { return items_.size() - head_; }
  iterator begin() { return items_.begin() + static_cast<std::ptrdiff_t>(head_); }
  iterator end() { return items_.end(); }
  const_iterator begin() const { return items_.begin() + static_cast<std::ptrdiff_t>(head_); }
  const_iterator end() const { return items_.end(); }
  value_type& front() { return items_[head_]; }
  value_type& back() { return items_.back(); }
  void emplace_back(std::int64_t start, std::int64_t end) { items_.emplace_back(start, end); }
  iterator insert(iterator at, const value_type& v) { return items_.insert(at, v); }
  iterator erase(iterator first, iterator last) { return items_.erase(first, last); }
  void pop_front() {
    ++head_;
    if (head_ >= kCompactAfter && 2 * head_ >= items_.size()) {
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }

 private:
  static constexpr std::size_t kCompactAfter = 4096;
  std::vector<value_type> items_;
  std::size_t head_ = 0;  // items_[0, head_) are popped
};

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

  SegmentQueue segments_;                                       // disjoint, by start
  double folded_ns_ = 0;                                        // length of the segments folded out of `segments_`
  std::int64_t frontier_ = 0;                                   // the latest end folded out
  bool folded_ = false;
  bool out_of_order_ = false;
};

}  // namespace llmpo::analysis
