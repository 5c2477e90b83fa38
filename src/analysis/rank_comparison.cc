#include "src/analysis/rank_comparison.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

#include "src/analysis/median.h"

namespace llmpo::analysis {
namespace {

constexpr double kNsPerMs = 1e6;

double Pct(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

// Values per process (devices of one process added), in process order.
RankSpread Spread(std::string quantity, const std::map<model::ProcessId, double>& per_process) {
  RankSpread s;
  s.quantity = std::move(quantity);
  std::vector<double> values;
  for (const auto& [p, v] : per_process) values.push_back(v);
  s.median = Median(values).value_or(0);  // values: one per process, never empty here
  auto [lo, hi] = std::minmax_element(per_process.begin(), per_process.end(),
                                      [](const auto& a, const auto& b) { return a.second < b.second; });
  s.min = lo->second;
  s.min_process = lo->first.Label();
  s.max = hi->second;
  s.max_process = hi->first.Label();
  return s;
}

}  // namespace

RankComparison CompareRanks(const model::GpuBreakdown& b) {
  RankComparison out;
  std::map<model::ProcessId, double> busy, compute, kernel, idle_pct_num, span;
  std::map<model::ProcessId, const std::vector<model::StepTimes>*> steps;
  for (const auto& d : b.devices) {
    busy[d.process] += d.busy_ns / kNsPerMs;
    compute[d.process] += d.classes.computation_ns / kNsPerMs;
    kernel[d.process] += d.kernel_ns / kNsPerMs;
    span[d.process] += d.span_ns;
    idle_pct_num[d.process] += d.idle_ns;
    steps.try_emplace(d.process, &d.steps);
  }
  out.processes = static_cast<int>(busy.size());
  if (out.processes < 2) return out;
  std::map<model::ProcessId, double> idle_pct;
  for (const auto& [p, idle] : idle_pct_num) idle_pct[p] = Pct(idle, span[p]);
  out.quantities = {Spread("gpu_busy_ms", busy), Spread("computation_ms", compute), Spread("kernel_ms", kernel),
                    Spread("idle_pct", idle_pct)};
  std::map<std::int64_t, std::map<model::ProcessId, double>> by_step;
  for (const auto& [p, list] : steps) {
    for (const auto& s : *list) {
      if (s.cpu_ns) by_step[s.step][p] = *s.cpu_ns / kNsPerMs;  // a step cut at the trace's end has no CPU time
    }
  }
  for (const auto& [step, per_process] : by_step) {
    const RankSpread s = Spread("step", per_process);
    out.steps.push_back({step, static_cast<int>(per_process.size()), s.min, s.median, s.max, s.max_process});
  }
  return out;
}

std::vector<std::size_t> CpuOpsByGpuTime(const model::GpuBreakdown& b) {
  std::vector<std::size_t> with_gpu;
  for (std::size_t i = 0; i < b.cpu_ops.size(); ++i) {
    if (b.cpu_ops[i].gpu_total_ns > 0) with_gpu.push_back(i);
  }
  std::stable_sort(with_gpu.begin(), with_gpu.end(), [&](std::size_t x, std::size_t y) {
    const auto& a = b.cpu_ops[x];
    const auto& c = b.cpu_ops[y];
    return a.gpu_total_ns != c.gpu_total_ns ? a.gpu_total_ns > c.gpu_total_ns : a.gpu_self_ns > c.gpu_self_ns;
  });
  return with_gpu;
}

void SortDevicesByRank(model::GpuBreakdown& b) {
  std::stable_sort(b.devices.begin(), b.devices.end(), [](const auto& x, const auto& y) {
    return std::tuple(!x.rank.has_value(), x.rank.value_or(0)) < std::tuple(!y.rank.has_value(), y.rank.value_or(0));
  });
}

}  // namespace llmpo::analysis
