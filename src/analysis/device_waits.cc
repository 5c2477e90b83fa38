#include "src/analysis/device_waits.h"

#include <algorithm>
#include <string_view>

namespace llmpo::analysis {
namespace {

// Kineto names "Memcpy HtoD (Pageable -> Device)", nsys' kinds "Pageable";
// either end may be the pageable one.
bool Pageable(std::string_view memory) { return memory.find("Pageable") != std::string_view::npos; }

constexpr std::size_t kMaxLongGaps = 1'000'000;

}  // namespace

void DeviceWaits::Add(const model::LaunchRecord& op) {
  if (op.kind == model::LaunchKind::kRange || !op.start_ns || !op.end_ns || *op.end_ns < *op.start_ns) return;
  if (op.kind == model::LaunchKind::kMemcpy) {
    facts_.copy_ns += static_cast<double>(*op.end_ns - *op.start_ns);
    if (!op.copy_memory.empty()) {
      ++facts_.copies_with_memory;
      if (Pageable(op.copy_memory)) {
        ++facts_.pageable_copies;
        facts_.pageable_copy_ns += static_cast<double>(*op.end_ns - *op.start_ns);
      }
    }
  }
  if (op.launch_call_start_ns) ++facts_.with_launch_call;
  if (out_of_order_) return;
  window_.Push(
      {*op.start_ns, *op.end_ns, op.launch_call_start_ns.value_or(kNoCall), op.kind == model::LaunchKind::kKernel},
      [this](const Op& next) { Process(next); });
}

// One operation, in start order: extends or closes the busy and kernel-only
// union segments; a gap before it is classified by its launch call.
void DeviceWaits::Process(const Op& op) {
  if (op.start < last_start_) {
    out_of_order_ = true;
    return;
  }
  last_start_ = op.start;
  if (!started_) {
    started_ = true;
    busy_start_ = op.start, busy_end_ = op.end;
  } else if (op.start > busy_end_) {
    const std::int64_t gap = op.start - busy_end_;
    ++facts_.gaps;
    if (op.call_start == kNoCall) {
      unclassified_ns_ += static_cast<double>(gap);
    } else if (op.call_start > busy_end_) {
      host_ns_ += static_cast<double>(gap);
    } else if (gap < kKernelWaitMaxNs) {
      kernel_wait_ns_ += static_cast<double>(gap);
    } else {
      other_ns_ += static_cast<double>(gap);
    }
    if (gap >= kLongGapNs && long_gaps_.size() < kMaxLongGaps) long_gaps_.emplace_back(busy_end_, op.start);
    busy_closed_ns_ += static_cast<double>(busy_end_ - busy_start_);
    busy_start_ = op.start, busy_end_ = op.end;
  } else {
    busy_end_ = std::max(busy_end_, op.end);
  }
  if (!op.kernel) return;
  if (!kernel_started_ || op.start > kernel_end_) {
    if (kernel_started_) kernel_closed_ns_ += static_cast<double>(kernel_end_ - kernel_start_);
    kernel_started_ = true;
    kernel_start_ = op.start, kernel_end_ = op.end;
  } else {
    kernel_end_ = std::max(kernel_end_, op.end);
  }
}

const TimelineFacts& DeviceWaits::Finish() {
  if (finished_) return facts_;
  finished_ = true;
  window_.Drain([this](const Op& next) {
    if (!out_of_order_) Process(next);
  });
  if (out_of_order_) {
    facts_.missing = "operations arrived too far out of time order for the bounded reorder window";
    long_gaps_.clear();
    return facts_;
  }
  if (!started_) return facts_;
  const double busy = busy_closed_ns_ + static_cast<double>(busy_end_ - busy_start_);
  const double kernels = kernel_started_ ? kernel_closed_ns_ + static_cast<double>(kernel_end_ - kernel_start_) : 0;
  facts_.kernel_busy_ns = kernels;
  facts_.copy_only_ns = busy - kernels;
  facts_.host_wait_ns = host_ns_, facts_.kernel_wait_ns = kernel_wait_ns_, facts_.other_wait_ns = other_ns_;
  facts_.unclassified_wait_ns = unclassified_ns_;
  return facts_;
}

}  // namespace llmpo::analysis
