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

void StreamingBreakdown::Union::Add(const Interval& iv) {
  if (open && iv.first <= end) {  // as MergeIntervals merges
    end = std::max(end, iv.second);
    return;
  }
  if (open) closed += end - start;
  open = true;
  start = iv.first, end = iv.second;
}

void StreamingBreakdown::Add(Interval interval, KernelClass kind) {
  if (!any_) first_ = interval.first, last_end_ = interval.second;
  any_ = true;
  first_ = std::min(first_, interval.first);
  last_end_ = std::max(last_end_, interval.second);
  if (out_of_order_) return;
  const Op op{interval, kind};
  if (run_.empty() || !(run_.back() > op)) {
    run_.push_back(op);
  } else {
    late_.push(op);
  }
  if (WindowSize() > kWindow) ProcessLeast();
}

void StreamingBreakdown::ProcessLeast() {
  if (!late_.empty() && (run_.empty() || run_.front() > late_.top())) {
    Process(late_.top());
    late_.pop();
  } else {
    Process(run_.front());
    run_.pop_front();
  }
}

void StreamingBreakdown::Process(const Op& op) {
  if (processed_ && op.interval < last_) {
    out_of_order_ = true;
    return;
  }
  processed_ = true;
  last_ = op.interval;
  all_.Add(op.interval);
  if (op.kind == KernelClass::kComputation) compute_.Add(op.interval);
  if (op.kind == KernelClass::kCommunication) comm_.Add(op.interval);
  if (op.kind == KernelClass::kMemory) memory_.Add(op.interval);
  if (op.kind == KernelClass::kComputation || op.kind == KernelClass::kCommunication) comm_or_compute_.Add(op.interval);
}

bool StreamingBreakdown::Finish(model::DeviceBreakdown& out) {
  while (WindowSize() > 0 && !out_of_order_) ProcessLeast();
  run_ = {};
  late_ = {};
  if (out_of_order_) return false;
  if (!any_) return true;
  out.span_ns = static_cast<double>(last_end_ - first_);
  out.busy_ns = static_cast<double>(all_.Length());
  out.idle_ns = out.span_ns - out.busy_ns;
  out.classes.computation_ns = static_cast<double>(compute_.Length());
  out.classes.communication_ns = static_cast<double>(comm_.Length());
  out.classes.memory_ns = static_cast<double>(memory_.Length());
  if (comm_.open && out.classes.communication_ns > 0) {
    const std::int64_t overlap = comm_.Length() + compute_.Length() - comm_or_compute_.Length();
    out.classes.comm_comp_overlap_pct = 100.0 * static_cast<double>(overlap) / out.classes.communication_ns;
  }
  return true;
}

}  // namespace llmpo::ingest::kineto
