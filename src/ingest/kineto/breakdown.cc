#include "src/ingest/kineto/breakdown.h"

#include <algorithm>
#include <map>

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

std::vector<std::pair<std::uint32_t, model::StepBreakdown>> StepBreakdowns(const std::vector<ClassifiedOp>& ops,
                                                                           const std::vector<std::uint32_t>& step_of) {
  std::map<std::uint32_t, std::vector<ClassifiedOp>> by_step;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (step_of[i] != kNoStep) by_step[step_of[i]].push_back(ops[i]);
  }
  std::vector<std::pair<std::uint32_t, model::StepBreakdown>> out;
  for (auto& [step, step_ops] : by_step) {
    model::DeviceBreakdown d;
    model::StepBreakdown b;
    b.gpu_ops = static_cast<std::int64_t>(step_ops.size());
    FillTemporalBreakdown(std::move(step_ops), d);
    b.span_ns = d.span_ns, b.busy_ns = d.busy_ns, b.idle_ns = d.idle_ns, b.classes = d.classes;
    out.emplace_back(step, b);
  }
  return out;
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

void StreamingBreakdown::Tally::Add(const Interval& iv, KernelClass kind) {
  if (ops++ == 0) first = iv.first, last_end = iv.second;
  last_end = std::max(last_end, iv.second);  // in start order: the first start is the least
  all.Add(iv);
  if (kind == KernelClass::kComputation) compute.Add(iv);
  if (kind == KernelClass::kCommunication) comm.Add(iv);
  if (kind == KernelClass::kMemory) memory.Add(iv);
  if (kind == KernelClass::kComputation || kind == KernelClass::kCommunication) comm_or_compute.Add(iv);
}

void StreamingBreakdown::Tally::Fill(double& span_ns, double& busy_ns, double& idle_ns,
                                     model::KernelClassTimes& classes) const {
  span_ns = static_cast<double>(last_end - first);
  busy_ns = static_cast<double>(all.Length());
  idle_ns = span_ns - busy_ns;
  classes.computation_ns = static_cast<double>(compute.Length());
  classes.communication_ns = static_cast<double>(comm.Length());
  classes.memory_ns = static_cast<double>(memory.Length());
  if (comm.open && classes.communication_ns > 0) {
    const std::int64_t overlap = comm.Length() + compute.Length() - comm_or_compute.Length();
    classes.comm_comp_overlap_pct = 100.0 * static_cast<double>(overlap) / classes.communication_ns;
  }
}

void StreamingBreakdown::Add(Interval interval, KernelClass kind, std::uint32_t step) {
  any_ = true;
  if (out_of_order_) return;
  const Op op{interval, kind, step};
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
  device_.Add(op.interval, op.kind);
  if (op.step == kNoStep) return;
  if (steps_.size() <= op.step) steps_.resize(op.step + 1);
  steps_[op.step].Add(op.interval, op.kind);
}

bool StreamingBreakdown::Finish(model::DeviceBreakdown& out,
                                std::vector<std::pair<std::uint32_t, model::StepBreakdown>>* steps) {
  while (WindowSize() > 0 && !out_of_order_) ProcessLeast();
  run_ = {};
  late_ = {};
  if (out_of_order_) return false;
  if (!any_) return true;
  device_.Fill(out.span_ns, out.busy_ns, out.idle_ns, out.classes);
  if (steps != nullptr) {
    for (std::uint32_t i = 0; i < steps_.size(); ++i) {
      if (steps_[i].ops == 0) continue;
      model::StepBreakdown b;
      b.gpu_ops = steps_[i].ops;
      steps_[i].Fill(b.span_ns, b.busy_ns, b.idle_ns, b.classes);
      steps->emplace_back(i, b);
    }
  }
  return true;
}

}  // namespace llmpo::ingest::kineto
