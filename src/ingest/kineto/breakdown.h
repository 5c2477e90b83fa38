// HTA's GPU time breakdowns, computed exactly from integer-nanosecond
// intervals of one device's GPU ops (kernels, copies, sets; sync events are
// not GPU work here, a deliberate difference from HTA: docs/import.md).
#pragma once

#include <cstdint>
#include <deque>
#include <queue>
#include <string_view>
#include <utility>
#include <vector>

#include "src/model/gpu_breakdown.h"
#include "src/model/hta_kernel_class.h"

namespace llmpo::ingest::kineto {

using model::ClassifyKernelName;  // HTA's kernel types (src/model/hta_kernel_class.h)
using model::KernelClass;

using Interval = std::pair<std::int64_t, std::int64_t>;

// Sorts and merges in place; the merged intervals are disjoint and ordered.
void MergeIntervals(std::vector<Interval>& intervals);
std::int64_t TotalLength(const std::vector<Interval>& merged);
// Length of the intersection of two merged lists.
std::int64_t OverlapLength(const std::vector<Interval>& a, const std::vector<Interval>& b);

struct ClassifiedOp {
  Interval interval;
  KernelClass kind;
};

// Span, busy, idle and the class unions of one device's GPU ops.
void FillTemporalBreakdown(std::vector<ClassifiedOp> ops, model::DeviceBreakdown& out);

// No step: an op launched outside every step (or without a launch call).
inline constexpr std::uint32_t kNoStep = UINT32_MAX;

// The same per step: `step_of[i]` is ops[i]'s step index (kNoStep: none);
// one entry per step index with ops, in index order, its `step` left to the
// caller.
std::vector<std::pair<std::uint32_t, model::StepBreakdown>> StepBreakdowns(const std::vector<ClassifiedOp>& ops,
                                                                           const std::vector<std::uint32_t>& step_of);

// The same numbers as FillTemporalBreakdown, folded as the ops arrive in
// memory that does not grow with them: a trace's ops come nearly in start
// order, so they pass a bounded reorder window and each union keeps only its
// open segment. The comm/compute overlap is |comm| + |compute| - |comm U
// compute|, exact in integers. An op later than the window allows makes
// Finish() refuse (the caller then sorts all of them: FillTemporalBreakdown).
//
// With a step index per op, each step's ops (StepBreakdowns) are folded too,
// as they leave the window in start order: a few unions per step, no window
// of their own.
class StreamingBreakdown {
 public:
  static constexpr std::size_t kWindow = 4096;
  void Add(Interval interval, KernelClass kind, std::uint32_t step = kNoStep);
  // False: the ops were too far out of order; `out` and `steps` are untouched.
  // `steps` (may be null) gets one entry per step index with ops, in index
  // order, as StepBreakdowns gives them.
  bool Finish(model::DeviceBreakdown& out,
              std::vector<std::pair<std::uint32_t, model::StepBreakdown>>* steps = nullptr);

 private:
  // One union's length, from intervals in (start, end) order.
  struct Union {
    bool open = false;
    std::int64_t start = 0, end = 0, closed = 0;
    void Add(const Interval& iv);
    std::int64_t Length() const { return closed + (open ? end - start : 0); }
  };
  // The unions of ops given in (start, end) order, and their span.
  struct Tally {
    std::int64_t ops = 0, first = 0, last_end = 0;
    Union all, compute, comm, memory, comm_or_compute;
    void Add(const Interval& iv, KernelClass kind);
    // span, busy, idle and the class unions.
    void Fill(double& span_ns, double& busy_ns, double& idle_ns, model::KernelClassTimes& classes) const;
  };
  struct Op {
    Interval interval;
    KernelClass kind;
    std::uint32_t step;
    bool operator>(const Op& o) const { return interval > o.interval; }
  };
  void Process(const Op& op);
  // Processes the least op of the window (the front of run_ or the top of late_).
  void ProcessLeast();
  std::size_t WindowSize() const { return run_.size() + late_.size(); }

  // The reorder window in two parts: ops that came in order (each not before
  // the one before it), a sorted run taken from its front at O(1), and the
  // few that came early, in a heap. The least of both fronts is processed
  // next, as from one heap of the whole window (bench/RESULTS.md).
  std::deque<Op> run_;
  std::priority_queue<Op, std::vector<Op>, std::greater<Op>> late_;
  bool any_ = false, out_of_order_ = false, processed_ = false;
  Interval last_{};  // the last interval processed
  Tally device_;
  std::vector<Tally> steps_;  // by step index
};

}  // namespace llmpo::ingest::kineto
