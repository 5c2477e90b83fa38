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
  AddToSegments(segments_, start, end);
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
