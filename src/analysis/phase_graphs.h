// CUDA graph launches of a timeline (analysis/phases.h): the kernels that
// share a graph launch call's correlation id are one launch, attributed to
// the NVTX range and step of that call; launches with the same graph id
// (where the input records one) or else the same kernel sequence in one
// input are one graph.
#pragma once

#include <cstdint>
#include <vector>

#include "src/analysis/phases.h"

namespace llmpo::analysis {

inline constexpr std::uint32_t kNoPhaseStep = UINT32_MAX;

// `step_of[i]`: the step of in.kernels[i] (kNoPhaseStep: none).
std::vector<GraphRow> GraphLaunches(const PhaseInput& in, const std::vector<std::uint32_t>& step_of,
                                    const std::vector<PhaseStep>& steps);

}  // namespace llmpo::analysis
