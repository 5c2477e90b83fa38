// A sink that hands every record on to another unchanged: the base of sinks
// that change one kind of record on the way (override that one).
#pragma once

#include "src/model/sink.h"

namespace llmpo::model {

class ForwardingSink : public RecordSink {
 public:
  explicit ForwardingSink(RecordSink& next) : next_(next) {}

  void OnLaunch(const LaunchRecord& launch) override { next_.OnLaunch(launch); }
  void OnKernelSummary(const KernelSummaryRow& row) override { next_.OnKernelSummary(row); }
  void OnNvtxRange(const NvtxRange& range) override { next_.OnNvtxRange(range); }
  void OnNvtxRangesDone() override { next_.OnNvtxRangesDone(); }
  void OnCpuOp(const CpuOp& op) override { next_.OnCpuOp(op); }
  void OnNvtxKernelRow(const NvtxKernelRow& row) override { next_.OnNvtxKernelRow(row); }
  void OnApiSummary(const ApiSummaryRow& row) override { next_.OnApiSummary(row); }
  void OnGpuOpSummary(const GpuOpSummaryRow& row) override { next_.OnGpuOpSummary(row); }
  void OnLaunchOverhead(const LaunchOverheadRow& row) override { next_.OnLaunchOverhead(row); }
  void OnDevice(const DeviceInfo& device) override { next_.OnDevice(device); }
  void OnGpuBreakdown(const GpuBreakdown& breakdown) override { next_.OnGpuBreakdown(breakdown); }

 protected:
  RecordSink& next() { return next_; }

 private:
  RecordSink& next_;
};

}  // namespace llmpo::model
