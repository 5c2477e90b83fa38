#include "src/pipeline/phase_options.h"

#include <fmt/format.h>

#include "src/config/node_path.h"

namespace llmpo::pipeline {
namespace {

using config::Node;

const Node* At(const Node& root, const std::string& key) { return config::FindPath(root, config::SplitKey(key)); }

Error WrongType(const std::string& key, std::string_view expected) {
  return MakeError(ExitStatus::kUsage, fmt::format("config key '{}' must be {}", key, expected));
}

Result<std::vector<std::string>> Patterns(const Node& root, const std::string& key) {
  std::vector<std::string> out;
  const Node* node = At(root, key);
  if (node == nullptr || node->is_null()) return out;
  if (node->is_string()) return std::vector<std::string>{node->get<std::string>()};
  if (!node->is_array()) return WrongType(key, "a pattern or a list of patterns (RE2, matched on the whole name)");
  for (const auto& item : *node) {
    if (!item.is_string()) return WrongType(key, "a pattern or a list of patterns (RE2, matched on the whole name)");
    out.push_back(item.get<std::string>());
  }
  return out;
}

Result<std::optional<double>> Tokens(const Node& root, const std::string& key) {
  const Node* node = At(root, key);
  if (node == nullptr || node->is_null()) return std::optional<double>();
  if (!node->is_number_integer() || node->get<std::int64_t>() <= 0) {
    return WrongType(key, "a whole number of tokens > 0 (tokens one step processes)");
  }
  return std::optional<double>(static_cast<double>(node->get<std::int64_t>()));
}

// A positive amount of model work (FLOPs, bytes) or a peak; null when unset.
Result<std::optional<double>> Positive(const Node& root, const std::string& key, std::string_view what) {
  const Node* node = At(root, key);
  if (node == nullptr || node->is_null()) return std::optional<double>();
  if (!node->is_number() || node->get<double>() <= 0) return WrongType(key, what);
  return std::optional<double>(node->get<double>());
}

Status ModelWork(const Node& root, analysis::PhaseOptions& o) {
  constexpr std::string_view kFlops = "a positive number of model FLOPs per token (forward: about 2 x active parameters)";
  constexpr std::string_view kBytes = "a positive number of bytes one step reads from GPU memory (weights + KV cache)";
  ASSIGN_OR_RETURN(o.prefill_flops_per_token, Positive(root, "model.flops_per_token.prefill", kFlops));
  ASSIGN_OR_RETURN(o.decode_flops_per_token, Positive(root, "model.flops_per_token.decode", kFlops));
  ASSIGN_OR_RETURN(o.prefill_bytes_per_step, Positive(root, "model.bytes_per_step.prefill", kBytes));
  ASSIGN_OR_RETURN(o.decode_bytes_per_step, Positive(root, "model.bytes_per_step.decode", kBytes));
  ASSIGN_OR_RETURN(o.mixed_bytes_per_step, Positive(root, "model.bytes_per_step.mixed", kBytes));
  ASSIGN_OR_RETURN(o.peak_tflops, Positive(root, "pipeline.mfu.peak_tflops", "a positive number"));
  ASSIGN_OR_RETURN(o.peak_gbps, Positive(root, "pipeline.mfu.peak_bandwidth_gbps", "a positive number"));
  return OkStatus();
}

}  // namespace

Result<analysis::PhaseOptions> PhaseOptionsFromConfig(const Node& root) {
  analysis::PhaseOptions options;
  ASSIGN_OR_RETURN(options.prefill_patterns, Patterns(root, "analysis.phases.prefill"));
  ASSIGN_OR_RETURN(options.decode_patterns, Patterns(root, "analysis.phases.decode"));
  // Checked here, so a bad expression is a usage error before any import.
  Result<analysis::StepNamer> check = analysis::StepNamer::Create(options.prefill_patterns, options.decode_patterns);
  if (!check.ok()) return std::move(check).error();
  if (const Node* steady = At(root, "analysis.steady_state"); steady && !steady->is_null()) {
    // YAML may read on/off as booleans; both spellings mean the same.
    if (steady->is_boolean()) {
      options.steady_state = steady->get<bool>();
    } else if (steady->is_string() && (steady->get<std::string>() == "on" || steady->get<std::string>() == "off")) {
      options.steady_state = steady->get<std::string>() == "on";
    } else {
      return WrongType("analysis.steady_state", "on or off");
    }
  }
  ASSIGN_OR_RETURN(options.prefill_tokens_per_step, Tokens(root, "model.tokens.prefill"));
  ASSIGN_OR_RETURN(options.decode_tokens_per_step, Tokens(root, "model.tokens.decode"));
  RETURN_IF_ERROR(ModelWork(root, options));
  return options;
}

}  // namespace llmpo::pipeline
