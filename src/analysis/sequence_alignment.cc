#include "src/analysis/sequence_alignment.h"

#include <algorithm>

namespace llmpo::analysis {
namespace {

// The furthest x reached on each diagonal k = x - y after d edits, for
// k in [-d, d] (index k + d); kept per d to walk the path back.
using Frontier = std::vector<std::ptrdiff_t>;

// Myers' forward pass over a and b (no common head or tail); the frontiers,
// or nullopt past max_edits.
std::optional<std::vector<Frontier>> Forward(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                                             std::size_t max_edits) {
  const auto n = static_cast<std::ptrdiff_t>(a.size()), m = static_cast<std::ptrdiff_t>(b.size());
  std::vector<Frontier> trace;
  for (std::ptrdiff_t d = 0; d <= static_cast<std::ptrdiff_t>(max_edits); ++d) {
    Frontier v(static_cast<std::size_t>(2 * d + 1));
    const Frontier* prev = d ? &trace.back() : nullptr;
    auto at = [&](std::ptrdiff_t k) { return (*prev)[static_cast<std::size_t>(k + d - 1)]; };
    for (std::ptrdiff_t k = -d; k <= d; k += 2) {
      std::ptrdiff_t x = 0;
      if (d > 0) x = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? at(k + 1) : at(k - 1) + 1;
      std::ptrdiff_t y = x - k;
      while (x < n && y < m && a[static_cast<std::size_t>(x)] == b[static_cast<std::size_t>(y)]) ++x, ++y;
      v[static_cast<std::size_t>(k + d)] = x;
      if (x >= n && y >= m) {
        trace.push_back(std::move(v));
        return trace;
      }
    }
    trace.push_back(std::move(v));
  }
  return std::nullopt;
}

// The edit script the frontiers describe, from the end back to the start.
std::vector<Edit> Backtrack(const std::vector<Frontier>& trace, std::size_t n, std::size_t m, std::size_t offset) {
  std::vector<Edit> reversed;
  auto x = static_cast<std::ptrdiff_t>(n), y = static_cast<std::ptrdiff_t>(m);
  for (auto d = static_cast<std::ptrdiff_t>(trace.size()) - 1; d >= 0; --d) {
    const std::ptrdiff_t k = x - y;
    std::ptrdiff_t prev_x = 0, prev_y = 0;
    bool inserted = false;
    if (d > 0) {
      const Frontier& prev = trace[static_cast<std::size_t>(d - 1)];
      auto at = [&](std::ptrdiff_t kk) { return prev[static_cast<std::size_t>(kk + d - 1)]; };
      inserted = k == -d || (k != d && at(k - 1) < at(k + 1));
      const std::ptrdiff_t prev_k = inserted ? k + 1 : k - 1;
      prev_x = at(prev_k);
      prev_y = prev_x - prev_k;
    }
    // The snake: a run of equal elements after the edit.
    const std::ptrdiff_t snake_from_x = d > 0 ? (inserted ? prev_x : prev_x + 1) : 0;
    while (x > snake_from_x) {
      --x, --y;
      reversed.push_back({EditOp::kSame, static_cast<std::size_t>(x) + offset, static_cast<std::size_t>(y) + offset});
    }
    if (d == 0) break;
    if (inserted) {
      reversed.push_back({EditOp::kInsert, 0, static_cast<std::size_t>(prev_y) + offset});
    } else {
      reversed.push_back({EditOp::kDelete, static_cast<std::size_t>(prev_x) + offset, 0});
    }
    x = prev_x, y = prev_y;
  }
  std::reverse(reversed.begin(), reversed.end());
  return reversed;
}

}  // namespace

std::optional<std::vector<Edit>> AlignSequences(std::span<const std::uint32_t> base,
                                                std::span<const std::uint32_t> next, std::size_t max_edits) {
  std::size_t head = 0;
  while (head < base.size() && head < next.size() && base[head] == next[head]) ++head;
  std::size_t tail = 0;
  while (tail < base.size() - head && tail < next.size() - head &&
         base[base.size() - 1 - tail] == next[next.size() - 1 - tail]) {
    ++tail;
  }
  const auto a = base.subspan(head, base.size() - head - tail);
  const auto b = next.subspan(head, next.size() - head - tail);
  std::vector<Edit> edits;
  edits.reserve(std::max(base.size(), next.size()));
  for (std::size_t i = 0; i < head; ++i) edits.push_back({EditOp::kSame, i, i});
  if (!a.empty() || !b.empty()) {
    const auto trace = Forward(a, b, max_edits);
    if (!trace) return std::nullopt;
    for (const Edit& e : Backtrack(*trace, a.size(), b.size(), head)) edits.push_back(e);
  }
  for (std::size_t i = 0; i < tail; ++i) {
    edits.push_back({EditOp::kSame, base.size() - tail + i, next.size() - tail + i});
  }
  return edits;
}

}  // namespace llmpo::analysis
