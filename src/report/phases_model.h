// The report set's LLM phases (analysis/phases.h) with what only the set
// knows: ncu's bound class per kernel name, and whether an input recorded
// graph launches without their kernels (nsys' default graph tracing).
#pragma once

#include <optional>

#include "src/analysis/kernel_category.h"
#include "src/analysis/phases.h"
#include "src/report/kernels_report.h"

namespace llmpo::report {

// Null when the inputs have no step and no graph launch. Malformed step
// counts go to `kernels`' diagnostics (Data quality).
std::optional<analysis::PhaseReport> BuildPhases(const analysis::PhaseInput& in, const analysis::PhaseOptions& options,
                                                 KernelsReport& kernels,
                                                 const analysis::KernelCategorizer& categorizer);

}  // namespace llmpo::report
