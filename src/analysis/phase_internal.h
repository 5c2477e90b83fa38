// What AnalyzePhases (phases.cc) and the per-step reduction of kernels as
// they arrive (phase_stream.cc) share: the steps of each scope and the step
// a launch call falls in. Not for use outside the phases analysis.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "src/analysis/phases.h"

namespace llmpo::analysis::phase_detail {

// Whether a kernel's name says it autotunes (*autotun*, any case of the a).
bool IsAutotuneKernel(std::string_view name);

// The length of the union of [start, end) intervals (sorts `v`).
double UnionNs(std::vector<std::pair<std::int64_t, std::int64_t>>& v);

// Steps of each scope: the ranges of its most specific scheme, by start.
struct Steps {
  std::vector<PhaseStep> steps;
  std::vector<std::vector<std::uint32_t>> by_scope;  // step indices, by start
};

// Adds each scope's scheme to report.schemes and notes malformed counts.
Steps PickSteps(const PhaseInput& in, const PhaseOptions& options, PhaseReport& report,
                model::Diagnostics& diagnostics);

// The step whose range holds `t`: the latest to start at or before it that
// has not ended (a nested one before its parent); kNoPhaseStep when none.
std::uint32_t StepAt(const Steps& steps, std::uint32_t scope, std::int64_t t);
// StepAt for calls that mostly fall in the step of the call before (kernels
// in call order): `hint` remembers where that step is, and a time inside it
// and before the next step's start is answered without a search. The
// answers are StepAt's.
struct StepHint {
  std::uint32_t scope = UINT32_MAX;
  std::size_t pos = 0;  // in steps.by_scope[scope]
};
std::uint32_t StepAt(const Steps& steps, std::uint32_t scope, std::int64_t t, StepHint& hint);

}  // namespace llmpo::analysis::phase_detail
