#include "src/report/compare_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "src/model/counter_suffix.h"
#include "src/report/run_model.h"

namespace llmpo::report {
namespace {

// One side's kernels by name, from its timing input (no kernel counted twice).
struct SideKernels {
  std::string times_from;
  std::map<std::string, analysis::KernelAggregate> by_name;
  double total_ns = 0;
  std::uint64_t launches = 0;
  std::optional<double> total_var;  // variance of total_ns; null: no kernel launched twice with a known spread
};

// The variance of the sum of the kernels' GPU time: null when no kernel was
// launched twice (no noise data) or one launched more often has no spread.
std::optional<double> SumVariance(const std::map<std::string, analysis::KernelAggregate>& kernels) {
  std::optional<double> var;
  for (const auto& [name, k] : kernels) {
    if (k.timed_calls < 2) continue;
    const auto v = analysis::TotalVariance(k.timed_calls, k.sum_sq_dev_ns2);
    if (!v) return std::nullopt;
    var = var.value_or(0) + *v;
  }
  return var;
}

SideKernels KernelsOf(const ReportSet& set) {
  SideKernels side;
  for (auto& k : ByName(TimesFromEachRank(set.kernels, &side.times_from))) {
    side.total_ns += k.total_ns;
    side.launches += k.calls;
    side.by_name.emplace(k.name, std::move(k));
  }
  side.total_var = SumVariance(side.by_name);
  return side;
}

analysis::Samples SamplesOf(const analysis::KernelAggregate& k) {
  return {k.timed_calls, k.MeanNs(), k.sum_sq_dev_ns2};
}

std::optional<double> Timed(const analysis::KernelAggregate* k) {
  if (k == nullptr || k->timed_calls == 0) return std::nullopt;
  return k->total_ns;
}

KernelDelta DeltaOf(const std::string& name, const analysis::KernelAggregate* base,
                    const analysis::KernelAggregate* next, const InsightsByName& base_insight,
                    const InsightsByName& new_insight, const CompareOptions& options) {
  KernelDelta d;
  d.name = name;
  d.match = base && next ? "name" : (next ? "new" : "gone");
  d.category = next ? new_insight.Category(name) : base_insight.Category(name);
  d.base_ns = Timed(base);
  d.new_ns = Timed(next);
  d.delta_ns = d.new_ns.value_or(0) - d.base_ns.value_or(0);
  if (base) {
    d.base_calls = base->calls;
    if (base->timed_calls) d.base_mean_ns = base->MeanNs();
    d.base_bound = base_insight.Bound(name);
    d.base_sm_pct = base->FirstValue(analysis::kSmThroughputPct);
    d.base_dram_pct = base->FirstValue(analysis::kDramThroughputPct);
    d.base_occupancy_pct = base->FirstValue(analysis::kAchievedOccupancyPct);
  }
  if (next) {
    d.new_calls = next->calls;
    if (next->timed_calls) d.new_mean_ns = next->MeanNs();
    d.new_bound = new_insight.Bound(name);
    d.new_sm_pct = next->FirstValue(analysis::kSmThroughputPct);
    d.new_dram_pct = next->FirstValue(analysis::kDramThroughputPct);
    d.new_occupancy_pct = next->FirstValue(analysis::kAchievedOccupancyPct);
  }
  if (d.base_mean_ns && d.new_mean_ns) {
    d.mean_test = analysis::TestChange(SamplesOf(*base), SamplesOf(*next), options.significance);
  }
  return d;
}

// The top `top` changes by size, then new, gone and the rest as one row
// each, so the rows add up to the sum of every delta.
std::vector<AttributionRow> Attribute(const std::vector<KernelDelta>& kernels, std::size_t top) {
  std::vector<AttributionRow> rows;
  AttributionRow fresh{"", 0}, gone{"", 0}, other{"", 0};
  std::size_t n_fresh = 0, n_gone = 0, n_other = 0;
  for (const auto& k : kernels) {  // largest |delta| first
    if (k.delta_ns == 0) continue;
    if (k.match == "name" && rows.size() < top) {
      rows.push_back({k.name, k.delta_ns});
    } else if (k.match == "new") {
      fresh.delta_ns += k.delta_ns, ++n_fresh;
    } else if (k.match == "gone") {
      gone.delta_ns += k.delta_ns, ++n_gone;
    } else {
      other.delta_ns += k.delta_ns, ++n_other;
    }
  }
  if (n_fresh) rows.push_back({fmt::format("{} new kernel(s)", n_fresh), fresh.delta_ns});
  if (n_gone) rows.push_back({fmt::format("{} gone kernel(s)", n_gone), gone.delta_ns});
  if (n_other) rows.push_back({fmt::format("{} other kernel(s)", n_other), other.delta_ns});
  return rows;
}

void SortByChange(std::vector<KernelDelta>& kernels) {
  std::stable_sort(kernels.begin(), kernels.end(), [](const KernelDelta& a, const KernelDelta& b) {
    if (std::fabs(a.delta_ns) != std::fabs(b.delta_ns)) return std::fabs(a.delta_ns) > std::fabs(b.delta_ns);
    return a.name < b.name;
  });
}

std::vector<KernelDelta> KernelDeltas(const SideKernels& base, const SideKernels& next, const ReportSet& base_set,
                                      const ReportSet& new_set, const CompareOptions& options) {
  const InsightsByName base_insight(base_set.kernels), new_insight(new_set.kernels);
  std::vector<KernelDelta> out;
  for (const auto& [name, k] : base.by_name) {
    const auto it = next.by_name.find(name);
    out.push_back(
        DeltaOf(name, &k, it == next.by_name.end() ? nullptr : &it->second, base_insight, new_insight, options));
  }
  for (const auto& [name, k] : next.by_name) {
    if (!base.by_name.count(name)) out.push_back(DeltaOf(name, nullptr, &k, base_insight, new_insight, options));
  }
  SortByChange(out);
  return out;
}

}  // namespace

std::string ComparePath(const std::vector<std::string>& labels, bool* numbered) {
  std::string out;
  for (const auto& label : labels) {
    if (!out.empty()) out += " / ";
    const auto number = model::FindTrailingNumber(label);
    if (number && number->pos > 0 && label[number->pos - 1] == '#') {
      out += label.substr(0, number->pos) + "N";
      if (numbered) *numbered = true;
    } else {
      out += label;
    }
  }
  return out;
}

namespace {

// One side's regions by compare path (the aggregate's, when there is one).
struct SideRegion {
  std::uint64_t regions = 0;
  bool numbered = false;
  std::optional<double> kernel_ns, copy_ns, projected_ns, cpu_ns;
  std::optional<std::uint64_t> launches;
  std::map<std::string, analysis::KernelAggregate> kernels;  // by name, merged over the regions
};

void AddKnown(std::optional<double>& sum, std::optional<double> v) {
  if (v) sum = sum.value_or(0) + *v;
}

std::map<std::string, SideRegion> RegionsOf(const ReportSet& set) {
  std::map<std::string, SideRegion> out;
  if (!set.regions || !set.regions->aggregate) return out;
  for (const auto& entry : *set.regions->aggregate) {
    const analysis::Region& r = *entry.region;
    bool numbered = false;
    SideRegion& s = out[ComparePath(r.path, &numbered)];
    ++s.regions;
    s.numbered = s.numbered || numbered;
    AddKnown(s.kernel_ns, r.total_ns);
    AddKnown(s.copy_ns, r.gpu_ops_ns);
    AddKnown(s.projected_ns, r.projected_ns);
    AddKnown(s.cpu_ns, r.cpu_ns);
    if (const auto n = r.KnownLaunches()) s.launches = s.launches.value_or(0) + *n;
    for (const auto& [name, k] : r.kernels) analysis::MergeKernel(s.kernels[name], k);
  }
  return out;
}

std::optional<double> RegionVariance(const SideRegion& r) { return SumVariance(r.kernels); }

std::vector<AttributionRow> RegionContributors(const SideRegion* base, const SideRegion* next) {
  std::map<std::string, double> delta;
  if (base) {
    for (const auto& [name, k] : base->kernels) delta[name] -= k.total_ns;
  }
  if (next) {
    for (const auto& [name, k] : next->kernels) delta[name] += k.total_ns;
  }
  std::vector<AttributionRow> rows;
  for (const auto& [name, d] : delta) {
    if (d != 0) rows.push_back({name, d});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const AttributionRow& a, const AttributionRow& b) {
    return std::fabs(a.delta_ns) > std::fabs(b.delta_ns);
  });
  if (rows.size() > 3) rows.resize(3);
  return rows;
}

RegionDelta RegionDeltaOf(const std::string& path, const SideRegion* base, const SideRegion* next,
                          const CompareOptions& options) {
  RegionDelta d;
  d.path = path;
  const bool numbered = (base && base->numbered) || (next && next->numbered);
  d.match = base && next ? (numbered ? "path (numbered instances as one)" : "path") : (next ? "new" : "gone");
  if (base) {
    d.base_regions = base->regions, d.base_ns = base->kernel_ns, d.base_copy_ns = base->copy_ns;
    d.base_projected_ns = base->projected_ns, d.base_cpu_ns = base->cpu_ns, d.base_launches = base->launches;
  }
  if (next) {
    d.new_regions = next->regions, d.new_ns = next->kernel_ns, d.new_copy_ns = next->copy_ns;
    d.new_projected_ns = next->projected_ns, d.new_cpu_ns = next->cpu_ns, d.new_launches = next->launches;
  }
  // An absent side has no time there; a present side that cannot tell leaves the change unknown.
  const std::optional<double> b = base ? base->kernel_ns : std::optional(0.0);
  const std::optional<double> n = next ? next->kernel_ns : std::optional(0.0);
  if (b && n) {
    d.delta_ns = *n - *b;
    if (base && next) {
      d.test = analysis::TestTotal(*b, RegionVariance(*base), *n, RegionVariance(*next), options.significance);
    }
  }
  d.contributors = RegionContributors(base, next);
  return d;
}

std::vector<RegionDelta> RegionDeltas(const ReportSet& base_set, const ReportSet& new_set,
                                      const CompareOptions& options) {
  const auto base = RegionsOf(base_set), next = RegionsOf(new_set);
  std::vector<RegionDelta> out;
  for (const auto& [path, r] : base) {
    const auto it = next.find(path);
    out.push_back(RegionDeltaOf(path, &r, it == next.end() ? nullptr : &it->second, options));
  }
  for (const auto& [path, r] : next) {
    if (!base.count(path)) out.push_back(RegionDeltaOf(path, nullptr, &r, options));
  }
  std::stable_sort(out.begin(), out.end(), [](const RegionDelta& a, const RegionDelta& b) {
    if (a.delta_ns.has_value() != b.delta_ns.has_value()) return a.delta_ns.has_value();
    return a.delta_ns && std::fabs(*a.delta_ns) > std::fabs(*b.delta_ns);
  });
  return out;
}

// The one family of a side's timing inputs (rank files: each rank's);
// null when it has none, or inputs of two families.
std::optional<model::SourceFamily> TimingFamily(const ReportSet& set, std::string* format) {
  const TimingChoice timing = TimingChoice::Of(set.kernels);
  std::optional<model::SourceFamily> family;
  for (const auto& s : set.kernels.sources) {
    if (!timing.Uses(s.path)) continue;
    if (family && *family != s.family) return std::nullopt;
    family = s.family;
    *format = s.format;
  }
  return family;
}

std::set<std::string> GpuNames(const ReportSet& set) {
  std::set<std::string> names;
  for (const auto& s : set.kernels.sources) {
    for (const auto& d : s.devices) names.insert(d.name);
  }
  if (!set.run.run.gpu.empty()) names.insert(set.run.run.gpu);
  return names;
}

void Guardrails(Comparison& c, const ReportSet& base, const ReportSet& next) {
  std::string base_format, new_format;
  const auto b = TimingFamily(base, &base_format);
  const auto n = TimingFamily(next, &new_format);
  if (b && n && *b != *n) {
    c.guardrails.push_back(fmt::format(
        "the kernel times come from different kinds of input ({} on the base side, {} on the new side): ncu "
        "serialises kernels and fixes clocks, so its durations are not a timeline's",
        base_format, new_format));
  }
  const auto gb = GpuNames(base), gn = GpuNames(next);
  if (!gb.empty() && !gn.empty() && gb != gn) {
    c.guardrails.push_back(fmt::format("different GPUs: {} against {}", fmt::join(gb, ", "), fmt::join(gn, ", ")));
  }
  const auto& wb = base.run.run.workload;
  const auto& wn = next.run.run.workload;
  if (!wb.empty() && !wn.empty() && wb != wn) {
    c.guardrails.push_back(
        fmt::format("different commands: `{}` against `{}`", fmt::join(wb, " "), fmt::join(wn, " ")));
  }
}

// ncu's metrics (SM and DRAM throughput, occupancy) compare only where both
// sides have them: said when the matched kernels have them on one side only.
void NcuMetricsNote(Comparison& c) {
  std::size_t base_only = 0, new_only = 0;
  for (const auto& k : c.kernels) {
    if (k.match != "name") continue;
    const bool b = k.base_sm_pct || k.base_dram_pct || k.base_occupancy_pct;
    const bool n = k.new_sm_pct || k.new_dram_pct || k.new_occupancy_pct;
    base_only += b && !n ? 1 : 0;
    new_only += n && !b ? 1 : 0;
  }
  if (base_only + new_only == 0) return;
  c.notes.push_back(fmt::format(
      "ncu's metrics (SM and DRAM throughput, occupancy) cannot be compared for {} matched kernel(s): the {} side "
      "has them and the other does not (profile both sides with ncu, or import each side's ncu page with its "
      "timeline)",
      base_only + new_only, base_only >= new_only ? "base" : "new"));
}

void Notes(Comparison& c, const ReportSet& base, const ReportSet& next) {
  const bool base_regions = base.regions && base.regions->aggregate;
  const bool new_regions = next.regions && next.regions->aggregate;
  if (base_regions != new_regions) {
    c.notes.push_back(fmt::format("regions are compared only where both sides have NVTX regions; the {} side has none",
                                  base_regions ? "new" : "base"));
  }
  if (c.base_times_from.empty() || c.new_times_from.empty()) {
    c.notes.push_back(fmt::format("the {} side has no kernel times", c.base_times_from.empty() ? "base" : "new"));
  }
  c.notes.push_back(
      "the kernel table matches kernels by name over processes and devices (a kernel whose name changed shows as one "
      "gone and one new); launch order is aligned per region and scope under \"Launch order\"");
  NcuMetricsNote(c);
}

Comparison Compare(const CompareSide& base, const CompareSide& next, const CompareOptions& options) {
  Comparison c;
  c.base_label = base.label;
  c.new_label = next.label;
  const SideKernels bk = KernelsOf(*base.set), nk = KernelsOf(*next.set);
  c.base_times_from = bk.times_from;
  c.new_times_from = nk.times_from;
  c.base_kernel_ns = bk.total_ns;
  c.new_kernel_ns = nk.total_ns;
  c.base_launches = bk.launches;
  c.new_launches = nk.launches;
  c.delta_ns = nk.total_ns - bk.total_ns;
  c.total_test = analysis::TestTotal(bk.total_ns, bk.total_var, nk.total_ns, nk.total_var, options.significance);
  c.kernels = KernelDeltas(bk, nk, *base.set, *next.set, options);
  c.attribution = Attribute(c.kernels, options.top);
  c.regions = RegionDeltas(*base.set, *next.set, options);
  Guardrails(c, *base.set, *next.set);
  Notes(c, *base.set, *next.set);
  c.scopes = ScopeDeltas(*base.set, *next.set, options);
  c.sequences = SequenceDeltas(*base.set, *next.set, options, c.notes);
  return c;
}

}  // namespace

CompareReport BuildCompareReport(const std::vector<CompareSide>& sides, const CompareOptions& options) {
  CompareReport report;
  report.options = options;
  for (const auto& s : sides) report.sides.push_back(s.label);
  for (std::size_t i = 1; i < sides.size(); ++i) report.comparisons.push_back(Compare(sides[0], sides[i], options));
  return report;
}

std::vector<std::string> SlowerThan(const CompareReport& report, double pct) {
  std::vector<std::string> out;
  auto beyond = [&](const analysis::ChangeTest& t) {
    return t.verdict == analysis::Verdict::kSlower && t.change_pct && *t.change_pct >= pct;
  };
  for (const auto& c : report.comparisons) {
    const std::string side = c.new_label;
    if (beyond(c.total_test)) {
      out.push_back(fmt::format("{}: total GPU kernel time {:+.1f} %", side, *c.total_test.change_pct));
    }
    for (const auto& r : c.regions) {
      if (r.test && beyond(*r.test))
        out.push_back(fmt::format("{}: region {} {:+.1f} %", side, r.path, *r.test->change_pct));
    }
    for (const auto& k : c.kernels) {
      if (k.mean_test && beyond(*k.mean_test)) {
        out.push_back(fmt::format("{}: kernel {} mean {:+.1f} %", side, k.name, *k.mean_test->change_pct));
      }
    }
  }
  return out;
}

}  // namespace llmpo::report
