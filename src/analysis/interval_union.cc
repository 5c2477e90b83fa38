#include "src/analysis/interval_union.h"

#include <algorithm>
#include <iterator>

namespace llmpo::analysis {
namespace {

// end - start for end >= start, without signed overflow on hostile times.
double Length(std::int64_t start, std::int64_t end) {
  return static_cast<double>(static_cast<std::uint64_t>(end) - static_cast<std::uint64_t>(start));
}

}  // namespace

void IntervalUnion::Add(std::int64_t start, std::int64_t end) {
  if (out_of_order_) return;
  if (folded_ && start < frontier_) {
    out_of_order_ = true;
    return;
  }
  // Intervals mostly come in time order: one that starts after the last
  // segment follows it, one that starts inside it extends it; neither
  // touches another segment.
  auto& seg = segments_;
  if (seg.empty() || start > seg.back().second) {
    seg.emplace_back(start, end);
    FoldOldest();
    return;
  }
  if (auto& last = seg.back(); last.first <= start) {
    last.second = std::max(last.second, end);
    return;
  }
  // Merge with every segment it touches: from the last one starting at or
  // before `start` (if it reaches it) to the last one starting by `end`.
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
  FoldOldest();
}

void IntervalUnion::FoldOldest() {
  while (segments_.size() > kMaxSegments) {
    const auto& oldest = segments_.front();
    folded_ns_ += Length(oldest.first, oldest.second);
    frontier_ = std::max(frontier_, oldest.second);
    folded_ = true;
    segments_.pop_front();
  }
}

std::optional<double> IntervalUnion::TotalNs() const {
  if (out_of_order_) return std::nullopt;
  double total = folded_ns_;
  for (const auto& [start, end] : segments_) total += Length(start, end);
  return total;
}

}  // namespace llmpo::analysis
