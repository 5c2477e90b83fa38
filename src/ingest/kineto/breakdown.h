// HTA's GPU time breakdowns, computed exactly from integer-nanosecond
// intervals of one device's GPU ops (kernels, copies, sets; sync events are
// not GPU work here, a deliberate difference from HTA: docs/import.md).
#pragma once

#include <cstdint>
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

}  // namespace llmpo::ingest::kineto
