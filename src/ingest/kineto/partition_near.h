// Binary search that starts from a guess: the first index of [0, n) where a
// predicate true on a prefix turns false (std::partition_point over indexes),
// found by doubling steps out from `hint`, then bisecting the last step. A
// guess d places from the answer costs about 2 log2(d) probes instead of
// log2(n), and the probes stay near each other in memory: for lookups that
// mostly land near the one before (CPU ops visited in time order per thread,
// over the kernels launched in (thread, time) order).
#pragma once

#include <cstddef>

namespace llmpo::ingest::kineto {

// `before(k)`: true for every k below the answer, false from it on.
template <typename Before>
std::size_t PartitionPointNear(std::size_t n, std::size_t hint, Before before) {
  if (hint > n) hint = n;
  std::size_t lo = 0, hi = n;  // the answer lies in [lo, hi]; [lo, hi) is bisected
  if (hint < n && before(hint)) {
    std::size_t known = hint, step = 1;  // before(known) holds
    for (;;) {
      if (n - known <= step) {
        lo = known + 1, hi = n;
        break;
      }
      if (!before(known + step)) {
        lo = known + 1, hi = known + step;
        break;
      }
      known += step;
      step *= 2;
    }
  } else {
    std::size_t known = hint, step = 1;  // the answer is at or below known
    for (;;) {
      if (known == 0) return 0;
      const std::size_t probe = known > step ? known - step : 0;
      if (before(probe)) {
        lo = probe + 1, hi = known;
        break;
      }
      known = probe;
      step *= 2;
    }
  }
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (before(mid)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace llmpo::ingest::kineto
