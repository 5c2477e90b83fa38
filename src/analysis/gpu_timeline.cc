#include "src/analysis/gpu_timeline.h"

#include <algorithm>

namespace llmpo::analysis {

void GpuTimeline::Add(Track& t, std::int64_t start, std::int64_t end) {
  const bool first = t.kernels + t.copies == 0;
  t.first = first ? start : std::min(t.first, start);
  t.last = first ? end : std::max(t.last, end);
  if (t.folded && start < t.frontier) {
    t.out_of_order = true;
    return;
  }
  // Operations mostly come in time order: one that starts inside or after
  // the last segment extends it or follows it, touching no other.
  if (!t.segments.empty()) {
    auto& last = t.segments.back();
    if (last.first <= start && start <= last.second) {
      last.second = std::max(last.second, end);
      return;
    }
  }
  // Merge with every segment it touches: from the last one starting at or
  // before `start` (if it reaches it) to the last one starting by `end`.
  auto& seg = t.segments;
  auto it =
      std::upper_bound(seg.begin(), seg.end(), start,
                       [](std::int64_t s, const std::pair<std::int64_t, std::int64_t>& x) { return s < x.first; });
  if (it != seg.begin() && std::prev(it)->second >= start) --it;
  auto stop = it;
  while (stop != seg.end() && stop->first <= end) {
    start = std::min(start, stop->first);
    end = std::max(end, stop->second);
    ++stop;
  }
  if (it == stop) {
    seg.insert(it, {start, end});  // at the end in time order: O(1)
  } else {
    *it = {start, end};
    seg.erase(std::next(it), stop);
  }
  while (seg.size() > kMaxSegments) {
    const auto& oldest = seg.front();
    t.folded_ns += static_cast<double>(oldest.second - oldest.first);
    t.frontier = std::max(t.frontier, oldest.second);
    t.folded = true;
    seg.pop_front();
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
  Add(t, *launch.start_ns, *launch.end_ns);
  ++(launch.kind == model::LaunchKind::kKernel ? t.kernels : t.copies);
}

std::vector<DeviceBusy> GpuTimeline::Busy() const {
  std::vector<DeviceBusy> out;
  for (const auto& [key, t] : tracks_) {
    DeviceBusy d{key.first, key.second, t.kernels, t.copies};
    d.span_ns = static_cast<double>(t.last - t.first);
    if (t.out_of_order) {
      d.missing = "operations arrived too far out of time order to keep the union in bounded memory";
      out.push_back(std::move(d));
      continue;
    }
    double busy = t.folded_ns;
    for (const auto& [start, end] : t.segments) busy += static_cast<double>(end - start);
    d.busy_ns = busy;
    d.idle_ns = d.span_ns - busy;
    if (d.span_ns > 0) d.idle_pct = 100.0 * *d.idle_ns / d.span_ns;
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace llmpo::analysis
