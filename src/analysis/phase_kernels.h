// The timed kernels the phase collector keeps (analysis/phases.h), one per
// kernel launch of an import: packed in 56 bytes instead of TimedKernel's 96
// (optionals as flag bits; the rare graph id beside them), in fixed-size
// chunks, so the list grows without copying itself (a vector's doubling
// holds the old and the new copy at once).
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace llmpo::analysis {

struct TimedKernel {
  std::int64_t start = 0, end = 0;
  std::optional<std::int64_t> call_start, call_end;  // the launch call (CPU)
  std::optional<std::int64_t> correlation;
  std::uint32_t name = 0;                // into names
  std::uint32_t range = 0;               // innermost NVTX range at the launch, into names (0: none)
  std::uint32_t scope = 0;               // into scopes
  bool graph = false;                    // launched by cudaGraphLaunch / cuGraphLaunch, or a graph node
  std::optional<std::int64_t> graph_id;  // the input's graph id (nsys SQLite node tracing); null: unknown
};

class TimedKernelList {
 public:
  TimedKernelList() = default;
  TimedKernelList(const TimedKernelList& o) { *this = o; }
  TimedKernelList& operator=(const TimedKernelList& o) {
    if (this == &o) return *this;
    clear();
    for (std::size_t i = 0; i < o.size(); ++i) push_back(o[i]);
    return *this;
  }
  TimedKernelList(TimedKernelList&& o) noexcept { *this = std::move(o); }
  TimedKernelList& operator=(TimedKernelList&& o) noexcept {  // leaves `o` empty
    chunks_ = std::move(o.chunks_);
    graph_ids_ = std::move(o.graph_ids_);
    size_ = std::exchange(o.size_, 0);
    o.chunks_.clear();
    o.graph_ids_.clear();
    return *this;
  }

  void push_back(const TimedKernel& k) {
    if (size_ % kChunk == 0) chunks_.push_back(std::make_unique<Packed[]>(kChunk));
    Packed& p = chunks_.back()[size_ % kChunk];
    p.start = k.start, p.end = k.end;
    p.call_start = k.call_start.value_or(0), p.call_end = k.call_end.value_or(0);
    p.correlation = k.correlation.value_or(0);
    p.name = k.name, p.range = k.range, p.scope = k.scope;
    p.flags = static_cast<std::uint8_t>((k.call_start ? kCallStart : 0) | (k.call_end ? kCallEnd : 0) |
                                        (k.correlation ? kCorrelation : 0) | (k.graph ? kGraph : 0) |
                                        (k.graph_id ? kGraphId : 0));
    if (k.graph_id) graph_ids_.emplace_back(size_, *k.graph_id);
    ++size_;
  }
  // By value: the list keeps no TimedKernel.
  TimedKernel operator[](std::size_t i) const {
    const Packed& p = chunks_[i / kChunk][i % kChunk];
    TimedKernel k;
    k.start = p.start, k.end = p.end;
    if (p.flags & kCallStart) k.call_start = p.call_start;
    if (p.flags & kCallEnd) k.call_end = p.call_end;
    if (p.flags & kCorrelation) k.correlation = p.correlation;
    k.name = p.name, k.range = p.range, k.scope = p.scope;
    k.graph = (p.flags & kGraph) != 0;
    if (p.flags & kGraphId) k.graph_id = GraphId(i);
    return k;
  }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  void clear() {
    chunks_.clear();
    graph_ids_.clear();
    size_ = 0;
  }

  class const_iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = TimedKernel;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = TimedKernel;
    const_iterator(const TimedKernelList* list, std::size_t at) : list_(list), at_(at) {}
    TimedKernel operator*() const { return (*list_)[at_]; }
    const_iterator& operator++() {
      ++at_;
      return *this;
    }
    bool operator==(const const_iterator& o) const { return at_ == o.at_; }
    bool operator!=(const const_iterator& o) const { return at_ != o.at_; }

   private:
    const TimedKernelList* list_;
    std::size_t at_;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }

 private:
  static constexpr std::size_t kChunk = 4096;
  enum : std::uint8_t { kCallStart = 1, kCallEnd = 2, kCorrelation = 4, kGraph = 8, kGraphId = 16 };
  struct Packed {
    std::int64_t start, end, call_start, call_end, correlation;
    std::uint32_t name, range, scope;
    std::uint8_t flags;
  };
  static_assert(sizeof(Packed) == 56);

  std::int64_t GraphId(std::size_t i) const {
    const auto it =
        std::lower_bound(graph_ids_.begin(), graph_ids_.end(), std::pair<std::size_t, std::int64_t>(i, INT64_MIN));
    return it->second;
  }

  std::vector<std::unique_ptr<Packed[]>> chunks_;
  std::vector<std::pair<std::size_t, std::int64_t>> graph_ids_;  // (index, graph id), by index
  std::size_t size_ = 0;
};

}  // namespace llmpo::analysis
