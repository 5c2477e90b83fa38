// MFU inputs from the composed configuration: `model.flops` (a mapping of
// NVTX region path -> FLOPs done inside that region over the whole run) and
// `pipeline.mfu.peak_tflops` (the GPU's dense peak for the model's
// precision, TFLOP/s). Both optional; a value of the wrong type is a usage
// error that names the key.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/config/node.h"
#include "src/core/result.h"
#include "src/report/summary_report.h"

namespace llmpo::pipeline {

using MfuOptions = report::ModelInputs;

Result<MfuOptions> MfuOptionsFromConfig(const config::Node& config);

}  // namespace llmpo::pipeline
