// The CPU spans (annotations, CPU ops) open on a thread at a moment, for
// launch calls visited in (thread, time) order: each span enters once and
// leaves once. While the open spans nest (the usual case, and any stack of
// cpu_ops), the ones that ended are popped from the inside, so a whole trace
// costs O(spans + calls); spans that overlap without nesting cost a walk of
// the open ones per call until they have all closed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "src/ingest/kineto/trace_store.h"

namespace llmpo::ingest::kineto {

// `Span`: CpuSpan or CpuOp (thread, start, end).
template <typename Span>
class SpanSweep {
 public:
  // `spans` is kept by reference; indexes are sorted by (thread, start, longer first, file order).
  explicit SpanSweep(const std::vector<Span>& spans) : spans_(spans), order_(spans.size()) {
    // Sorted as plain keys (no lookups through the index in the comparisons);
    // a trace in time order is only checked.
    struct Key {
      std::uint32_t thread;
      std::int64_t start, end;
      std::uint32_t index;
      bool operator<(const Key& o) const {
        if (thread != o.thread) return thread < o.thread;
        if (start != o.start) return start < o.start;
        if (end != o.end) return end > o.end;
        return index < o.index;  // same times (integer-us traces): the later event in the file is the inner one
      }
    };
    const auto key = [&](std::uint32_t i) {
      return Key{spans[i].thread, static_cast<std::int64_t>(spans[i].start), static_cast<std::int64_t>(spans[i].end), i};
    };
    bool sorted = true;
    for (std::uint32_t i = 0; i < spans.size(); ++i) {
      order_[i] = i;
      sorted = sorted && (i == 0 || !(key(i) < key(i - 1)));
    }
    if (sorted) return;  // without the keys' copy: 24 bytes per span
    if (BucketByThread(spans)) return;
    std::vector<Key> keys(spans.size());
    for (std::uint32_t i = 0; i < keys.size(); ++i) keys[i] = key(i);
    std::sort(keys.begin(), keys.end());
    for (std::size_t i = 0; i < keys.size(); ++i) order_[i] = keys[i].index;
  }

  // Where each thread's spans come in time order (threads interleaved, as
  // a trace of several threads has them), a stable counting sort by thread
  // gives the keys' order without their copy; false (order_ untouched) where
  // some thread's spans do not.
  bool BucketByThread(const std::vector<Span>& spans) {
    std::vector<std::uint32_t> last;  // by thread: the index of its latest span, + 1 (0: none yet)
    for (std::uint32_t i = 0; i < spans.size(); ++i) {
      const Span& x = spans[i];
      if (x.thread >= last.size()) last.resize(std::size_t{x.thread} + 1, 0);
      if (last[x.thread] != 0) {
        const Span& before = spans[last[x.thread] - 1];
        const std::int64_t start = x.start, end = x.end, before_start = before.start, before_end = before.end;
        if (start < before_start || (start == before_start && end > before_end)) return false;
      }
      last[x.thread] = i + 1;
    }
    std::vector<std::size_t> next(last.size() + 1, 0);  // by thread: where its first span goes
    for (const Span& x : spans) ++next[std::size_t{x.thread} + 1];
    for (std::size_t t = 1; t < next.size(); ++t) next[t] += next[t - 1];
    for (std::uint32_t i = 0; i < spans.size(); ++i) order_[next[spans[i].thread]++] = i;
    return true;
  }

  // The spans of `thread` with start <= t <= end, outermost first. Calls
  // must come in (thread, t) order.
  const std::vector<std::uint32_t>& OpenAt(std::uint32_t thread, std::int64_t t) {
    if (thread != thread_) {
      thread_ = thread;
      active_.clear();
      nested_ = true;
      next_ = static_cast<std::size_t>(
          std::lower_bound(order_.begin(), order_.end(), thread,
                           [&](std::uint32_t i, std::uint32_t th) { return spans_[i].thread < th; }) -
          order_.begin());
    }
    while (next_ < order_.size() && spans_[order_[next_]].thread == thread && spans_[order_[next_]].start <= t) {
      const std::uint32_t i = order_[next_++];
      nested_ = nested_ && (active_.empty() || spans_[i].end <= spans_[active_.back()].end);
      active_.push_back(i);
    }
    if (nested_) {  // ends never grow inwards: the ended spans are the innermost ones
      while (!active_.empty() && spans_[active_.back()].end < t) active_.pop_back();
    } else {
      std::erase_if(active_, [&](std::uint32_t i) { return spans_[i].end < t; });
      nested_ = std::is_sorted(active_.begin(), active_.end(),
                               [&](std::uint32_t a, std::uint32_t b) { return spans_[a].end > spans_[b].end; });
    }
    return active_;
  }

 private:
  const std::vector<Span>& spans_;
  std::vector<std::uint32_t> order_;
  std::uint32_t thread_ = UINT32_MAX;
  std::size_t next_ = 0;
  std::vector<std::uint32_t> active_;
  bool nested_ = true;  // each span of active_ ends no later than the one before it
};

}  // namespace llmpo::ingest::kineto
