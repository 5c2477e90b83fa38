// The median as nsys (SQLite's median) and Python's statistics take it: the
// middle value, or the mean of the two middle values; null for no values.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

namespace llmpo::analysis {

template <typename T>
std::optional<double> Median(std::vector<T> v) {
  if (v.empty()) return std::nullopt;
  const std::size_t mid = v.size() / 2;
  const auto at = v.begin() + static_cast<std::ptrdiff_t>(mid);
  std::nth_element(v.begin(), at, v.end());
  const auto upper = static_cast<double>(*at);
  if (v.size() % 2 == 1) return upper;
  return (static_cast<double>(*std::max_element(v.begin(), at)) + upper) / 2;
}

}  // namespace llmpo::analysis
