#include "src/analysis/timeline_rules.h"

#include "src/analysis/timeline_device_rules.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string_view>

namespace llmpo::analysis {
namespace {

// rank_straggler: the busiest device's GPU time this % over the median's
// (docs/analysis.md; the other thresholds are in the header).
constexpr double kStragglerMinPct = 25;

double IdleNs(const std::vector<DeviceBusy>& devices) {
  double idle = 0;
  for (const auto& d : devices) idle += d.idle_ns.value_or(0);
  return idle;
}

double SpanNs(const std::vector<DeviceBusy>& devices) {
  double span = 0;
  for (const auto& d : devices) span += d.span_ns;
  return span;
}

TimelineFinding Finding(std::string rule, std::string scope, double saving, std::optional<double> span,
                        std::string message, std::string evidence) {
  std::optional<double> pct;
  if (span && *span > 0) pct = 100 * saving / *span;
  return {std::move(rule), std::move(scope), saving, span, pct, std::move(message), std::move(evidence)};
}

// gpu_idle: devices idle for kIdleMinPct % or more of their span; one
// finding for all of them (their idle time over their spans), each device's
// share in the evidence.
void GpuIdle(const TimelineEvidence& e, TimelineRulesResult& out) {
  std::vector<const DeviceBusy*> idle;
  for (const auto& d : e.devices) {
    if (d.idle_pct && *d.idle_pct >= kIdleMinPct) idle.push_back(&d);
  }
  if (idle.empty()) return;
  double idle_ns = 0, busy_ns = 0, span_ns = 0;
  std::vector<std::string> shares, names;
  for (const DeviceBusy* d : idle) {
    idle_ns += *d->idle_ns, busy_ns += *d->busy_ns, span_ns += d->span_ns;
    names.push_back(d->device);
    shares.push_back(fmt::format("{} {:.1f} %", d->device, *d->idle_pct));
  }
  std::string evidence =
      fmt::format("busy {:.3f} ms, idle {:.3f} ms of a {:.3f} ms span", busy_ns / 1e6, idle_ns / 1e6, span_ns / 1e6);
  if (idle.size() > 1)
    evidence += fmt::format(" (summed over the devices); idle per device: {}", fmt::join(shares, ", "));
  if (idle.size() == 1) evidence += fmt::format("; {} kernels, {} copies", idle[0]->kernels, idle[0]->copies);
  out.findings.push_back(Finding(
      "gpu_idle", fmt::format("{} {}", idle.size() > 1 ? "devices" : "device", fmt::join(names, ", ")), idle_ns,
      span_ns,
      "The GPU waits for the CPU for this share of its span: find what the host does in the gaps (kernel launches, "
      "synchronisation, data loading, Python); CUDA graphs, fewer synchronisations and host work overlapped with "
      "the GPU close them",
      std::move(evidence)));
}

// The mean time of the launch call (cudaLaunchKernel), over every launch
// overhead row that gives one; null without any.
std::optional<double> MeanLaunchCallNs(const std::vector<model::LaunchOverheadRow>& rows) {
  double total = 0;
  std::int64_t count = 0;
  for (const auto& r : rows) {
    if (!r.api_mean_ns || r.count <= 0) continue;
    total += *r.api_mean_ns * static_cast<double>(r.count);
    count += r.count;
  }
  if (count == 0) return std::nullopt;
  return total / static_cast<double>(count);
}

// launch_bound: most launches are short kernels while the GPU idles.
void LaunchBound(const TimelineEvidence& e, TimelineRulesResult& out) {
  std::uint64_t launches = 0, short_launches = 0;
  double short_ns = 0;
  for (const auto& k : e.kernels) {
    launches += k.timed_calls;
    if (k.timed_calls > 0 && k.MeanNs() < kShortKernelNs) short_launches += k.timed_calls, short_ns += k.total_ns;
  }
  const double idle = IdleNs(e.devices);
  if (launches < kLaunchBoundMinLaunches || idle <= 0) return;
  const double short_pct = 100.0 * static_cast<double>(short_launches) / static_cast<double>(launches);
  if (short_pct < kShortLaunchMinPct) return;
  const auto call_ns = MeanLaunchCallNs(e.launch_overhead);
  // Without the launch calls, the idle time is the bound: what a graph could at most recover.
  const double saving = call_ns ? std::min(idle, *call_ns * static_cast<double>(short_launches)) : idle;
  std::string evidence = fmt::format(
      "{} of {} launches ({:.1f} %) are of kernels averaging under {:.0f} us ({:.3f} ms of GPU time); GPU idle {:.3f} "
      "ms",
      short_launches, launches, short_pct, kShortKernelNs / 1e3, short_ns / 1e6, idle / 1e6);
  if (call_ns) evidence += fmt::format("; a launch call takes {:.2f} us on average", *call_ns / 1e3);
  out.findings.push_back(Finding(
      "launch_bound", "all devices", saving, SpanNs(e.devices),
      "Launch-bound: the GPU runs many short kernels and waits between them; capture the steady-state step in a "
      "CUDA graph (torch.compile mode=\"reduce-overhead\", the serving engine's CUDA graphs), fuse elementwise "
      "kernels, or give each launch more work (larger batch)",
      std::move(evidence)));
}

bool Synchronising(std::string_view api) {
  for (std::string_view prefix : {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
                                  "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize"}) {
    if (api.starts_with(prefix)) return true;
  }
  // Blocking copies and memsets: cudaMemcpy, cudaMemcpy2D... but not the Async forms.
  return (api.starts_with("cudaMemcpy") || api.starts_with("cudaMemset")) &&
         api.find("Async") == std::string_view::npos;
}

// sync_calls: the host blocked in synchronising CUDA calls (nsys cuda_api_sum).
void SyncCalls(const TimelineEvidence& e, TimelineRulesResult& out) {
  if (e.api_calls.empty()) {
    out.not_evaluated.push_back(
        "sync_calls: no CUDA API calls in these inputs (nsys' cuda_api_sum report, an nsys export that traced the "
        "CUDA API, or a PyTorch trace with cuda_runtime events)");
    return;
  }
  double sync_ns = 0;
  std::int64_t calls = 0;
  std::vector<std::string> names;
  for (const auto& a : e.api_calls) {
    if (!Synchronising(a.name) || !a.time.total_ns) continue;
    sync_ns += *a.time.total_ns;
    calls += a.calls;
    names.push_back(fmt::format("{} {} calls, {:.3f} ms", a.name, a.calls, *a.time.total_ns / 1e6));
  }
  const double span = SpanNs(e.devices);  // every device's: the calls are every rank's
  const bool share_known = span > 0;
  if (sync_ns <= 0 || (share_known && 100 * sync_ns / span < kSyncMinPct)) return;
  const double idle = IdleNs(e.devices);
  const double saving = idle > 0 ? std::min(sync_ns, idle) : sync_ns;
  out.findings.push_back(Finding(
      "sync_calls", "host", saving, share_known ? std::optional(span) : std::nullopt,
      "The host blocks in synchronising CUDA calls, each draining the GPU's queue: remove them from the loop "
      "(.item(), .cpu(), printing tensors, blocking cudaMemcpy), copy with cudaMemcpyAsync from pinned memory and "
      "wait on events only where the result is needed",
      fmt::format("{} synchronising call(s), {:.3f} ms: {}", calls, sync_ns / 1e6, fmt::join(names, "; "))));
}

bool LoadsModules(std::string_view api) {
  return api.starts_with("cuModuleLoad") || api.starts_with("cuLibraryLoad") || api.starts_with("cudaLibraryLoad");
}

// startup_cost: loading GPU code (cuModuleLoad*, cuLibraryLoad*) takes a
// large share of the CUDA API time: a one-off start-up cost inside the
// measured window, not steady state.
void StartupCost(const TimelineEvidence& e, TimelineRulesResult& out) {
  double all_ns = 0, load_ns = 0;
  std::int64_t calls = 0;
  for (const auto& a : e.api_calls) {
    if (!a.time.total_ns) continue;
    all_ns += *a.time.total_ns;
    if (LoadsModules(a.name)) load_ns += *a.time.total_ns, calls += a.calls;
  }
  if (all_ns <= 0 || 100 * load_ns / all_ns < kStartupMinPct) return;
  const double span = SpanNs(e.devices);
  out.findings.push_back(Finding(
      "startup_cost", "host", load_ns, span > 0 ? std::optional(span) : std::nullopt,
      "Loading GPU code is a one-off start-up cost inside the measured window, not steady state: measure after "
      "warm-up (nsys --delay or a capture range around steady-state steps, the profiler's schedule with warm-up "
      "steps), and load modules lazily (CUDA_MODULE_LOADING=LAZY) if start-up time matters",
      fmt::format("{} module-loading call(s), {:.3f} ms: {:.1f} % of all CUDA API time ({:.3f} ms)", calls,
                  load_ns / 1e6, 100 * load_ns / all_ns, all_ns / 1e6)));
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// rank_straggler: of several devices (ranks), the busiest has kStragglerMinPct %
// more GPU busy time than the median device; the others wait for it at every
// collective. Balanced, each device would be busy the mean: the bound is what
// every device's span could shrink by, (busiest - mean) x devices, at most
// their idle time.
void RankStraggler(const TimelineEvidence& e, TimelineRulesResult& out) {
  std::vector<const DeviceBusy*> devices;
  for (const auto& d : e.devices) {
    if (d.busy_ns) devices.push_back(&d);
  }
  if (devices.size() < 2) return;
  std::vector<double> busy;
  const DeviceBusy* top = devices.front();
  for (const DeviceBusy* d : devices) {
    busy.push_back(*d->busy_ns);
    if (*d->busy_ns > *top->busy_ns) top = d;
  }
  const double median = Median(busy);
  if (median <= 0 || 100 * (*top->busy_ns - median) / median < kStragglerMinPct) return;
  double mean = 0;
  for (double b : busy) mean += b / static_cast<double>(busy.size());
  const double n = static_cast<double>(devices.size());
  const double saving = std::min((*top->busy_ns - mean) * n, IdleNs(e.devices));
  std::vector<std::string> per_device;
  for (const DeviceBusy* d : devices) per_device.push_back(fmt::format("{} {:.3f}", d->device, *d->busy_ns / 1e6));
  out.findings.push_back(Finding(
      "rank_straggler", "device " + top->device, saving, SpanNs(e.devices),
      "One rank (device) has much more GPU work than the others, which wait for it at each collective: balance the "
      "work (data or sequence lengths per rank, embedding or expert placement, pipeline stages) and check that rank's "
      "host side",
      fmt::format(
          "device {} busy {:.3f} ms, {:.0f} % above the median device's {:.3f} ms (mean {:.3f} ms, {} devices); "
          "busy ms per device: {}",
          top->device, *top->busy_ns / 1e6, 100 * (*top->busy_ns - median) / median, median / 1e6, mean / 1e6,
          devices.size(), fmt::join(per_device, ", "))));
}

}  // namespace

TimelineRulesResult EvaluateTimelineRules(const TimelineEvidence& evidence) {
  TimelineRulesResult out;
  if (evidence.timeline) {
    GpuIdle(evidence, out);
    LaunchBound(evidence, out);
    RankStraggler(evidence, out);
    EvaluateDeviceRules(evidence, out);
  }
  SyncCalls(evidence, out);
  StartupCost(evidence, out);
  if (!evidence.timeline && out.findings.empty())
    out.not_evaluated.clear();  // nothing to say of a summary or ncu input
  std::stable_sort(out.findings.begin(), out.findings.end(),
                   [](const TimelineFinding& a, const TimelineFinding& b) { return a.saving_ns > b.saving_ns; });
  return out;
}

}  // namespace llmpo::analysis
