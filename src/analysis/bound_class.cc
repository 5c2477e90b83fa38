#include "src/analysis/bound_class.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "src/analysis/metric_lookup.h"

namespace llmpo::analysis {
namespace {

constexpr std::string_view kSol = "GPU Speed Of Light Throughput";
constexpr MetricRef kSm{"sm__throughput.avg.pct_of_peak_sustained_elapsed", "Compute (SM) Throughput", kSol};
constexpr MetricRef kMemory{"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "Memory Throughput",
                            kSol};
constexpr MetricRef kWaves{"launch__waves_per_multiprocessor", "Waves Per SM", "Launch Statistics"};
// ncu's Speed Of Light section measures DRAM throughput as gpu__dram_throughput
// (what .ncu-rep files and --section SpeedOfLight hold); raw pages and
// --metrics often ask for dram__throughput. Both are % of the DRAM peak.
constexpr MetricRef kDram{"dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM Throughput", kSol,
                          "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"};
constexpr MetricRef kL2{"lts__throughput.avg.pct_of_peak_sustained_elapsed", "L2 Cache Throughput", kSol};
constexpr MetricRef kL1{"l1tex__throughput.avg.pct_of_peak_sustained_active", "L1/TEX Cache Throughput", kSol};

// Memory Throughput is the largest of ncu's memory breakdown, so the unit
// whose own % is nearest to it is the busiest (DRAM first on a tie).
std::string BusiestUnit(const BoundInputs& in) {
  std::string unit;
  double best = INFINITY;
  const std::pair<const char*, std::optional<double>> units[] = {
      {"DRAM", in.dram_pct}, {"L2", in.l2_pct}, {"L1", in.l1_pct}};
  for (const auto& [name, pct] : units) {
    if (!pct || !in.memory_pct) continue;
    const double distance = std::fabs(*pct - *in.memory_pct);
    if (distance < best) best = distance, unit = name;
  }
  return unit;
}

Bound LowThroughput(const BoundInputs& in, const BoundThresholds& t, Bound b) {
  const std::string both =
      fmt::format("SM {:.3g} % and memory {:.3g} % both below {:g} %", *in.sm_pct, *in.memory_pct, t.low_pct);
  if (!in.waves_per_sm) {
    b.reason = fmt::format("{}; latency or small grid cannot be told apart: {}", both, in.missing_waves);
    return b;
  }
  if (*in.waves_per_sm < t.min_waves) {
    b.cls = BoundClass::kSmallGrid;
    b.reason = fmt::format("{}, {:.3g} waves per SM (< {:g}): the grid does not fill the GPU", both, *in.waves_per_sm,
                           t.min_waves);
  } else {
    b.cls = BoundClass::kLatency;
    b.reason =
        fmt::format("{} with {:.3g} waves per SM: latency (stalls, occupancy) limits it", both, *in.waves_per_sm);
  }
  return b;
}

}  // namespace

std::string_view ToString(BoundClass c) {
  switch (c) {
    case BoundClass::kHighThroughput:
      return "high-throughput";
    case BoundClass::kCompute:
      return "compute";
    case BoundClass::kMemory:
      return "memory";
    case BoundClass::kBalanced:
      return "balanced";
    case BoundClass::kLatency:
      return "latency";
    case BoundClass::kSmallGrid:
      return "small-grid";
    case BoundClass::kUnknown:
      return "unknown";
  }
  return "unknown";
}

BoundInputs BoundInputsOf(const KernelAggregate& kernel) {
  BoundInputs in;
  auto take = [&](const MetricRef& ref, std::optional<double>& value, std::string* missing) {
    MetricValue v = Lookup(kernel, ref);
    value = v.value;
    if (missing != nullptr) *missing = std::move(v.missing);
  };
  take(kSm, in.sm_pct, &in.missing_sm);
  take(kMemory, in.memory_pct, &in.missing_memory);
  take(kWaves, in.waves_per_sm, &in.missing_waves);
  take(kDram, in.dram_pct, nullptr);
  take(kL2, in.l2_pct, nullptr);
  take(kL1, in.l1_pct, nullptr);
  return in;
}

Bound Classify(const BoundInputs& in, const BoundThresholds& t) {
  Bound b;
  b.sm_pct = in.sm_pct;
  b.memory_pct = in.memory_pct;
  b.waves_per_sm = in.waves_per_sm;
  b.unit = BusiestUnit(in);
  if (!in.sm_pct || !in.memory_pct) {
    b.reason = in.sm_pct ? in.missing_memory : in.missing_sm;
    return b;
  }
  const double sm = *in.sm_pct, mem = *in.memory_pct;
  if (sm >= t.high_pct || mem >= t.high_pct) {
    b.cls = BoundClass::kHighThroughput;
    b.reason = fmt::format("{} throughput {:.3g} % is at or above {:g} % of peak", sm >= mem ? "SM" : "memory",
                           std::max(sm, mem), t.high_pct);
    return b;
  }
  if (sm < t.low_pct && mem < t.low_pct) return LowThroughput(in, t, std::move(b));
  if (std::fabs(sm - mem) >= t.difference_points) {
    b.cls = sm > mem ? BoundClass::kCompute : BoundClass::kMemory;
    b.reason = fmt::format("{} {:.3g} % is {:.3g} points above {} {:.3g} % (threshold {:g})",
                           sm > mem ? "SM" : "memory", std::max(sm, mem), std::fabs(sm - mem),
                           sm > mem ? "memory" : "SM", std::min(sm, mem), t.difference_points);
    return b;
  }
  b.cls = BoundClass::kBalanced;
  b.reason = fmt::format("SM {:.3g} % and memory {:.3g} % within {:g} points", sm, mem, t.difference_points);
  return b;
}

}  // namespace llmpo::analysis
