// A sink that gives every record of one input the launcher rank the run
// recorded for it (a profile run's nsys/run.rankN and ncu/details.rankN
// exports: the rank is in their name, not in their data), where the record
// carries no rank of its own. The records then fall into per-rank scopes,
// and the stragglers and rank comparisons see them (docs/multirank.md).
#pragma once

#include <cstdint>

#include "src/model/gpu_breakdown.h"
#include "src/model/sink.h"

namespace llmpo::pipeline {

class RankTagSink final : public model::RecordSink {
 public:
  RankTagSink(model::RecordSink& next, std::int64_t rank) : next_(next), rank_(rank) {}

  void OnLaunch(const model::LaunchRecord& l) override { Forward(l, [this](const auto& r) { next_.OnLaunch(r); }); }
  void OnKernelSummary(const model::KernelSummaryRow& r) override {
    Forward(r, [this](const auto& x) { next_.OnKernelSummary(x); });
  }
  void OnNvtxRange(const model::NvtxRange& r) override { Forward(r, [this](const auto& x) { next_.OnNvtxRange(x); }); }
  void OnNvtxRangesDone() override { next_.OnNvtxRangesDone(); }
  void OnCpuOp(const model::CpuOp& op) override { Forward(op, [this](const auto& x) { next_.OnCpuOp(x); }); }
  void OnNvtxKernelRow(const model::NvtxKernelRow& r) override {
    Forward(r, [this](const auto& x) { next_.OnNvtxKernelRow(x); });
  }
  void OnApiSummary(const model::ApiSummaryRow& r) override {
    if (r.rank) return next_.OnApiSummary(r);
    model::ApiSummaryRow tagged = r;
    tagged.rank = rank_;
    next_.OnApiSummary(tagged);
  }
  void OnGpuOpSummary(const model::GpuOpSummaryRow& r) override { next_.OnGpuOpSummary(r); }  // no process
  void OnLaunchOverhead(const model::LaunchOverheadRow& r) override {
    Forward(r, [this](const auto& x) { next_.OnLaunchOverhead(x); });
  }
  void OnDevice(const model::DeviceInfo& d) override { next_.OnDevice(d); }
  void OnGpuBreakdown(const model::GpuBreakdown& g) override {
    model::GpuBreakdown tagged = g;
    for (auto& d : tagged.devices) {
      if (!d.rank) d.rank = rank_;
      if (!d.process.rank) d.process.rank = rank_;
    }
    for (auto& op : tagged.cpu_ops) {
      if (!op.process.rank) op.process.rank = rank_;
    }
    next_.OnGpuBreakdown(tagged);
  }

 private:
  // The record as it came when it has a rank; else a copy with this input's.
  template <typename Record, typename Send>
  void Forward(const Record& record, Send send) {
    if (record.process.rank) return send(record);
    Record tagged = record;
    tagged.process.rank = rank_;
    send(tagged);
  }

  model::RecordSink& next_;
  std::int64_t rank_;
};

}  // namespace llmpo::pipeline
