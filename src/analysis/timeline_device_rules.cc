#include "src/analysis/timeline_device_rules.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace llmpo::analysis {
namespace {

double Ms(double ns) { return ns / 1e6; }
double Pct(double part, double whole) { return whole > 0 ? 100 * part / whole : 0; }

TimelineFinding DeviceFinding(std::string rule, const DeviceBusy& d, double saving, std::string message,
                              std::string evidence) {
  TimelineFinding f{std::move(rule), "device " + d.device, saving, d.span_ns, std::nullopt, std::move(message),
                    std::move(evidence)};
  if (d.span_ns > 0) f.saving_pct = Pct(saving, d.span_ns);
  return f;
}

// idle_host_wait: the device waited for the host (HTA's "host wait") for
// kHostWaitMinPct % of its span or more.
void HostWait(const DeviceBusy& d, TimelineRulesResult& out) {
  const TimelineFacts& f = d.facts;
  if (!f.host_wait_ns || Pct(*f.host_wait_ns, d.span_ns) < kHostWaitMinPct) return;
  out.findings.push_back(DeviceFinding(
      "idle_host_wait", d, *f.host_wait_ns,
      "The GPU sat idle until the host launched the next operation: the host is the bottleneck here; cut the work "
      "between launches (Python overhead, per-step host logic, synchronisations) or capture the step in a CUDA graph",
      fmt::format("device {}: idle {:.3f} ms of a {:.3f} ms span in {} gaps: host wait {:.3f} ms ({:.1f} %), kernel "
                  "wait {:.3f} ms, other {:.3f} ms, unclassified (no launch call) {:.3f} ms",
                  d.device, Ms(d.idle_ns.value_or(0)), Ms(d.span_ns), f.gaps, Ms(*f.host_wait_ns),
                  Pct(*f.host_wait_ns, d.span_ns), Ms(f.kernel_wait_ns.value_or(0)), Ms(f.other_wait_ns.value_or(0)),
                  Ms(f.unclassified_wait_ns.value_or(0)))));
}

// copy_not_overlapped: copies (or memsets) run while no kernel runs on the
// device for kCopyOnlyMinPct % of its span or more.
void CopyOnly(const DeviceBusy& d, TimelineRulesResult& out) {
  const TimelineFacts& f = d.facts;
  if (!f.copy_only_ns || d.copies == 0 || Pct(*f.copy_only_ns, d.span_ns) < kCopyOnlyMinPct) return;
  out.findings.push_back(DeviceFinding(
      "copy_not_overlapped", d, *f.copy_only_ns,
      "Copies run while no kernel runs: overlap them with compute (cudaMemcpyAsync from pinned memory on a stream "
      "of their own, pin_memory=True with non_blocking=True, prefetch the next batch) or avoid them",
      fmt::format("device {}: {} copies/memsets; {:.3f} ms with a copy or memset and no kernel running ({:.1f} % of "
                  "the {:.3f} ms span); memcpy time summed {:.3f} ms; kernels busy {:.3f} ms",
                  d.device, d.copies, Ms(*f.copy_only_ns), Pct(*f.copy_only_ns, d.span_ns), Ms(d.span_ns),
                  Ms(f.copy_ns), Ms(f.kernel_busy_ns.value_or(0)))));
}

// pageable_copies: copies from or to pageable host memory, which are
// staged and synchronous, for kPageableMinPct % of the span or more.
void Pageable(const DeviceBusy& d, TimelineRulesResult& out) {
  const TimelineFacts& f = d.facts;
  if (f.pageable_copies == 0 || Pct(f.pageable_copy_ns, d.span_ns) < kPageableMinPct) return;
  out.findings.push_back(DeviceFinding(
      "pageable_copies", d, f.pageable_copy_ns,
      "Copies use pageable host memory: the driver stages them and they block the host; allocate the host buffers "
      "pinned (cudaMallocHost / cudaHostAlloc, tensor.pin_memory(), DataLoader(pin_memory=True))",
      fmt::format("device {}: {} of {} copies with known memory kinds are from or to pageable memory, {:.3f} ms "
                  "({:.1f} % of the {:.3f} ms span)",
                  d.device, f.pageable_copies, f.copies_with_memory, Ms(f.pageable_copy_ns),
                  Pct(f.pageable_copy_ns, d.span_ns), Ms(d.span_ns))));
}

// cpu_op_starving: one CPU op or range through which the device stayed idle
// (GpuTimeline matched it: one idle stretch covers half of it or more).
void Starving(const DeviceBusy& d, TimelineRulesResult& out) {
  const TimelineFacts& f = d.facts;
  if (!f.starving_idle_ns || Pct(*f.starving_idle_ns, d.span_ns) < kStarvingMinPct) return;
  out.findings.push_back(DeviceFinding(
      "cpu_op_starving", d, *f.starving_idle_ns,
      "One long CPU operation kept the GPU idle: move it off the critical path (run it on another thread or "
      "process, overlap it with GPU work, do it once instead of per step) or make it faster",
      fmt::format("device {} idle for {:.3f} ms in one stretch while '{}' ran ({:.3f} ms; {:.1f} % of the device's "
                  "{:.3f} ms span)",
                  d.device, Ms(*f.starving_idle_ns), f.starving_op, Ms(f.starving_op_ns.value_or(0)),
                  Pct(*f.starving_idle_ns, d.span_ns), Ms(d.span_ns))));
}

// small_kernel_tail: kernels averaging under kTailKernelNs take kTailMinPct
// % or more of the GPU kernel time over kTailMinLaunches launches or more.
// Fusing them saves at most their time.
void SmallKernelTail(const TimelineEvidence& e, double span, TimelineRulesResult& out) {
  double all_ns = 0, tail_ns = 0;
  std::uint64_t launches = 0;
  std::vector<const KernelAggregate*> tail;
  for (const auto& k : e.kernels) {
    if (k.timed_calls == 0) continue;
    all_ns += k.total_ns;
    if (k.MeanNs() >= kTailKernelNs) continue;
    tail_ns += k.total_ns, launches += k.timed_calls;
    tail.push_back(&k);
  }
  if (launches < kTailMinLaunches || Pct(tail_ns, all_ns) < kTailMinPct) return;
  std::sort(tail.begin(), tail.end(), [](const auto* a, const auto* b) { return a->total_ns > b->total_ns; });
  std::vector<std::string> top;
  for (std::size_t i = 0; i < std::min<std::size_t>(3, tail.size()); ++i)
    top.push_back(fmt::format("{} ({} x, {:.3f} ms)", tail[i]->name.substr(0, 60), tail[i]->timed_calls,
                              Ms(tail[i]->total_ns)));
  TimelineFinding f{"small_kernel_tail", "all devices", tail_ns, std::nullopt, std::nullopt,
                    "Many short kernels add up: fuse them (torch.compile, fused optimisers and norms, a fused "
                    "elementwise epilogue) so each does more work per launch and memory round trip",
                    fmt::format("{} kernel name(s) averaging under {:.0f} us: {} launches, {:.3f} ms, {:.1f} % of "
                                "the {:.3f} ms GPU kernel time; largest: {}",
                                tail.size(), kTailKernelNs / 1e3, launches, Ms(tail_ns), Pct(tail_ns, all_ns),
                                Ms(all_ns), fmt::join(top, "; "))};
  if (span > 0) f.span_ns = span, f.saving_pct = Pct(tail_ns, span);
  out.findings.push_back(std::move(f));
}

void NotEvaluated(const TimelineEvidence& e, TimelineRulesResult& out) {
  bool calls = false, ranges = false, copies = false, kinds = false;
  std::string missing;
  for (const auto& d : e.devices) {
    calls |= d.facts.with_launch_call > 0, ranges |= d.facts.cpu_ranges > 0;
    copies |= d.facts.copy_ns > 0, kinds |= d.facts.copies_with_memory > 0;
    if (!d.facts.missing.empty()) missing = fmt::format("device {}: {}", d.device, d.facts.missing);
  }
  if (!missing.empty())
    out.not_evaluated.push_back("idle_host_wait, copy_not_overlapped, cpu_op_starving: " + missing);
  if (!calls)
    out.not_evaluated.push_back(
        "idle_host_wait: no GPU operation has its CPU launch call (a GPU-only export: trace the CUDA API with nsys "
        "-t cuda, or keep the cuda_runtime events in the PyTorch trace), so the idle time cannot be split into host "
        "wait, kernel wait and other");
  if (!ranges)
    out.not_evaluated.push_back(
        "cpu_op_starving: the timeline has no CPU ops or ranges of 1 ms or more (record CPU activity: "
        "ProfilerActivity.CPU, NVTX ranges)");
  if (copies && !kinds)
    out.not_evaluated.push_back(
        "pageable_copies: the copies carry no host memory kinds (PyTorch names them, nsys exports them as "
        "srcKind/dstKind with the ENUM_CUDA_MEM_KIND table)");
}

}  // namespace

void EvaluateDeviceRules(const TimelineEvidence& e, TimelineRulesResult& out) {
  double span = 0;
  for (const auto& d : e.devices) {
    span += d.span_ns;
    if (!d.facts.missing.empty()) continue;
    HostWait(d, out);
    CopyOnly(d, out);
    Pageable(d, out);
    Starving(d, out);
  }
  SmallKernelTail(e, span, out);
  NotEvaluated(e, out);
}

}  // namespace llmpo::analysis
