// A sink that feeds two sinks, one after the other, on the caller's thread.
// (A second sink on a thread of its own, taking each batch of launches beside
// the first, was slower: bench/RESULTS.md, "One thread for the report sinks".)
#pragma once

#include <span>

#include "src/model/gpu_breakdown.h"
#include "src/model/sink.h"

namespace llmpo::pipeline {

// Launches, kernel summaries and NVTX rows go to both sinks. The runtime
// summaries (API calls, GPU operations, launch overhead rows) and the
// devices go to the first only: it is the kernel table's side of the import's tees. GPU
// breakdowns are collected into `breakdown`, not forwarded.
class TeeSink : public model::RecordSink {
 public:
  TeeSink(model::RecordSink& first, model::RecordSink& second, model::GpuBreakdown& breakdown)
      : first_(first), second_(second), breakdown_(breakdown) {}

  void OnGpuBreakdown(const model::GpuBreakdown& g) override {
    breakdown_.devices.insert(breakdown_.devices.end(), g.devices.begin(), g.devices.end());
    breakdown_.cpu_ops.insert(breakdown_.cpu_ops.end(), g.cpu_ops.begin(), g.cpu_ops.end());
  }
  void OnLaunch(const model::LaunchRecord& l) override {
    first_.OnLaunch(l);
    second_.OnLaunch(l);
  }
  // A batch goes to the first sink whole, then to the second: each sink's
  // code and state stay in the cache for the batch.
  void OnLaunches(std::span<const model::LaunchRecord> launches) override {
    first_.OnLaunches(launches);
    second_.OnLaunches(launches);
  }
  void OnKernelSummary(const model::KernelSummaryRow& r) override {
    first_.OnKernelSummary(r);
    second_.OnKernelSummary(r);
  }
  void OnNvtxRange(const model::NvtxRange& r) override {
    first_.OnNvtxRange(r);
    second_.OnNvtxRange(r);
  }
  void OnNvtxRangesDone() override {
    first_.OnNvtxRangesDone();
    second_.OnNvtxRangesDone();
  }
  void OnNvtxKernelRow(const model::NvtxKernelRow& r) override {
    first_.OnNvtxKernelRow(r);
    second_.OnNvtxKernelRow(r);
  }
  void OnCpuOp(const model::CpuOp& op) override { first_.OnCpuOp(op); }
  void OnApiSummary(const model::ApiSummaryRow& r) override { first_.OnApiSummary(r); }
  void OnGpuOpSummary(const model::GpuOpSummaryRow& r) override { first_.OnGpuOpSummary(r); }
  void OnLaunchOverhead(const model::LaunchOverheadRow& r) override { first_.OnLaunchOverhead(r); }
  void OnDevice(const model::DeviceInfo& d) override { first_.OnDevice(d); }

 protected:
  model::RecordSink& first_;
  model::RecordSink& second_;

 private:
  model::GpuBreakdown& breakdown_;
};

}  // namespace llmpo::pipeline
