#include "src/pipeline/parallel_tee.h"

#include <exception>
#include <utility>

namespace llmpo::pipeline {

ParallelTee::ParallelTee(model::RecordSink& here, model::RecordSink& there, model::GpuBreakdown& breakdown)
    : here_(here), there_(there), breakdown_(breakdown) {}

ParallelTee::~ParallelTee() {
  if (!worker_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  worker_.join();
}

void ParallelTee::Work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return busy_ || stop_; });
    if (stop_) return;
    const auto batch = batch_;
    lock.unlock();
    std::exception_ptr failure;
    try {
      there_.OnLaunches(batch);
    } catch (...) {  // rethrown on the caller's thread
      failure = std::current_exception();
    }
    lock.lock();
    failure_ = failure;
    busy_ = false;
    wake_.notify_all();
  }
}

void ParallelTee::OnLaunches(std::span<const model::LaunchRecord> launches) {
  if (launches.empty()) return;
  if (!worker_.joinable()) worker_ = std::thread([this] { Work(); });
  {
    std::lock_guard lock(mutex_);
    batch_ = launches;
    busy_ = true;
  }
  wake_.notify_all();
  // The worker reads the batch until it is done with it: wait for that
  // however the branch here ends.
  struct WaitForWorker {
    ParallelTee& tee;
    ~WaitForWorker() {
      std::unique_lock lock(tee.mutex_);
      tee.wake_.wait(lock, [this] { return !tee.busy_; });
    }
  };
  {
    WaitForWorker wait{*this};
    here_.OnLaunches(launches);
  }
  if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
}

void ParallelTee::OnLaunch(const model::LaunchRecord& launch) {
  here_.OnLaunch(launch);
  there_.OnLaunch(launch);
}
void ParallelTee::OnKernelSummary(const model::KernelSummaryRow& row) {
  here_.OnKernelSummary(row);
  there_.OnKernelSummary(row);
}
void ParallelTee::OnNvtxRange(const model::NvtxRange& range) {
  here_.OnNvtxRange(range);
  there_.OnNvtxRange(range);
}
void ParallelTee::OnNvtxKernelRow(const model::NvtxKernelRow& row) {
  here_.OnNvtxKernelRow(row);
  there_.OnNvtxKernelRow(row);
}
void ParallelTee::OnApiSummary(const model::ApiSummaryRow& row) {
  here_.OnApiSummary(row);
  there_.OnApiSummary(row);
}
void ParallelTee::OnGpuOpSummary(const model::GpuOpSummaryRow& row) {
  here_.OnGpuOpSummary(row);
  there_.OnGpuOpSummary(row);
}
void ParallelTee::OnLaunchOverhead(const model::LaunchOverheadRow& row) {
  here_.OnLaunchOverhead(row);
  there_.OnLaunchOverhead(row);
}
void ParallelTee::OnGpuBreakdown(const model::GpuBreakdown& g) {
  breakdown_.devices.insert(breakdown_.devices.end(), g.devices.begin(), g.devices.end());
  breakdown_.cpu_ops.insert(breakdown_.cpu_ops.end(), g.cpu_ops.begin(), g.cpu_ops.end());
}

}  // namespace llmpo::pipeline
