// The timeline rules that read each device's facts (device_waits.h) and the
// timeline's kernels: idle_host_wait, copy_not_overlapped, pageable_copies,
// cpu_op_starving and small_kernel_tail (docs/analysis.md "Timeline
// findings"). Per-device findings are one per device, never merged. Pure.
#pragma once

#include "src/analysis/timeline_rules.h"

namespace llmpo::analysis {

inline constexpr double kHostWaitMinPct = 10;    // idle_host_wait: host wait's share of the device's span
inline constexpr double kCopyOnlyMinPct = 5;     // copy_not_overlapped: copy-only time's share of the span
inline constexpr double kPageableMinPct = 1;     // pageable_copies: pageable copy time's share of the span
inline constexpr double kStarvingMinPct = 2;     // cpu_op_starving: the idle stretch's share of the span
inline constexpr double kTailKernelNs = 10'000;  // small_kernel_tail: kernels averaging under 10 us ...
inline constexpr double kTailMinPct = 20;        // ... taking this share of the GPU kernel time
inline constexpr std::uint64_t kTailMinLaunches = 100;

// Adds the findings, and what could not be evaluated, of a timeline input.
void EvaluateDeviceRules(const TimelineEvidence& evidence, TimelineRulesResult& out);

}  // namespace llmpo::analysis
