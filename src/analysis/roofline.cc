#include "src/analysis/roofline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <map>

#include "src/analysis/metric_lookup.h"

namespace llmpo::analysis {
namespace {

// Chart items of the RooflineChart section export (--print-details all).
#define LLMPO_CHART "GPU Speed Of Light Roofline Chart / "
constexpr std::string_view kSpAchieved = LLMPO_CHART "Single Precision Achieved Value";
constexpr std::string_view kSpRoof = LLMPO_CHART "Single Precision Roofline";
constexpr std::string_view kDpAchieved = LLMPO_CHART "Double Precision Achieved Value";
constexpr std::string_view kDpRoof = LLMPO_CHART "Double Precision Roofline";
#undef LLMPO_CHART

struct Term {
  MetricRef ref;
  double factor = 1;
};

// Sum of factor x metric; absent (with the first reason) when a term is.
MetricValue SumOf(const KernelAggregate& k, std::initializer_list<Term> terms) {
  double total = 0;
  for (const auto& t : terms) {
    MetricValue v = Lookup(k, t.ref);
    if (!v.value) return v;
    total += t.factor * *v.value;
  }
  return {total, ""};
}

// The first alternative that has a value; else the first one's reason.
MetricValue FirstOf(std::initializer_list<MetricValue> alternatives) {
  for (const auto& v : alternatives) {
    if (v.value) return v;
  }
  return *alternatives.begin();
}

MetricValue Product(const MetricValue& a, const MetricValue& b) {
  if (!a.value) return a;
  if (!b.value) return b;
  return {*a.value * *b.value, ""};
}

MetricValue SmClock(const KernelAggregate& k, std::string_view item) {
  return FirstOf({Lookup(k, {"sm__cycles_elapsed.avg.per_second"}), Lookup(k, {"", "SM Frequency", item})});
}
MetricValue SmspClock(const KernelAggregate& k, std::string_view item) {
  return FirstOf({Lookup(k, {"smsp__cycles_elapsed.avg.per_second"}), Lookup(k, {"", "SM Frequency", item})});
}

struct Work {
  MetricValue achieved, peak;
};

Work Fp32(const KernelAggregate& k) {
  const MetricValue raw = SumOf(k, {{{"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed"}},
                                    {{"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed"}},
                                    {{"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed"}, 2}});
  const MetricValue chart =
      SumOf(k, {{{"", "Predicated-On FADD Thread Instructions Executed Per Cycle", kSpAchieved}},
                {{"", "Predicated-On FMUL Thread Instructions Executed Per Cycle", kSpAchieved}},
                {{"", "Predicated-On FFMA Operations Per Cycle", kSpAchieved}}});  // already 2 x FFMA
  const MetricValue peak_raw = SumOf(k, {{{"sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained"}, 2}});
  const MetricValue peak_chart = SumOf(k, {{{"", "Theoretical Predicated-On FFMA Operations", kSpRoof}}});
  // Neither spelling: the raw metric's reason (the one a capture should add).
  return {Product(raw.value || !chart.value ? raw : chart, SmspClock(k, kSpAchieved)),
          Product(peak_raw.value || !peak_chart.value ? peak_raw : peak_chart, SmClock(k, kSpRoof))};
}

Work Fp64(const KernelAggregate& k) {
  const MetricValue raw = SumOf(k, {{{"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum.per_cycle_elapsed"}},
                                    {{"smsp__sass_thread_inst_executed_op_dmul_pred_on.sum.per_cycle_elapsed"}},
                                    {{"smsp__sass_thread_inst_executed_op_dfma_pred_on.sum.per_cycle_elapsed"}, 2}});
  const MetricValue chart = SumOf(k, {{{"", "Predicated-On DADD Thread Instructions Executed Per Cycle", kDpAchieved}},
                                      {{"", "Predicated-On DMUL Thread Instructions Executed Per Cycle", kDpAchieved}},
                                      {{"", "Predicated-On DFMA Operations Per Cycle", kDpAchieved}}});
  const MetricValue peak_raw = SumOf(k, {{{"sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained"}, 2}});
  const MetricValue peak_chart = SumOf(k, {{{"", "Theoretical Predicated-On DFMA Operations", kDpRoof}}});
  // Neither spelling: the raw metric's reason (the one a capture should add).
  return {Product(raw.value || !chart.value ? raw : chart, SmspClock(k, kDpAchieved)),
          Product(peak_raw.value || !peak_chart.value ? peak_raw : peak_chart, SmClock(k, kDpRoof))};
}

// Packed half2: one thread instruction is two lanes.
Work Fp16(const KernelAggregate& k) {
  const MetricValue raw = SumOf(k, {{{"smsp__sass_thread_inst_executed_op_hadd_pred_on.sum.per_cycle_elapsed"}, 2},
                                    {{"smsp__sass_thread_inst_executed_op_hmul_pred_on.sum.per_cycle_elapsed"}, 2},
                                    {{"smsp__sass_thread_inst_executed_op_hfma_pred_on.sum.per_cycle_elapsed"}, 4}});
  const MetricValue peak = SumOf(k, {{{"sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained"}, 4}});
  return {Product(raw, SmspClock(k, "")), Product(peak, SmClock(k, ""))};
}

constexpr std::string_view kTensorPrefix = "sm__ops_path_tensor_";
constexpr std::string_view kPerCycle = ".sum.per_cycle_elapsed";

std::string InstructionOf(std::string_view path) {
  if (path.find("op_utc") != std::string_view::npos) return "tcgen05";
  if (path.find("gmma_") != std::string_view::npos) return "wgmma";
  if (path.find("mma_") != std::string_view::npos) return "mma.sync";
  return "";
}

// The tensor path with the most work. Instruction-specific paths (op_*,
// CC 9.0+) win over aggregates, whose peak is the sparse one (twice dense).
RooflinePrecision Tensor(const KernelAggregate& k) {
  RooflinePrecision p{"tensor"};
  bool any_specific = false;
  for (const auto& m : k.metrics) {
    any_specific |= m.name.starts_with(kTensorPrefix) && m.name.ends_with(kPerCycle) &&
                    m.name.substr(kTensorPrefix.size()).starts_with("op_");
  }
  std::optional<double> best;
  for (const auto& m : k.metrics) {
    if (!m.name.starts_with(kTensorPrefix) || !m.name.ends_with(kPerCycle)) continue;
    const std::string path =
        m.name.substr(kTensorPrefix.size(), m.name.size() - kTensorPrefix.size() - kPerCycle.size());
    if (any_specific && !path.starts_with("op_")) continue;
    const MetricValue v = Lookup(k, {m.name});
    if (v.value && *v.value > 0 && (!best || *v.value > *best)) best = v.value, p.path = path;
  }
  if (!best) {
    p.missing = "no tensor work (sm__ops_path_tensor_*.sum.per_cycle_elapsed absent or 0)";
    return p;
  }
  p.instruction = InstructionOf(p.path);
  p.sparse = p.path.find("sparsity_on") != std::string::npos;
  const std::string base = std::string(kTensorPrefix) + p.path;
  const MetricValue clock = SmClock(k, "");
  const MetricValue achieved = Product({best, ""}, clock);
  const MetricValue peak = Product(Lookup(k, {base + ".sum.peak_sustained"}), clock);
  p.achieved_per_s = achieved.value;
  p.peak_per_s = peak.value;
  p.missing = !achieved.value ? achieved.missing : peak.missing;
  return p;
}

struct Traffic {
  std::string level;
  MetricValue achieved, peak;
};

MetricValue DramPeakFromAttributes(const KernelAggregate& k) {
  // 2 transfers per memory clock x bus width (bits) / 8.
  const MetricValue khz = Lookup(k, {"device__attribute_max_mem_frequency_khz"});
  const MetricValue bits = Lookup(k, {"device__attribute_global_memory_bus_width"});
  if (!khz.value) return khz;
  if (!bits.value) return bits;
  return {2 * *khz.value * 1e3 * *bits.value / 8, ""};
}

std::vector<Traffic> TrafficOf(const KernelAggregate& k) {
  std::vector<Traffic> out;
  const MetricValue dram =
      FirstOf({Lookup(k, {"dram__bytes.sum.per_second"}), Lookup(k, {"", "DRAM Bandwidth", kSpAchieved})});
  const MetricValue dram_peak = FirstOf(
      {Product(Lookup(k, {"dram__bytes.sum.peak_sustained"}), Lookup(k, {"dram__cycles_elapsed.avg.per_second"})),
       Product(Lookup(k, {"", "Theoretical DRAM Bytes Accessible", kSpRoof}),
               Lookup(k, {"", "DRAM Frequency", kSpRoof})),
       DramPeakFromAttributes(k)});
  out.push_back({"DRAM", dram, dram_peak});
  // L2 -> crossbar return traffic: 32 bytes per active cycle.
  const MetricValue l2 = SumOf(k, {{{"lts__lts2xbar_cycles_active.sum.per_second"}, 32}});
  const MetricValue l2_peak = Product(SumOf(k, {{{"lts__lts2xbar_cycles_active.sum.peak_sustained"}, 32}}),
                                      Lookup(k, {"lts__cycles_elapsed.avg.per_second"}));
  out.push_back({"L2", l2, l2_peak});
  // L1 writeback of global/local(/distributed shared) loads: 128 bytes per active cycle.
  const MetricValue l1 = FirstOf({SumOf(k, {{{"l1tex__lsu_writeback_active_mem_lgds.sum.per_second"}, 128}}),
                                  SumOf(k, {{{"l1tex__lsu_writeback_active_mem_lg.sum.per_second"}, 128}})});
  const MetricValue l1_peak_cycle =
      FirstOf({SumOf(k, {{{"l1tex__lsu_writeback_active_mem_lgds.sum.peak_sustained"}, 128}}),
               SumOf(k, {{{"l1tex__lsu_writeback_active_mem_lg.sum.peak_sustained"}, 128}})});
  out.push_back({"L1", l1, Product(l1_peak_cycle, Lookup(k, {"l1tex__cycles_elapsed.avg.per_second"}))});
  return out;
}

RooflineLevel LevelOf(const RooflinePrecision& p, const Traffic& t) {
  RooflineLevel l{t.level, t.achieved.value, t.peak.value};
  std::vector<std::string> why;
  if (!t.achieved.value) why.push_back(t.achieved.missing);
  if (!t.peak.value) why.push_back(t.peak.missing);
  if (t.achieved.value && *t.achieved.value > 0) l.intensity = *p.achieved_per_s / *t.achieved.value;
  if (t.achieved.value && *t.achieved.value <= 0) why.push_back(t.level + " traffic is 0: intensity undefined");
  if (t.peak.value && *t.peak.value > 0 && p.peak_per_s && *p.peak_per_s > 0) l.ridge = *p.peak_per_s / *t.peak.value;
  if (t.peak.value && *t.peak.value <= 0) why.push_back(t.level + " peak is 0 (a clock or peak metric of 0)");
  if (l.intensity && l.ridge) {
    const double roof = std::min(*p.peak_per_s, *l.intensity * *t.peak.value);
    l.pct_of_roof = 100.0 * *p.achieved_per_s / roof;
  }
  if (!l.ridge && p.peak_per_s && *p.peak_per_s <= 0) why.push_back("work peak is 0 (a clock or peak metric of 0)");
  if (!p.peak_per_s) why.push_back(p.missing.empty() ? "no work peak" : p.missing);
  std::string joined;
  for (const auto& w : why) joined += (joined.empty() ? "" : "; ") + w;
  l.missing = joined;
  return l;
}

RooflinePrecision FromWork(const char* name, const Work& w) {
  RooflinePrecision p{name};
  p.achieved_per_s = w.achieved.value;
  p.peak_per_s = w.peak.value;
  p.missing = !w.achieved.value ? w.achieved.missing : w.peak.missing;
  return p;
}

}  // namespace

Roofline ComputeRoofline(const KernelAggregate& kernel) {
  Roofline r;
  std::vector<RooflinePrecision> all = {FromWork("fp64", Fp64(kernel)), FromWork("fp32", Fp32(kernel)),
                                        FromWork("fp16", Fp16(kernel)), Tensor(kernel)};
  const std::vector<Traffic> traffic = TrafficOf(kernel);
  std::vector<std::string> why;
  for (auto& p : all) {
    if (!p.achieved_per_s || *p.achieved_per_s <= 0) {
      why.push_back(fmt::format("{}: {}", p.precision, p.achieved_per_s ? "no work" : p.missing));
      continue;
    }
    for (const auto& t : traffic) p.levels.push_back(LevelOf(p, t));
    r.precisions.push_back(std::move(p));
  }
  if (r.precisions.empty()) {
    // FP32 and tensor say what a capture lacks; FP64/FP16 would repeat it.
    r.missing = why[1] + "; " + why[3];
  }
  return r;
}

namespace {

struct Sums {
  std::uint64_t kernels = 0;
  double t = 0, work_t = 0, traffic_t = 0, pct_t = 0, pct_weight = 0;
  bool traffic_complete = true;
};

}  // namespace

std::vector<RooflineSummary> TimeWeightedRoofline(const std::vector<const KernelAggregate*>& kernels) {
  std::map<std::pair<std::string, std::string>, Sums> by;
  std::vector<std::pair<std::string, std::string>> order;
  for (const KernelAggregate* k : kernels) {
    // Without metrics (timelines) there is no roofline: skip the lookups.
    if (k->timed_calls == 0 || k->total_ns <= 0 || k->metrics.empty()) continue;
    const double t = k->total_ns;
    for (const auto& p : ComputeRoofline(*k).precisions) {
      for (const auto& l : p.levels) {
        const auto key = std::pair{p.precision, l.level};
        if (!by.count(key)) order.push_back(key);
        Sums& s = by[key];
        ++s.kernels;
        s.t += t;
        s.work_t += *p.achieved_per_s * t;
        if (l.achieved_bytes_per_s) {
          s.traffic_t += *l.achieved_bytes_per_s * t;
        } else {
          s.traffic_complete = false;  // a total without one kernel's traffic would overstate the intensity
        }
        if (l.pct_of_roof) s.pct_t += *l.pct_of_roof * t, s.pct_weight += t;
      }
    }
  }
  std::vector<RooflineSummary> out;
  for (const auto& key : order) {
    const Sums& s = by[key];
    RooflineSummary r{key.first, key.second, s.kernels, s.t};
    r.achieved_per_s = s.work_t / s.t;
    if (s.traffic_complete && s.traffic_t > 0) r.intensity = s.work_t / s.traffic_t;
    if (s.pct_weight > 0) r.pct_of_roof = s.pct_t / s.pct_weight;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace llmpo::analysis
