#include "src/analysis/gpu_timeline.h"

#include <algorithm>

namespace llmpo::analysis {

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
  ++(launch.kind == model::LaunchKind::kKernel ? t.kernels : t.copies);
}

std::vector<DeviceBusy> GpuTimeline::Busy() const {
  std::vector<DeviceBusy> out;
  for (const auto& [key, t] : tracks_) {
    DeviceBusy d{key.first, key.second, t.kernels, t.copies};
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
