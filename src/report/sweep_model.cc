#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <set>

#include <cstdlib>
#include "src/report/compare_model.h"
#include "src/report/sweep_model.h"

namespace llmpo::report {
namespace {

constexpr double kMs = 1e6;  // ns per ms

std::optional<double> Ms(const std::optional<double>& ns) {
  if (!ns) return std::nullopt;
  return *ns / kMs;
}

// The fixed columns, in order; per-region and per-kernel ones follow.
std::vector<SweepQuantity> FixedQuantities() {
  return {{"gpu_kernel_ms", "total GPU kernel time", "ms", false},
          {"gpu_idle_ms", "GPU idle time", "ms", false},
          {"tokens_per_s", "tokens/s", "tokens/s", true},
          {"ttft_ms", "TTFT", "ms", false},
          {"tpot_ms", "TPOT", "ms", false},
          {"scaling_efficiency_pct", "scaling efficiency vs point 0", "%", true}};
}

std::string Alias(const std::string& id) {
  if (id == "latency") return "gpu_kernel_ms";
  if (id == "throughput") return "tokens_per_s";
  return id;
}

// What one point's own report set says (not needing a comparison).
void OwnQuantities(const ReportSet& set, SweepPoint& p) {
  const RunModel& run = set.run;
  p.q["gpu_kernel_ms"] = run.times_from.empty() ? std::nullopt : std::optional<double>(run.gpu_kernel_ns / kMs);
  p.q["gpu_idle_ms"] = set.timeline ? Ms(set.timeline->gpu_idle_ns) : std::nullopt;
  p.q["tokens_per_s"] = run.serving.tokens_per_s;
  p.q["ttft_ms"] = Ms(run.serving.ttft_ns);
  p.q["tpot_ms"] = Ms(run.serving.tpot_ns);
  for (const auto& m : run.mfu) {
    if (m.mfu_pct) p.q["mfu_pct:" + m.region_path] = m.mfu_pct;
  }
  for (const auto& m : run.mbu) {
    if (m.mbu_pct) p.q["mbu_pct:" + m.region_path] = m.mbu_pct;
  }
  if (!run.top_kernels.empty()) {
    p.top_kernel = run.top_kernels.front().kernel.name;
    p.top_kernel_bound = run.top_kernels.front().bound;
  }
}

// A side's region and kernel times from a comparison (`base` picks its base side).
void ComparedQuantities(const Comparison& c, bool base, std::size_t top_kernels, SweepPoint& p) {
  for (const auto& r : c.regions) {
    if (r.path.find(" / ") != std::string::npos) continue;  // top-level regions only
    const auto& gpu = base ? r.base_ns : r.new_ns;
    const auto& cpu = base ? r.base_cpu_ns : r.new_cpu_ns;
    if (gpu) p.q["region_gpu_ms:" + r.path] = Ms(gpu);
    if (cpu) p.q["region_cpu_ms:" + r.path] = Ms(cpu);
  }
  std::vector<const KernelDelta*> kernels;
  for (const auto& k : c.kernels) {
    if ((base ? k.base_ns : k.new_ns).has_value()) kernels.push_back(&k);
  }
  std::sort(kernels.begin(), kernels.end(), [&](const KernelDelta* a, const KernelDelta* b) {
    return *(base ? a->base_ns : a->new_ns) > *(base ? b->base_ns : b->new_ns);
  });
  if (kernels.size() > top_kernels) kernels.resize(top_kernels);
  for (const KernelDelta* k : kernels) p.q["kernel_ms:" + k->name] = Ms(base ? k->base_ns : k->new_ns);
}

// Every point's values of kernels another point put in its top N.
void FillKernelColumns(const std::vector<const Comparison*>& by_point, const std::vector<std::size_t>& measured,
                       SweepReport& report) {
  std::set<std::string> wanted;
  for (const auto& p : report.points) {
    for (const auto& [id, v] : p.q) {
      if (id.starts_with("kernel_ms:")) wanted.insert(id.substr(10));
    }
  }
  for (std::size_t m = 0; m < measured.size(); ++m) {
    const bool base = m == 0;
    for (const auto& k : by_point[m]->kernels) {
      const auto& ns = base ? k.base_ns : k.new_ns;
      if (ns && wanted.count(k.name)) report.points[measured[m]].q["kernel_ms:" + k.name] = Ms(ns);
    }
  }
}

std::string QuantityLabel(const std::string& id, std::string* unit, bool* higher) {
  const auto colon = id.find(':');
  const std::string kind = id.substr(0, colon), what = colon == std::string::npos ? "" : id.substr(colon + 1);
  *unit = "ms";
  *higher = false;
  if (kind == "region_gpu_ms") return fmt::format("GPU kernel time in {}", what);
  if (kind == "region_cpu_ms") return fmt::format("CPU range time of {}", what);
  if (kind == "kernel_ms") return fmt::format("kernel {}", what);
  *unit = "%";
  *higher = true;
  if (kind == "mfu_pct") return fmt::format("MFU {}", what);
  return fmt::format("MBU {}", what);
}

void ListQuantities(SweepReport& report) {
  report.quantities = FixedQuantities();
  std::vector<std::string> dynamic;
  for (const auto& p : report.points) {
    for (const auto& [id, v] : p.q) {
      const bool fixed = std::any_of(report.quantities.begin(), report.quantities.end(),
                                     [&](const SweepQuantity& q) { return q.id == id; });
      if (!fixed && std::find(dynamic.begin(), dynamic.end(), id) == dynamic.end()) dynamic.push_back(id);
    }
  }
  std::stable_sort(dynamic.begin(), dynamic.end(), [](const std::string& a, const std::string& b) {
    return a.substr(0, a.find(':')) < b.substr(0, b.find(':'));
  });
  for (const auto& id : dynamic) {
    SweepQuantity q;
    q.id = id;
    q.label = QuantityLabel(id, &q.unit, &q.higher_is_better);
    report.quantities.push_back(q);
  }
}

// Numeric value of a swept value's text; null for a string or a non-positive number.
std::optional<double> PositiveNumber(const std::string& text) {
  const auto v = SweepNumber(text);
  if (!v || !(*v > 0) || !std::isfinite(*v)) return std::nullopt;
  return v;
}

// (product of swept values / point 0's) / (GPU kernel time / point 0's) x 100.
void ScalingEfficiency(SweepReport& report) {
  if (!report.base) return;
  const SweepPoint& base = report.points[*report.base];
  const auto base_t = SweepValue(base, "gpu_kernel_ms");
  if (!base_t || *base_t <= 0) {
    report.notes.push_back("scaling efficiency: unknown, the baseline point has no GPU kernel time");
    return;
  }
  bool numeric = !report.keys.empty();
  for (const auto& p : report.points) {
    for (const auto& v : p.in.values) numeric = numeric && PositiveNumber(v).has_value();
  }
  if (!numeric) {
    report.notes.push_back("scaling efficiency: unknown, a swept value is not a positive number");
    return;
  }
  for (auto& p : report.points) {
    double work = 1;
    for (std::size_t k = 0; k < report.keys.size(); ++k) {
      work *= *PositiveNumber(p.in.values[k]) / *PositiveNumber(base.in.values[k]);
    }
    const auto t = SweepValue(p, "gpu_kernel_ms");
    if (t && *t > 0) p.scaling_efficiency_pct = 100.0 * work / (*t / *base_t);
    p.q["scaling_efficiency_pct"] = p.scaling_efficiency_pct;
  }
}

bool Better(double a, double b, bool higher) { return higher ? a > b : a < b; }

void ParetoFront(const SweepInput& input, SweepReport& report) {
  if (input.pareto.size() != 2) return;
  std::vector<const SweepQuantity*> q;
  for (const auto& raw : input.pareto) {
    const std::string id = Alias(raw);
    auto it = std::find_if(report.quantities.begin(), report.quantities.end(),
                           [&](const SweepQuantity& s) { return s.id == id; });
    if (it == report.quantities.end()) {
      report.notes.push_back(fmt::format("Pareto front: no quantity '{}' in this sweep", raw));
      return;
    }
    q.push_back(&*it);
  }
  report.pareto = {q[0]->id, q[1]->id};
  std::vector<SweepPoint*> known;
  for (auto& p : report.points) {
    if (SweepValue(p, q[0]->id) && SweepValue(p, q[1]->id)) known.push_back(&p);
  }
  if (known.size() < 2) {
    report.notes.push_back(fmt::format("Pareto front of {} and {}: fewer than two points know both", q[0]->id, q[1]->id));
  }
  for (SweepPoint* p : known) {
    const double a = *SweepValue(*p, q[0]->id), b = *SweepValue(*p, q[1]->id);
    p->pareto = std::none_of(known.begin(), known.end(), [&](SweepPoint* o) {
      const double oa = *SweepValue(*o, q[0]->id), ob = *SweepValue(*o, q[1]->id);
      const bool no_worse = !Better(a, oa, q[0]->higher_is_better) && !Better(b, ob, q[1]->higher_is_better);
      return o != p && no_worse && (Better(oa, a, q[0]->higher_is_better) || Better(ob, b, q[1]->higher_is_better));
    });
  }
}

std::string PointName(const SweepReport& report, const SweepPoint& p) {
  std::vector<std::string> parts;
  for (std::size_t k = 0; k < report.keys.size(); ++k) parts.push_back(report.keys[k] + "=" + p.in.values[k]);
  return fmt::format("point {} ({})", p.in.num, fmt::join(parts, ", "));
}

void BottleneckChanges(SweepReport& report) {
  if (std::all_of(report.points.begin(), report.points.end(), [](const SweepPoint& p) { return p.top_kernel.empty(); })) {
    report.bottleneck_changes.push_back("no point has kernel times: the bottleneck kernel is not known");
    return;
  }
  const SweepPoint* prev = nullptr;
  for (const auto& p : report.points) {
    if (p.top_kernel.empty()) continue;
    if (prev != nullptr && prev->top_kernel != p.top_kernel) {
      report.bottleneck_changes.push_back(fmt::format(
          "from {} to {}, the kernel with the most GPU time changes from {} ({} bound) to {} ({} bound)",
          PointName(report, *prev), PointName(report, p), prev->top_kernel, prev->top_kernel_bound, p.top_kernel,
          p.top_kernel_bound));
    } else if (prev != nullptr && prev->top_kernel_bound != p.top_kernel_bound) {
      report.bottleneck_changes.push_back(
          fmt::format("from {} to {}, {} stays the kernel with the most GPU time but turns from {} bound to {} bound",
                      PointName(report, *prev), PointName(report, p), p.top_kernel, prev->top_kernel_bound,
                      p.top_kernel_bound));
    }
    prev = &p;
  }
}

// Compares every measured point with the first one; fills what the
// comparisons know. `compare` is kept alive by the caller.
void CompareWithBase(const SweepInput& input, SweepReport& report, CompareReport& compare) {
  std::vector<std::size_t> measured;
  for (std::size_t i = 0; i < report.points.size(); ++i) {
    if (report.points[i].in.set != nullptr) measured.push_back(i);
  }
  if (measured.empty()) {
    report.notes.push_back("no point finished with a report set: nothing to chart or compare");
    return;
  }
  report.base = measured.front();
  if (report.points[measured.front()].in.num != 0) {
    report.notes.push_back(fmt::format("point 0 has no report set: point {} is the baseline",
                                       report.points[measured.front()].in.num));
  }
  std::vector<CompareSide> sides;
  for (std::size_t i : measured) sides.push_back({report.points[i].in.dir, report.points[i].in.set});
  if (sides.size() == 1) sides.push_back(sides.front());  // the baseline's own values
  CompareOptions options;
  options.significance = input.significance;
  compare = BuildCompareReport(sides, options);
  std::vector<const Comparison*> by_point;
  for (std::size_t m = 0; m < measured.size(); ++m) {
    const Comparison& c = compare.comparisons[m == 0 ? 0 : m - 1];
    by_point.push_back(&c);
    SweepPoint& p = report.points[measured[m]];
    ComparedQuantities(c, m == 0, input.top_kernels, p);
    const bool timed = !c.base_times_from.empty() && !c.new_times_from.empty();
    if (m > 0 && timed) p.vs_base = SweepVsBase{c.base_kernel_ns / kMs, c.new_kernel_ns / kMs, c.total_test};
  }
  FillKernelColumns(by_point, measured, report);
}

}  // namespace

std::optional<double> SweepNumber(const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789+-.eE") != std::string::npos) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::vector<const SweepQuantity*> ShownQuantities(const SweepReport& report) {
  std::vector<const SweepQuantity*> shown;
  for (const auto& q : report.quantities) {
    const bool known = std::any_of(report.points.begin(), report.points.end(),
                                   [&](const SweepPoint& p) { return SweepValue(p, q.id).has_value(); });
    if (known) shown.push_back(&q);
  }
  return shown;
}

std::optional<double> SweepValue(const SweepPoint& p, const std::string& id) {
  auto it = p.q.find(id);
  return it == p.q.end() ? std::nullopt : it->second;
}

SweepReport BuildSweepReport(const SweepInput& input) {
  SweepReport report;
  report.command = input.command;
  report.keys = input.keys;
  for (const auto& in : input.points) {
    SweepPoint p;
    p.in = in;
    if (in.set != nullptr) OwnQuantities(*in.set, p);
    report.points.push_back(std::move(p));
  }
  CompareReport compare;
  CompareWithBase(input, report, compare);
  ScalingEfficiency(report);
  ListQuantities(report);
  ParetoFront(input, report);
  BottleneckChanges(report);
  return report;
}

}  // namespace llmpo::report
