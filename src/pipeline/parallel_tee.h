// A tee whose second branch takes batches of launches on a thread of its
// own while the first branch takes them on the caller's: for importers that
// hand launches over in batches (RecordSink::OnLaunches), the region builder
// runs beside the kernel table and the timelines instead of after them.
// Everything else reaches the two branches one after the other, on the
// caller's thread, when the worker is idle.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <span>
#include <thread>

#include "src/model/gpu_breakdown.h"
#include "src/model/sink.h"

namespace llmpo::pipeline {

class ParallelTee : public model::RecordSink {
 public:
  // `here` runs on the caller's thread, `there` on the worker; breakdowns
  // are collected into `breakdown` (as TeeSink does), not forwarded.
  ParallelTee(model::RecordSink& here, model::RecordSink& there, model::GpuBreakdown& breakdown);
  ~ParallelTee() override;
  ParallelTee(const ParallelTee&) = delete;
  ParallelTee& operator=(const ParallelTee&) = delete;

  void OnLaunches(std::span<const model::LaunchRecord> launches) override;
  void OnLaunch(const model::LaunchRecord& launch) override;
  void OnKernelSummary(const model::KernelSummaryRow& row) override;
  void OnNvtxRange(const model::NvtxRange& range) override;
  void OnNvtxKernelRow(const model::NvtxKernelRow& row) override;
  void OnApiSummary(const model::ApiSummaryRow& row) override;
  void OnGpuOpSummary(const model::GpuOpSummaryRow& row) override;
  void OnLaunchOverhead(const model::LaunchOverheadRow& row) override;
  void OnGpuBreakdown(const model::GpuBreakdown& breakdown) override;

 private:
  void Work();

  model::RecordSink& here_;
  model::RecordSink& there_;
  model::GpuBreakdown& breakdown_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::span<const model::LaunchRecord> batch_;  // the worker's, while busy_
  bool busy_ = false;
  std::exception_ptr failure_;  // what the worker's branch threw, for the caller
  bool stop_ = false;
  std::thread worker_;  // started by the first batch
};

}  // namespace llmpo::pipeline
