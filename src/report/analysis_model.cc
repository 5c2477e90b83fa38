#include "src/report/analysis_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>

#include "src/report/kernels_report.h"

namespace llmpo::report {
namespace {

// What the bound class says to do when ncu gave no estimate.
std::string AdviceFor(const analysis::Bound& b) {
  switch (b.cls) {
    case analysis::BoundClass::kSmallGrid:
      return "The grid does not fill the GPU: launch more blocks (split-K, smaller tiles, batch more work per launch) "
             "or fuse it with neighbouring kernels.";
    case analysis::BoundClass::kLatency:
      return "Neither compute nor memory is busy: latency limits it; look at warp stall reasons and occupancy "
             "(registers, shared memory, block size).";
    case analysis::BoundClass::kMemory:
      return fmt::format(
          "Memory-bound on {}: move fewer bytes (fusion, lower precision, better reuse in "
          "shared memory/L2, coalesced access).",
          b.unit.empty() ? "memory" : b.unit);
    case analysis::BoundClass::kCompute:
      return "Compute-bound: use tensor cores or a cheaper instruction mix; check the busiest pipe.";
    case analysis::BoundClass::kHighThroughput:
      return "A unit is near its peak: only less work (algorithm, precision) makes it faster.";
    case analysis::BoundClass::kBalanced:
      return "Compute and memory are similarly busy: both must improve together.";
    case analysis::BoundClass::kUnknown:
      break;
  }
  return "";
}

std::string Pct(const std::optional<double>& v) { return v ? fmt::format("{:.3g} %", *v) : "n/a"; }

std::string Evidence(const KernelInsight& in) {
  std::string out = fmt::format("bound {} (SM {}, memory {}{})", analysis::ToString(in.bound.cls), Pct(in.bound.sm_pct),
                                Pct(in.bound.memory_pct), in.bound.unit.empty() ? "" : ", busiest " + in.bound.unit);
  for (const auto& p : in.roofline.precisions) {
    for (const auto& l : p.levels) {
      if (l.level == "DRAM" && l.pct_of_roof) {
        out += fmt::format("; {} at {:.3g} % of the {} roof (AI {:.3g} FLOP/B, ridge {})", p.precision, *l.pct_of_roof,
                           l.level, l.intensity.value_or(0), l.ridge ? fmt::format("{:.3g}", *l.ridge) : "n/a");
      }
    }
  }
  return out;
}

// Headroom: how much of the time could go if the busiest limit were reached:
// 1 - (best % of roof) from the roofline, else 1 - (busiest unit % of peak).
std::optional<std::pair<double, std::string>> Headroom(const KernelInsight& in) {
  std::optional<double> best_roof;
  for (const auto& p : in.roofline.precisions) {
    for (const auto& l : p.levels) {
      if (l.level == "DRAM" && l.pct_of_roof) best_roof = std::max(best_roof.value_or(0), *l.pct_of_roof);
    }
  }
  if (best_roof) return std::pair{std::max(0.0, 100.0 - *best_roof), std::string("roofline headroom")};
  if (in.bound.sm_pct && in.bound.memory_pct) {
    return std::pair{std::max(0.0, 100.0 - std::max(*in.bound.sm_pct, *in.bound.memory_pct)),
                     std::string("throughput headroom")};
  }
  return std::nullopt;
}

}  // namespace

std::vector<KernelRow> KernelRows(std::vector<analysis::KernelAggregate> kernels) {
  std::vector<KernelRow> rows;
  rows.reserve(kernels.size());
  for (auto& k : kernels) rows.push_back(KernelRow{std::move(k), std::nullopt});
  return rows;
}

KernelInsight InsightFor(const analysis::KernelAggregate& k, const analysis::KernelCategorizer& categorizer) {
  return KernelInsight{std::string(categorizer.Categorize(k.name)), analysis::ClassifyKernel(k),
                       analysis::ComputeRoofline(k)};
}

namespace {

// The rows of a kernel table by name (indexes into it, in order), built once.
using RowsByName = std::unordered_map<std::string_view, std::vector<std::size_t>>;

RowsByName IndexByName(const std::vector<KernelRow>& all) {
  RowsByName out;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].insight) out[all[i].name].push_back(i);
  }
  return out;
}

// How much a bound decision says: a class, else the throughputs it saw (an
// unknown class still carries SM and memory % and the reason), else nothing.
int BoundEvidence(const analysis::Bound& b) {
  if (b.cls != analysis::BoundClass::kUnknown) return 2;
  return b.sm_pct || b.memory_pct ? 1 : 0;
}

// Inputs see different things of one kernel (a details page the rules and
// SOL, a raw page the roofline counters): each part of the insight from the
// first kernel of that name that has it. Null when none has anything.
std::optional<KernelInsight> MergedInsight(const std::vector<std::size_t>& rows, const std::vector<KernelRow>& all,
                                           const analysis::KernelAggregate** with_findings) {
  KernelInsight merged;
  bool any = false;
  *with_findings = nullptr;
  for (const std::size_t i : rows) {
    const KernelInsight& in = *all[i].insight;
    if (merged.category.empty()) merged.category = in.category;
    if (*with_findings == nullptr && !all[i].findings.empty()) *with_findings = &all[i], any = true;
    if (BoundEvidence(in.bound) > BoundEvidence(merged.bound)) merged.bound = in.bound, any = true;
    if (merged.roofline.precisions.empty() && !in.roofline.precisions.empty()) {
      merged.roofline = in.roofline, any = true;
    }
  }
  if (!any) return std::nullopt;
  return merged;
}

// The action for one kernel: ncu's top global finding, else the headroom
// its bound class leaves; null when neither says anything.
std::optional<Action> ActionFor(const std::string& name, double ns, double total, const KernelInsight& insight,
                                const analysis::KernelAggregate* with_findings) {
  Action a;
  a.kernel = name;
  a.category = insight.category;
  a.share_pct = 100.0 * ns / total;
  a.time_ns = ns;
  a.evidence = Evidence(insight);
  const analysis::KernelFinding* f =
      with_findings != nullptr ? analysis::TopGlobalFinding(with_findings->findings) : nullptr;
  if (f != nullptr) {
    a.speedup_pct = *f->MeanSpeedupPct();
    a.basis = "ncu global estimate";
    a.rule = f->finding.rule;
    a.section = f->finding.section;
    a.message = f->finding.message;
  } else if (auto headroom = Headroom(insight)) {
    a.speedup_pct = headroom->first;
    a.basis = headroom->second;
    a.message = AdviceFor(insight.bound);
  } else {
    return std::nullopt;
  }
  a.saving_pct_of_gpu = a.share_pct * a.speedup_pct / 100.0;
  return a;
}

}  // namespace

// What the timeline rules read: the timing input's devices and kernels, and
// the run-wide API and launch-overhead summaries of every input.
static analysis::TimelineEvidence TimelineEvidenceOf(const KernelsReport& report, const TimingChoice& timing,
                                                     std::vector<analysis::KernelAggregate> timed) {
  analysis::TimelineEvidence e;
  e.times_from = timing.label();
  // A timeline when every timing input is one (rank files: each rank's).
  bool any = false, all_timelines = true;
  for (const auto& s : report.sources) {
    if (!timing.Uses(s.path)) continue;
    any = true;
    all_timelines = all_timelines && s.family == model::SourceFamily::kTimeline;
  }
  e.timeline = any && all_timelines;
  for (const auto& d : report.gpu_busy) {
    if (timing.Uses(d.source)) e.devices.push_back(d);
  }
  e.kernels = std::move(timed);
  for (const auto& a : report.runtime.api_calls) e.api_calls.push_back(a.row);
  for (const auto& o : report.runtime.launch_overhead) e.launch_overhead.push_back(o.row);
  return e;
}

std::vector<Action> RankActions(const std::vector<analysis::KernelAggregate>& timed,
                                const std::vector<KernelRow>& all) {
  std::map<std::string, double> time_by_name;
  double total = 0;
  for (const auto& k : timed) {
    if (k.timed_calls == 0) continue;
    time_by_name[k.name] += k.total_ns;
    total += k.total_ns;
  }
  std::vector<Action> actions;
  if (total <= 0) return actions;
  const RowsByName rows = IndexByName(all);
  for (const auto& [name, ns] : time_by_name) {
    const auto same_name = rows.find(name);
    if (same_name == rows.end()) continue;
    const analysis::KernelAggregate* with_findings = nullptr;
    const std::optional<KernelInsight> insight = MergedInsight(same_name->second, all, &with_findings);
    if (!insight) continue;
    if (auto a = ActionFor(name, ns, total, *insight, with_findings)) actions.push_back(std::move(*a));
  }
  std::stable_sort(actions.begin(), actions.end(), [](const Action& x, const Action& y) {
    return x.saving_pct_of_gpu != y.saving_pct_of_gpu ? x.saving_pct_of_gpu > y.saving_pct_of_gpu : x.kernel < y.kernel;
  });
  if (actions.size() > kMaxActions) actions.resize(kMaxActions);
  return actions;
}

KernelsReport KernelsReportHead(const KernelsReport& report) {
  KernelsReport head;
  head.sources = report.sources;
  head.runtime.api_calls = report.runtime.api_calls;
  head.runtime.gpu_ops = report.runtime.gpu_ops;
  head.runtime.repeated_rows = report.runtime.repeated_rows;
  head.runtime.repeated_launch_paths = report.runtime.repeated_launch_paths;
  head.times_from = report.times_from;
  head.actions = report.actions;
  head.why_no_actions = report.why_no_actions;
  head.timeline_rules = report.timeline_rules;
  head.ranked = report.ranked;
  head.source_notes = report.source_notes;
  head.gpu_busy = report.gpu_busy;
  head.region_kernels = report.region_kernels;
  head.diagnostics = report.diagnostics;
  return head;
}

std::string TimingSource(const KernelsReport& report) {
  std::set<std::string> with_kernels;
  for (const auto& k : report.kernels) with_kernels.insert(k.source);
  return TimingSourceAmong(report.sources, with_kernels,
                           report.kernels.empty() ? std::string() : report.kernels.front().source);
}

std::string TimingSourceAmong(const std::vector<SourceInfo>& sources, const std::set<std::string>& with_kernels,
                              const std::string& fallback) {
  // The last timeline; else, in input order, the first input with kernels
  // that ncu did not serialise (an nsys summary); else the first ncu input.
  std::string timeline, summary, ncu;
  for (const auto& s : sources) {
    if (!s.ok() || !with_kernels.contains(s.path)) continue;
    if (s.family == model::SourceFamily::kTimeline) {
      timeline = s.path;
    } else if (s.family == model::SourceFamily::kNcu) {
      if (ncu.empty()) ncu = s.path;
    } else if (summary.empty()) {
      summary = s.path;
    }
  }
  if (!timeline.empty()) return timeline;
  if (!summary.empty()) return summary;
  if (!ncu.empty()) return ncu;
  return fallback;
}

TimingChoice TimingChoice::Of(const KernelsReport& report) {
  std::map<std::int64_t, std::set<std::string>> inputs_of_rank;
  std::map<std::int64_t, std::string> first_of_rank;
  for (const auto& k : report.kernels) {
    if (!k.process.rank) continue;
    inputs_of_rank[*k.process.rank].insert(k.source);
    first_of_rank.try_emplace(*k.process.rank, k.source);
  }
  TimingChoice c;
  for (const auto& [rank, inputs] : inputs_of_rank) {
    // One input: the rule can only give it (a failed input is its own
    // fallback), and asking it would read every source for every rank.
    c.by_rank_[rank] =
        inputs.size() == 1 ? *inputs.begin() : TimingSourceAmong(report.sources, inputs, first_of_rank[rank]);
    c.inputs_.insert(c.by_rank_[rank]);
  }
  if (c.inputs_.size() >= 2) {
    c.label_ = fmt::format("{} inputs of {} ranks", c.inputs_.size(), c.by_rank_.size());
    return c;
  }
  c.by_rank_.clear();
  c.inputs_.clear();
  c.label_ = TimingSource(report);
  if (!c.label_.empty()) c.inputs_.insert(c.label_);
  return c;
}

bool TimingChoice::Times(const std::string& source, const std::optional<std::int64_t>& rank) const {
  if (by_rank_.empty() || !rank) return inputs_.contains(source);
  const auto it = by_rank_.find(*rank);
  return it != by_rank_.end() && it->second == source;
}

// Why a run with kernels has no ranked actions: the ncu input's kernels are
// named differently from the timing input's, or no input has ncu's metrics.
std::string WhyNoActions(const KernelsReport& report, const TimingChoice& timing,
                         const std::vector<analysis::KernelAggregate>& timed) {
  std::set<std::string> ncu_names, timed_names;
  for (const auto& s : report.sources) {
    if (s.family != model::SourceFamily::kNcu || timing.Uses(s.path)) continue;
    for (const auto& k : report.kernels) {
      if (k.source == s.path) ncu_names.insert(k.name);
    }
  }
  for (const auto& k : timed) timed_names.insert(k.name);
  const bool any_match =
      std::any_of(ncu_names.begin(), ncu_names.end(), [&](const std::string& n) { return timed_names.contains(n); });
  if (!ncu_names.empty() && !any_match) {
    return fmt::format(
        "none of the {} kernel name(s) of the ncu input(s) is among the {} of `{}`, which the shares come from (the "
        "tools may name one kernel differently: nsys and PyTorch give the full demangled name, ncu its "
        "--kernel-name-base form, 'function' by default); profile with ncu --kernel-name-base demangled, or import "
        "the ncu page alone to rank its kernels by ncu's durations",
        ncu_names.size(), timed_names.size(), report.times_from);
  }
  return "no kernel has ncu findings with a global speedup or SpeedOfLight throughput metrics; profile the top "
         "kernels with ncu to rank them (the SpeedOfLight section, in every ncu set, gives the throughput headroom; "
         "`--set detailed` or `full` adds ncu's rule findings with estimated speedups)";
}

void AnalyzeKernels(KernelsReport& report, const analysis::KernelCategorizer& categorizer) {
  for (KernelRow& row : report.kernels) row.insight = InsightFor(row, categorizer);
  const TimingChoice timing = TimingChoice::Of(report);
  report.times_from = timing.label();
  std::vector<analysis::KernelAggregate> timed;
  for (const auto& k : report.kernels) {
    if (timing.Times(k.source, k.process.rank)) timed.push_back(k);
  }
  report.actions = RankActions(timed, report.kernels);
  if (report.actions.empty() && !report.kernels.empty()) report.why_no_actions = WhyNoActions(report, timing, timed);
  report.timeline_rules = analysis::EvaluateTimelineRules(TimelineEvidenceOf(report, timing, std::move(timed)));
  report.ranked = RankTogether(report);
}

}  // namespace llmpo::report
