// The roofline of one kernel as Nsight Compute computes it (docs/analysis.md
// "Roofline"): achieved work per precision (FP64, FP32, FP16, tensor) from
// the per-cycle instruction metrics times the SM clock, traffic per memory
// level (DRAM, L2, L1), and peaks from the peak metrics. Base units: FLOP/s
// (tensor: op/s), byte/s, FLOP/byte. A value that cannot be computed is
// nullopt with the reason in `missing`, never 0.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/analysis/kernel_aggregator.h"

namespace llmpo::analysis {

struct RooflineLevel {
  std::string level;  // "DRAM", "L2", "L1"
  std::optional<double> achieved_bytes_per_s;
  std::optional<double> peak_bytes_per_s;
  std::optional<double> intensity;    // FLOP/byte: achieved work / achieved traffic
  std::optional<double> ridge;        // FLOP/byte: peak work / peak traffic
  std::optional<double> pct_of_roof;  // achieved work / min(peak work, intensity x peak traffic)
  std::string missing;                // why a value above is absent
};

struct RooflinePrecision {
  std::string precision;                 // "fp64", "fp32", "fp16", "tensor"
  std::string path;                      // tensor only: the ncu path measured (sm__ops_path_tensor_<path>)
  std::string instruction;               // tensor only: "wgmma", "mma.sync", "tcgen05" or "" (from the path)
  bool sparse = false;                   // tensor only: a sparsity_on path (its peak is twice the dense one)
  std::optional<double> achieved_per_s;  // FLOP/s (tensor: op/s)
  std::optional<double> peak_per_s;
  std::string missing;
  std::vector<RooflineLevel> levels;
};

struct Roofline {
  std::vector<RooflinePrecision> precisions;  // those with achieved work > 0; see `missing`
  std::string missing;                        // when no precision has work: why ("no work counters captured", ...)
};

Roofline ComputeRoofline(const KernelAggregate& kernel);

// A group of kernels (a region) at one precision and level, weighted by
// kernel time: achieved = sum(W x t) / sum(t), intensity = sum(W x t) /
// sum(Q x t) (total work over total traffic), pct_of_roof = the kernels' %
// of roof weighted by t. Only kernels with a time and that value count.
struct RooflineSummary {
  std::string precision;
  std::string level;
  std::uint64_t kernels = 0;  // kernels with work at this precision and a time
  double time_ns = 0;         // their time
  std::optional<double> achieved_per_s;
  std::optional<double> intensity;
  std::optional<double> pct_of_roof;
};
std::vector<RooflineSummary> TimeWeightedRoofline(const std::vector<const KernelAggregate*>& kernels);

}  // namespace llmpo::analysis
