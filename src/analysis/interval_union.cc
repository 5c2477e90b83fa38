#include "src/analysis/interval_union.h"

#include <algorithm>
#include <iterator>

namespace llmpo::analysis {

void IntervalUnion::Add(std::int64_t start, std::int64_t end) {
  if (out_of_order_) return;
  if (folded_ && start < frontier_) {
    out_of_order_ = true;
    return;
  }
  // Intervals mostly come in time order: one that starts inside the last
  // segment extends it, touching no other.
  auto& seg = segments_;
  if (!seg.empty()) {
    auto& last = seg.back();
    if (last.first <= start && start <= last.second) {
      last.second = std::max(last.second, end);
      return;
    }
  }
  // Merge with every segment it touches: from the last one starting at or
  // before `start` (if it reaches it) to the last one starting by `end`.
  auto it = std::upper_bound(seg.begin(), seg.end(), start,
                             [](std::int64_t s, const std::pair<std::int64_t, std::int64_t>& x) { return s < x.first; });
  if (it != seg.begin() && std::prev(it)->second >= start) --it;
  auto stop = it;
  while (stop != seg.end() && stop->first <= end) {
    start = std::min(start, stop->first);
    end = std::max(end, stop->second);
    ++stop;
  }
  if (it == stop) {
    seg.insert(it, {start, end});  // at the end in time order: O(1)
  } else {
    *it = {start, end};
    seg.erase(std::next(it), stop);
  }
  while (seg.size() > kMaxSegments) {
    const auto& oldest = seg.front();
    folded_ns_ += static_cast<double>(oldest.second - oldest.first);
    frontier_ = std::max(frontier_, oldest.second);
    folded_ = true;
    seg.pop_front();
  }
}

std::optional<double> IntervalUnion::TotalNs() const {
  if (out_of_order_) return std::nullopt;
  double total = folded_ns_;
  for (const auto& [start, end] : segments_) total += static_cast<double>(end - start);
  return total;
}

}  // namespace llmpo::analysis
