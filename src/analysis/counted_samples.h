// Integer samples (durations in ns) kept for an exact median without one
// entry per sample: values go to a buffer, and a full buffer is sorted and
// merged into (value, count) runs. Memory then grows with the number of
// distinct values, which for call and queue times is far below the number
// of launches (an import of 10M launches keeps thousands of runs, not 10M
// values). The sum is taken in arrival order as doubles, as a loop over a
// plain vector of the samples would, so means come out the same bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace llmpo::analysis {

class CountedSamples {
 public:
  void Add(std::int64_t value);
  std::size_t size() const { return count_; }
  double sum() const { return sum_; }
  std::optional<double> Max() const;
  // The middle value, or the mean of the two middle values (median.h's rule).
  std::optional<double> Median() const;

 private:
  // Folds the buffer into runs_ (sorted by value, no value twice).
  void Compact() const;
  // The value at 0-based position `k` in sorted order; runs_ only.
  std::int64_t At(std::size_t k) const;

  // Small: a trace has two of these per (thread, API function, kernel), hundreds in all.
  static constexpr std::size_t kMinBuffer = 512;
  mutable std::vector<std::int64_t> buffer_;
  mutable std::vector<std::pair<std::int64_t, std::uint64_t>> runs_;
  std::size_t count_ = 0;
  double sum_ = 0;
};

}  // namespace llmpo::analysis
