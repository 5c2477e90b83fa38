// Pairs a timeline's kernel launches (a PyTorch trace, an nsys export, our
// trace) with the ncu results of the same program, launch by launch, so that
// ncu's metrics land in the region each launch ran in (kernels_combined).
//
// Rule, per kernel name (the name both tools print):
//   - the timeline's launches in launch order (the launching call's start,
//     else the GPU start; ties by GPU start), ncu's results in result order
//     (its ID column: ncu numbers launches as the program makes them);
//   - the n-th launch takes the n-th result when the two counts are equal and
//     each side holds the kernel in one scope (one process and device; for
//     ncu also one input);
//   - otherwise every launch of the name takes ncu's aggregate over all its
//     results (matched by name only) and a kernel_paired_by_name diagnostic
//     says why. Pairing the first n launches with n results would be a guess:
//     ncu usually profiles a subset (--launch-skip/--launch-count, -k), and
//     which subset cannot be seen from the results.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "src/analysis/kernel_aggregator.h"
#include "src/model/diagnostics.h"
#include "src/model/records.h"
#include "src/model/sink.h"
#include "src/model/source.h"

namespace llmpo::analysis {

// One kernel inside one region (the innermost region a launch ran in; an
// empty path: outside every region). Calls and times are the timeline's;
// metrics are ncu's, from the paired results (or the name's aggregate).
struct RegionKernel {
  std::vector<std::string> region;  // labels, outermost first
  KernelAggregate kernel;
  bool by_launch = false;  // false: metrics by name only (or no ncu match)
};

struct PairingResult {
  std::vector<RegionKernel> rows;  // by region path, then kernel name
  std::size_t kernels_by_launch = 0;
  std::size_t kernels_by_name = 0;  // an ncu match by name only
  std::size_t kernels_unmatched = 0;
};

// Buffers the kernel launches of every input (call EndInput after each one);
// meant for imports of two or more inputs only: it holds one small record
// per timeline launch and a copy of every ncu result.
class LaunchPairing : public model::RecordSink {
 public:
  void OnLaunch(const model::LaunchRecord& launch) override;
  void OnKernelSummary(const model::KernelSummaryRow&) override {}
  // The launches since the last call came from `source`, of `family`.
  void EndInput(const std::string& source, model::SourceFamily family);
  // Pairs the launches of the timeline input `timeline_source` with those of
  // every ncu input; reasons for name-only matches go to `diagnostics`.
  PairingResult Pair(const std::string& timeline_source, model::Diagnostics& diagnostics) const;

  struct TimelineLaunch {
    model::ProcessId process;
    std::string device;
    std::int64_t launch_ns = 0, start_ns = 0;  // launch-call start (start_ns when unknown), kernel start
    double duration_ns = 0;
    bool timed = false;
    std::uint32_t region = 0;  // index into regions_
  };
  struct NcuResult {
    std::string source;
    std::int64_t id = 0;  // result order
    model::LaunchRecord record;
  };

 private:
  std::uint32_t RegionId(const model::LaunchRecord& launch);

  std::vector<std::vector<std::string>> regions_;
  std::map<std::vector<std::string>, std::uint32_t> region_ids_;
  std::map<std::string, std::vector<TimelineLaunch>> pending_timeline_;  // by kernel name
  std::map<std::string, std::vector<NcuResult>> pending_ncu_;
  std::map<std::string, std::map<std::string, std::vector<TimelineLaunch>>> timelines_;  // source -> name ->
  std::map<std::string, std::vector<NcuResult>> ncu_;                                    // name -> results
  std::int64_t arrival_ = 0;
};

}  // namespace llmpo::analysis
