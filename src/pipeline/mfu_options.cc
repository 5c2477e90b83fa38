#include "src/pipeline/mfu_options.h"

#include <fmt/format.h>

#include "src/config/node_path.h"

namespace llmpo::pipeline {

Result<MfuOptions> MfuOptionsFromConfig(const config::Node& root) {
  MfuOptions options;
  const config::Node* flops = config::FindPath(root, config::SplitKey("model.flops"));
  if (flops != nullptr && !flops->is_null()) {
    if (!flops->is_object()) {
      return MakeError(ExitStatus::kUsage, "config key 'model.flops' must be a mapping of region path -> FLOPs")
          .WithNote("e.g. '++model.flops={prefill: 1.6e9, decode_all: 9.5e8}'");
    }
    for (const auto& [region, value] : flops->items()) {
      if (!value.is_number() || value.get<double>() <= 0) {
        return MakeError(ExitStatus::kUsage,
                         fmt::format("config key 'model.flops.{}' must be a positive number of FLOPs", region));
      }
      options.region_flops.emplace_back(region, value.get<double>());
    }
  }
  const config::Node* peak = config::FindPath(root, config::SplitKey("pipeline.mfu.peak_tflops"));
  if (peak != nullptr && !peak->is_null()) {
    if (!peak->is_number() || peak->get<double>() <= 0) {
      return MakeError(ExitStatus::kUsage, "config key 'pipeline.mfu.peak_tflops' must be a positive number")
          .WithNote("the GPU's dense peak for the model's precision in TFLOP/s, e.g. 989 for H100 SXM bf16");
    }
    options.peak_tflops = peak->get<double>();
  }
  return options;
}

}  // namespace llmpo::pipeline
