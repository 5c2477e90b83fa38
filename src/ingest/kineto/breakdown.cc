#include "src/ingest/kineto/breakdown.h"

#include <algorithm>

namespace llmpo::ingest::kineto {

void MergeIntervals(std::vector<Interval>& v) {
  std::sort(v.begin(), v.end());
  std::size_t out = 0;
  for (const auto& iv : v) {
    if (out > 0 && iv.first <= v[out - 1].second) {
      v[out - 1].second = std::max(v[out - 1].second, iv.second);
    } else {
      v[out++] = iv;
    }
  }
  v.resize(out);
}

std::int64_t TotalLength(const std::vector<Interval>& merged) {
  std::int64_t total = 0;
  for (const auto& [a, b] : merged) total += b - a;
  return total;
}

std::int64_t OverlapLength(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::int64_t total = 0;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const std::int64_t lo = std::max(a[i].first, b[j].first);
    const std::int64_t hi = std::min(a[i].second, b[j].second);
    if (hi > lo) total += hi - lo;
    (a[i].second < b[j].second ? i : j)++;
  }
  return total;
}

void FillTemporalBreakdown(std::vector<ClassifiedOp> ops, model::DeviceBreakdown& out) {
  if (ops.empty()) return;
  std::vector<Interval> all, compute, comm, memory;
  all.reserve(ops.size());
  std::int64_t first = ops.front().interval.first, last = ops.front().interval.second;
  for (const auto& op : ops) {
    all.push_back(op.interval);
    first = std::min(first, op.interval.first);
    last = std::max(last, op.interval.second);
    if (op.kind == KernelClass::kComputation) compute.push_back(op.interval);
    if (op.kind == KernelClass::kCommunication) comm.push_back(op.interval);
    if (op.kind == KernelClass::kMemory) memory.push_back(op.interval);
  }
  for (auto* v : {&all, &compute, &comm, &memory}) MergeIntervals(*v);
  out.span_ns = static_cast<double>(last - first);
  out.busy_ns = static_cast<double>(TotalLength(all));
  out.idle_ns = out.span_ns - out.busy_ns;
  out.classes.computation_ns = static_cast<double>(TotalLength(compute));
  out.classes.communication_ns = static_cast<double>(TotalLength(comm));
  out.classes.memory_ns = static_cast<double>(TotalLength(memory));
  if (!comm.empty() && out.classes.communication_ns > 0) {
    out.classes.comm_comp_overlap_pct =
        100.0 * static_cast<double>(OverlapLength(comm, compute)) / out.classes.communication_ns;
  }
}

}  // namespace llmpo::ingest::kineto
