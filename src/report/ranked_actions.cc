#include "src/report/ranked_actions.h"

#include <fmt/format.h>

#include <algorithm>

#include "src/report/kernels_report.h"

namespace llmpo::report {
namespace {

// The family every timing input has (rank files: each rank's); kNcu when
// they differ, so a mix is never taken for a timeline.
model::SourceFamily FamilyOf(const KernelsReport& r, const TimingChoice& timing) {
  std::optional<model::SourceFamily> family;
  for (const auto& s : r.sources) {
    if (!timing.Uses(s.path)) continue;
    if (family && *family != s.family) return model::SourceFamily::kNcu;
    family = s.family;
  }
  return family.value_or(model::SourceFamily::kNcu);
}

// The measured time the savings are shares of: the timing inputs' device
// spans when they are timelines, else their GPU kernel time.
void ChooseBase(const KernelsReport& r, RankedActions& out) {
  out.times_from = r.times_from;
  if (r.times_from.empty()) return;
  const TimingChoice timing = TimingChoice::Of(r);
  const model::SourceFamily family = FamilyOf(r, timing);
  if (family == model::SourceFamily::kTimeline) {
    double span = 0;
    for (const auto& d : r.gpu_busy) {
      if (timing.Uses(d.source) && d.span_ns > 0) span += d.span_ns, ++out.devices;
    }
    if (span > 0) {
      out.base = RankBase::kDeviceSpan, out.base_ns = span;
      return;
    }
  }
  double kernel_ns = 0;
  for (const auto& k : r.kernels) {
    if (timing.Times(k.source, k.process.rank) && k.timed_calls > 0) kernel_ns += k.total_ns;
  }
  if (kernel_ns <= 0) return;
  out.base_ns = kernel_ns;
  out.base = family == model::SourceFamily::kNcu ? RankBase::kNcuKernelTime : RankBase::kGpuKernelTime;
}

std::optional<double> ShareOf(const RankedActions& r, std::optional<double> ns) {
  if (!ns || !r.base_ns || *r.base_ns <= 0) return std::nullopt;
  return 100 * *ns / *r.base_ns;
}

RankedAction FromKernel(const Action& a, const RankedActions& r) {
  RankedAction item;
  item.kind = "kernel", item.what = a.kernel, item.where = a.category, item.basis = a.basis, item.rule = a.rule;
  if (a.time_ns) item.saving_ns = *a.time_ns * a.speedup_pct / 100;
  item.saving_pct = ShareOf(r, item.saving_ns);
  item.message = a.message;
  item.evidence =
      fmt::format("{:.1f} % of GPU kernel time x {:.3g} % ({}); {}", a.share_pct, a.speedup_pct, a.basis, a.evidence);
  return item;
}

RankedAction FromTimeline(const analysis::TimelineFinding& f, const RankedActions& r) {
  RankedAction item;
  item.kind = "timeline", item.what = f.rule, item.where = f.scope, item.basis = "timeline rule";
  item.saving_ns = f.saving_ns;
  // Host time (a blocking call, module loading) is comparable with a device
  // span, not with GPU kernel time: without a span it is not ranked.
  if (r.base == RankBase::kDeviceSpan) item.saving_pct = ShareOf(r, f.saving_ns);
  item.message = f.message;
  item.evidence = f.evidence;
  return item;
}

bool Before(const RankedAction& a, const RankedAction& b) {
  if (a.saving_pct.has_value() != b.saving_pct.has_value()) return a.saving_pct.has_value();
  if (a.saving_pct && *a.saving_pct != *b.saving_pct) return *a.saving_pct > *b.saving_pct;
  return a.saving_ns.value_or(0) > b.saving_ns.value_or(0);
}

void AddNotes(const KernelsReport& r, RankedActions& out) {
  if (out.base == RankBase::kNcuKernelTime && !out.items.empty()) {
    out.notes.push_back(
        "The times come from an ncu capture only: ncu serialises kernels and fixes the clocks (base clocks by "
        "default), so its durations are not the application's time shares; import a timeline of the same run (nsys, "
        "a PyTorch trace) with it to rank by the application's time");
  }
  const bool unranked = std::any_of(out.items.begin(), out.items.end(),
                                    [](const RankedAction& a) { return !a.saving_pct && a.saving_ns; });
  if (unranked) {
    out.notes.push_back(
        "Host-side findings are listed after the ranked ones, unranked: without a timeline span their time is not "
        "comparable with GPU kernel time");
  }
  if (r.actions.empty())
    out.why_no_kernel_actions = r.why_no_actions.empty() ? "no kernels in these inputs" : r.why_no_actions;
  for (const auto& why : r.timeline_rules.not_evaluated) out.notes.push_back("Not evaluated: " + why);
}

}  // namespace

std::string_view ToString(RankBase base) {
  switch (base) {
    case RankBase::kDeviceSpan:
      return "device_span";
    case RankBase::kGpuKernelTime:
      return "gpu_kernel_time";
    case RankBase::kNcuKernelTime:
      return "ncu_kernel_time";
    case RankBase::kNone:
      break;
  }
  return "none";
}

std::string BaseText(const RankedActions& r) {
  switch (r.base) {
    case RankBase::kDeviceSpan:
      return fmt::format("the GPU time span of `{}` (first to last GPU activity per device, {} device(s) summed)",
                         r.times_from, r.devices);
    case RankBase::kGpuKernelTime:
      return fmt::format("the GPU kernel time of `{}` (no device time span known)", r.times_from);
    case RankBase::kNcuKernelTime:
      return fmt::format("the kernel durations ncu measured in `{}`", r.times_from);
    case RankBase::kNone:
      break;
  }
  return "no measured time";
}

RankedActions RankTogether(const KernelsReport& report) {
  RankedActions out;
  ChooseBase(report, out);
  for (const auto& a : report.actions) out.items.push_back(FromKernel(a, out));
  for (const auto& f : report.timeline_rules.findings) out.items.push_back(FromTimeline(f, out));
  std::stable_sort(out.items.begin(), out.items.end(), Before);
  AddNotes(report, out);
  return out;
}

}  // namespace llmpo::report
