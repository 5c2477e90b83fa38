// Model FLOPs utilisation (MFU) and model bandwidth utilisation (MBU) of a
// region: the work the model does inside it (FLOPs or bytes, from the
// config) over the region's GPU kernel time, and that rate as a share of
// the GPU's peak (docs/analysis.md). Pure: the run model (report/run_model)
// calls it per configured region.
#pragma once

#include <optional>
#include <string>

#include "src/analysis/region_tree.h"

namespace llmpo::analysis {

struct Utilization {
  std::optional<double> gpu_kernel_ns;  // the region's GPU kernel time; null: see `missing`
  std::string missing;                  // why there is no rate: "region not in this run", "no GPU time"
  std::optional<double> achieved;       // `amount` per second, in `unit` (TFLOP/s, GB/s)
  std::optional<double> pct_of_peak;    // null without a peak
};

// `amount` of work done inside `region` (null: the region is not in this
// run) over its GPU kernel time, in units of `unit` per second (1e12 for
// TFLOP/s, 1e9 for GB/s), and as a percentage of `peak` (in the same unit).
Utilization RegionUtilization(const Region* region, double amount, double unit, std::optional<double> peak);

}  // namespace llmpo::analysis
