#include "src/analysis/counted_samples.h"

#include <algorithm>

namespace llmpo::analysis {

void CountedSamples::Add(std::int64_t value) {
  buffer_.push_back(value);
  ++count_;
  sum_ += static_cast<double>(value);
  // Folding when the buffer is as long as the runs keeps the cost per sample
  // logarithmic while the runs grow, and the buffer's memory bounded by them.
  if (buffer_.size() >= std::max(kMinBuffer, runs_.size())) Compact();
}

void CountedSamples::Compact() const {
  if (buffer_.empty()) return;
  std::sort(buffer_.begin(), buffer_.end());
  std::vector<std::pair<std::int64_t, std::uint64_t>> merged;
  merged.reserve(runs_.size() + buffer_.size());
  auto add = [&merged](std::int64_t v, std::uint64_t n) {
    if (!merged.empty() && merged.back().first == v) {
      merged.back().second += n;
    } else {
      merged.emplace_back(v, n);
    }
  };
  std::size_t r = 0;
  for (std::int64_t v : buffer_) {
    while (r < runs_.size() && runs_[r].first < v) add(runs_[r].first, runs_[r].second), ++r;
    add(v, 1);
  }
  for (; r < runs_.size(); ++r) add(runs_[r].first, runs_[r].second);
  merged.shrink_to_fit();
  runs_ = std::move(merged);
  buffer_.clear();
}

std::optional<double> CountedSamples::Max() const {
  if (count_ == 0) return std::nullopt;
  Compact();
  return static_cast<double>(runs_.back().first);
}

std::int64_t CountedSamples::At(std::size_t k) const {
  std::uint64_t seen = 0;
  for (const auto& [value, n] : runs_) {
    seen += n;
    if (k < seen) return value;
  }
  return runs_.back().first;
}

std::optional<double> CountedSamples::Median() const {
  if (count_ == 0) return std::nullopt;
  Compact();
  const std::size_t mid = count_ / 2;
  const auto upper = static_cast<double>(At(mid));
  if (count_ % 2 == 1) return upper;
  return (static_cast<double>(At(mid - 1)) + upper) / 2;
}

}  // namespace llmpo::analysis
