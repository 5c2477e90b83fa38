// Importers push what they read into a sink, record by record, so a large
// input never has to sit in memory: the kernel aggregator keeps one entry
// per kernel name, a region builder keeps what regions need.
#pragma once

#include <span>

#include "src/model/gpu_breakdown.h"
#include "src/model/records.h"

namespace llmpo::model {

class RecordSink {
 public:
  virtual ~RecordSink() = default;
  virtual void OnLaunch(const LaunchRecord& launch) = 0;
  // Several launches at once, in order (an importer that builds them in
  // batches); a sink may take them in parallel with other sinks.
  virtual void OnLaunches(std::span<const LaunchRecord> launches) {
    for (const LaunchRecord& l : launches) OnLaunch(l);
  }
  virtual void OnKernelSummary(const KernelSummaryRow& row) = 0;
  virtual void OnNvtxRange(const NvtxRange& /*range*/) {}
  // Every NVTX range of the current input has been sent (nsys SQLite sends
  // them before its launches): a sink may reduce the launches that follow
  // against them instead of keeping each.
  virtual void OnNvtxRangesDone() {}
  virtual void OnCpuOp(const CpuOp& /*op*/) {}
  virtual void OnNvtxKernelRow(const NvtxKernelRow& /*row*/) {}
  virtual void OnApiSummary(const ApiSummaryRow& /*row*/) {}
  virtual void OnGpuOpSummary(const GpuOpSummaryRow& /*row*/) {}
  virtual void OnLaunchOverhead(const LaunchOverheadRow& /*row*/) {}
  virtual void OnDevice(const DeviceInfo& /*device*/) {}
  virtual void OnGpuBreakdown(const GpuBreakdown& /*breakdown*/) {}
};

}  // namespace llmpo::model
