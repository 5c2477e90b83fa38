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

namespace llmpo::pipeline {

struct MfuOptions {
  std::vector<std::pair<std::string, double>> region_flops;
  std::optional<double> peak_tflops;
  // MBU: model.bytes (bytes read from GPU memory inside a region over the
  // run, by region path) and pipeline.mfu.peak_bandwidth_gbps.
  std::vector<std::pair<std::string, double>> region_bytes;
  std::optional<double> peak_gbps;
  // Serving metrics: analysis.llm.{prefill_region, decode_region, tokens_per_step}.
  std::string prefill_region = "prefill";
  std::string decode_region = "decode";
  double tokens_per_step = 1;
};

Result<MfuOptions> MfuOptionsFromConfig(const config::Node& config);

}  // namespace llmpo::pipeline
