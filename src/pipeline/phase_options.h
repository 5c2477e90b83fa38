// LLM phase settings read from the composed configuration
// (docs/configuration.md): analysis.phases.{prefill,decode} (RE2 patterns
// for whole step range names), analysis.steady_state (on: leave warm-up
// steps out; off: keep them) and model.tokens.{prefill,decode} (tokens one
// prefill / decode step processes, used where a step's name gives none),
// model.flops_per_token.*, model.bytes_per_step.* and pipeline.mfu.* peaks
// (MFU / MBU per phase, analysis/phase_utilization.h).
#pragma once

#include "src/analysis/phases.h"
#include "src/config/node.h"
#include "src/core/result.h"

namespace llmpo::pipeline {

// Missing keys keep the defaults; a key of the wrong type, a bad pattern or
// a count that is not a positive whole number is a usage error naming it.
Result<analysis::PhaseOptions> PhaseOptionsFromConfig(const config::Node& config);

}  // namespace llmpo::pipeline
