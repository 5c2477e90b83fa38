// MFU and MBU per LLM phase (analysis/phases.h, docs/analysis.md "Phases"):
//   MFU = model FLOPs of the phase's counted steps / the phase's GPU kernel
//         time / pipeline.mfu.peak_tflops, where a step's model FLOPs are its
//         tokens x model.flops_per_token of its phase (a mixed step: prefill
//         tokens x the prefill figure + decode tokens x the decode figure);
//   MBU = model.bytes_per_step of the phase x counted steps / the phase's GPU
//         kernel time / pipeline.mfu.peak_bandwidth_gbps.
// Null, with the reason, whenever an input is unknown; never 0.
#pragma once

#include <vector>

#include "src/analysis/phases.h"

namespace llmpo::analysis {

// Fills each summary's `utilization` from the steps that count in it (all
// steps with steady_state off, else those not marked warm-up).
void AddPhaseUtilization(const std::vector<PhaseStep>& steps, const PhaseOptions& options,
                         std::vector<PhaseSummary>& phases);

}  // namespace llmpo::analysis
