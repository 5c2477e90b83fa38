#include "src/analysis/model_utilization.h"

namespace llmpo::analysis {

Utilization RegionUtilization(const Region* region, double amount, double unit, std::optional<double> peak) {
  Utilization u;
  if (region == nullptr || !region->total_ns || *region->total_ns <= 0) {
    u.missing = region == nullptr ? "region not in this run" : "no GPU time";
    return u;
  }
  u.gpu_kernel_ns = *region->total_ns;
  u.achieved = amount / (*region->total_ns * 1e-9) / unit;
  if (peak) u.pct_of_peak = 100.0 * *u.achieved / *peak;
  return u;
}

}  // namespace llmpo::analysis
