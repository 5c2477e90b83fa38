// What bounds a kernel, decided the way ncu's SOLBottleneck rule decides it
// (docs/analysis.md "Bound class"): from the SM throughput and the memory
// throughput (the maximum over the memory units, not DRAM alone), both % of
// peak, and the waves per SM.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "src/analysis/kernel_aggregator.h"

namespace llmpo::analysis {

enum class BoundClass {
  kHighThroughput,  // SM or memory >= 80 %: the unit is near its peak
  kCompute,         // SM >= memory + 10 points, below 80
  kMemory,          // memory >= SM + 10 points, below 80
  kBalanced,        // within 10 points, not both below 60
  kLatency,         // both below 60 with at least one wave per SM
  kSmallGrid,       // both below 60 and less than one wave per SM
  kUnknown,         // a metric the decision needs is missing (named in reason)
};
std::string_view ToString(BoundClass c);  // "high-throughput", "compute", ...

struct BoundThresholds {  // ncu's, in SpeedOfLight.py
  double high_pct = 80;
  double low_pct = 60;
  double difference_points = 10;
  double min_waves = 1;
};

struct BoundInputs {
  std::optional<double> sm_pct, memory_pct, waves_per_sm;
  std::optional<double> dram_pct, l2_pct, l1_pct;         // the memory breakdown, for naming the unit
  std::string missing_sm, missing_memory, missing_waves;  // why a value is absent
};

struct Bound {
  BoundClass cls = BoundClass::kUnknown;
  std::string unit;  // the busiest memory unit ("DRAM", "L2", "L1") when known
  std::optional<double> sm_pct, memory_pct, waves_per_sm;
  std::string reason;  // the numbers and threshold that decided, or what is missing
};

BoundInputs BoundInputsOf(const KernelAggregate& kernel);
Bound Classify(const BoundInputs& in, const BoundThresholds& t = {});
inline Bound ClassifyKernel(const KernelAggregate& kernel) { return Classify(BoundInputsOf(kernel)); }

}  // namespace llmpo::analysis
