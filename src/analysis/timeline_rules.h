// Timeline rules: what a timeline (nsys, our tracer, a PyTorch trace) and
// nsys' API summary say to do first, where ncu's findings say nothing about
// the GPU waiting for the CPU (docs/analysis.md "Timeline findings"). Each
// finding has a rule id, an upper bound of the time fixing it could save
// (never added to another's: they overlap), the measured time that bound is
// a share of, the evidence and the fix. Pure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/analysis/gpu_timeline.h"
#include "src/analysis/kernel_aggregator.h"

namespace llmpo::analysis {

struct TimelineFinding {
  std::string rule;       // "gpu_idle", "launch_bound", "sync_calls", "startup_cost"
  std::string scope;      // "device 0", "all devices"
  double saving_ns = 0;   // upper bound of what fixing it could save
  std::optional<double> span_ns;     // the measured time the bound is a share of; null: no timeline
  std::optional<double> saving_pct;  // saving_ns / span_ns x 100
  std::string message;    // what it means and what to do
  std::string evidence;   // the numbers behind it
};

// Thresholds (docs/analysis.md).
inline constexpr double kIdleMinPct = 10;         // gpu_idle: idle share of a device's span
inline constexpr double kShortKernelNs = 10'000;  // launch_bound: a kernel averaging under 10 us
inline constexpr double kShortLaunchMinPct = 50;  // ... making up this share of the launches
inline constexpr std::uint64_t kLaunchBoundMinLaunches = 100;
inline constexpr double kStartupMinPct = 20;  // startup_cost: module loading's share of all CUDA API time
inline constexpr double kSyncMinPct = 5;  // sync_calls: share of the devices' spans summed

struct TimelineEvidence {
  std::string times_from;                                 // the timing input(s), TimingChoice::label
  bool timeline = false;                                  // it is a timeline (it has per-launch times)
  std::vector<DeviceBusy> devices;                        // its devices
  std::vector<KernelAggregate> kernels;                   // its kernels
  std::vector<model::ApiSummaryRow> api_calls;            // nsys' cuda_api_sum rows, any input
  std::vector<model::LaunchOverheadRow> launch_overhead;  // launch API and queue time, any input
};

struct TimelineRulesResult {
  std::vector<TimelineFinding> findings;   // largest saving first
  std::vector<std::string> not_evaluated;  // rule: why it could not be evaluated on these inputs
};

TimelineRulesResult EvaluateTimelineRules(const TimelineEvidence& evidence);

}  // namespace llmpo::analysis
