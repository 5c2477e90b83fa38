#include "src/pipeline/mfu_options.h"

#include <fmt/format.h>

#include "src/config/node_path.h"

namespace llmpo::pipeline {

namespace {

// A mapping of region path -> positive number (model.flops, model.bytes).
Status RegionNumbers(const config::Node& root, const char* key, const char* what,
                     std::vector<std::pair<std::string, double>>& out) {
  const config::Node* node = config::FindPath(root, config::SplitKey(key));
  if (node == nullptr || node->is_null()) return OkStatus();
  if (!node->is_object()) {
    return MakeError(ExitStatus::kUsage,
                     fmt::format("config key '{}' must be a mapping of region path -> {}", key, what));
  }
  for (const auto& [region, value] : node->items()) {
    if (!value.is_number() || value.get<double>() <= 0) {
      return MakeError(ExitStatus::kUsage,
                       fmt::format("config key '{}.{}' must be a positive number of {}", key, region, what));
    }
    out.emplace_back(region, value.get<double>());
  }
  return OkStatus();
}

Result<std::optional<double>> PositiveNumber(const config::Node& root, const char* key, const char* note) {
  const config::Node* node = config::FindPath(root, config::SplitKey(key));
  if (node == nullptr || node->is_null()) return std::optional<double>();
  if (!node->is_number() || node->get<double>() <= 0) {
    return MakeError(ExitStatus::kUsage, fmt::format("config key '{}' must be a positive number", key)).WithNote(note);
  }
  return std::optional<double>(node->get<double>());
}

Status LlmKeys(const config::Node& root, MfuOptions& options) {
  for (auto [key, field] : {std::pair{"analysis.llm.prefill_region", &options.prefill_region},
                            std::pair{"analysis.llm.decode_region", &options.decode_region}}) {
    const config::Node* node = config::FindPath(root, config::SplitKey(key));
    if (node == nullptr || node->is_null()) continue;
    if (!node->is_string() || node->get<std::string>().empty()) {
      return MakeError(ExitStatus::kUsage, fmt::format("config key '{}' must be a region name", key));
    }
    *field = node->get<std::string>();
  }
  ASSIGN_OR_RETURN(auto tokens, PositiveNumber(root, "analysis.llm.tokens_per_step",
                                               "tokens one decode step produces (the batch size)"));
  if (tokens) options.tokens_per_step = *tokens;
  return OkStatus();
}

}  // namespace

Result<MfuOptions> MfuOptionsFromConfig(const config::Node& root) {
  MfuOptions options;
  RETURN_IF_ERROR(RegionNumbers(root, "model.bytes", "bytes", options.region_bytes));
  ASSIGN_OR_RETURN(options.peak_gbps, PositiveNumber(root, "pipeline.mfu.peak_bandwidth_gbps",
                                                     "the GPU's peak memory bandwidth in GB/s, e.g. 4800 for H200"));
  RETURN_IF_ERROR(LlmKeys(root, options));
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
