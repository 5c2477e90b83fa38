#include "src/analysis/gpu_timeline.h"

#include <algorithm>

namespace llmpo::analysis {

void GpuTimeline::OnLaunch(const model::LaunchRecord& launch) {
  if (launch.kind == model::LaunchKind::kRange || !launch.start_ns || !launch.end_ns) return;
  if (*launch.end_ns < *launch.start_ns) return;  // importers drop these; never counted
  Track& t = tracks_[{source_, launch.device}];
  t.intervals.emplace_back(*launch.start_ns, *launch.end_ns);
  ++(launch.kind == model::LaunchKind::kKernel ? t.kernels : t.copies);
}

std::vector<DeviceBusy> GpuTimeline::Busy() const {
  std::vector<DeviceBusy> out;
  for (const auto& [key, track] : tracks_) {
    auto intervals = track.intervals;
    std::sort(intervals.begin(), intervals.end());
    DeviceBusy d{key.first, key.second, track.kernels, track.copies};
    std::int64_t first = intervals.front().first, last = intervals.front().second;
    std::int64_t open_start = first, open_end = last;
    double busy = 0;
    for (const auto& [start, end] : intervals) {
      last = std::max(last, end);
      if (start > open_end) {
        busy += static_cast<double>(open_end - open_start);
        open_start = start;
        open_end = end;
      } else {
        open_end = std::max(open_end, end);
      }
    }
    busy += static_cast<double>(open_end - open_start);
    d.span_ns = static_cast<double>(last - first);
    d.busy_ns = busy;
    d.idle_ns = d.span_ns - busy;
    if (d.span_ns > 0) d.idle_pct = 100.0 * d.idle_ns / d.span_ns;
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace llmpo::analysis
