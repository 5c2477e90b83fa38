#include "src/analysis/gpu_timeline.h"

#include <algorithm>

namespace llmpo::analysis {
namespace {
constexpr std::size_t kMaxCpuRanges = 200'000;
}  // namespace

void GpuTimeline::AddCpuRange(const std::string& name, std::int64_t start, std::int64_t end) {
  if (end - start < model::kCpuOpMinNs) return;
  auto& ranges = cpu_ranges_[source_];
  if (ranges.size() >= kMaxCpuRanges) return;
  // Past half the cap, room for the cap exactly rather than twice the size.
  if (ranges.size() == ranges.capacity() && 2 * ranges.size() >= kMaxCpuRanges) ranges.reserve(kMaxCpuRanges);
  ranges.push_back({name, start, end});
}

void GpuTimeline::OnCpuOp(const model::CpuOp& op) { AddCpuRange(op.name, op.start_ns, op.end_ns); }

void GpuTimeline::OnNvtxRange(const model::NvtxRange& range) {
  if (range.start_ns && range.end_ns && !range.end_unknown) AddCpuRange(range.name, *range.start_ns, *range.end_ns);
}

// The CPU range through which the device stayed idle longest in one
// stretch, if that stretch covers kStarvedMinPct % of it (ties: the shorter).
void GpuTimeline::MatchCpuRanges(const std::vector<CpuRange>& ranges, const DeviceWaits& waits,
                                 TimelineFacts& facts) const {
  facts.cpu_ranges = ranges.size();
  const auto& gaps = waits.long_gaps();
  for (const CpuRange& r : ranges) {
    auto g = std::lower_bound(gaps.begin(), gaps.end(), r.start,
                              [](const auto& gap, std::int64_t at) { return gap.second <= at; });
    std::int64_t longest = 0;
    for (; g != gaps.end() && g->first < r.end; ++g) {
      longest = std::max(longest, std::min(g->second, r.end) - std::max(g->first, r.start));
    }
    const double length = static_cast<double>(r.end - r.start), idle = static_cast<double>(longest);
    if (100 * idle < kStarvedMinPct * length) continue;
    if (facts.starving_idle_ns && (idle < *facts.starving_idle_ns ||
                                   (idle == *facts.starving_idle_ns && length >= *facts.starving_op_ns)))
      continue;
    facts.starving_op = r.name, facts.starving_op_ns = length, facts.starving_idle_ns = idle;
  }
}

void GpuTimeline::OnLaunch(const model::LaunchRecord& launch) {
  if (launch.kind == model::LaunchKind::kRange || !launch.start_ns || !launch.end_ns) return;
  if (*launch.end_ns < *launch.start_ns) return;  // importers drop these; never counted
  // The track of the launch before, unless the device changed (no key built per launch).
  if (last_track_ == nullptr || launch.device != last_device_) {
    last_track_ = &tracks_[{source_, launch.device}];
    last_device_ = launch.device;
  }
  Track& t = *last_track_;
  const std::int64_t start = *launch.start_ns, end = *launch.end_ns;
  const bool first = t.kernels + t.copies == 0;
  t.first = first ? start : std::min(t.first, start);
  t.last = first ? end : std::max(t.last, end);
  t.busy.Add(start, end);
  t.waits.Add(launch);
  ++(launch.kind == model::LaunchKind::kKernel ? t.kernels : t.copies);
}

std::vector<DeviceBusy> GpuTimeline::Busy() const {
  std::vector<DeviceBusy> out;
  for (const auto& [key, t] : tracks_) {
    DeviceBusy d{key.first, key.second, t.kernels, t.copies};
    d.facts = t.waits.Finish();
    if (const auto r = cpu_ranges_.find(key.first); r != cpu_ranges_.end()) MatchCpuRanges(r->second, t.waits, d.facts);
    d.span_ns = static_cast<double>(t.last - t.first);
    d.busy_ns = t.busy.TotalNs();
    if (!d.busy_ns) {
      d.missing = "operations arrived too far out of time order to keep the union in bounded memory";
      out.push_back(std::move(d));
      continue;
    }
    d.idle_ns = d.span_ns - *d.busy_ns;
    if (d.span_ns > 0) d.idle_pct = 100.0 * *d.idle_ns / d.span_ns;
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace llmpo::analysis
