#include "src/pipeline/region_options.h"

#include <fmt/format.h>

#include "src/config/node_path.h"
#include "src/pipeline/phase_options.h"

namespace llmpo::pipeline {
namespace {

using config::Node;

Error WrongType(const std::string& key, std::string_view expected) {
  return MakeError(ExitStatus::kUsage, fmt::format("config key '{}' must be {}", key, expected));
}

// A "one or many" key: null, a string, or a list of strings.
Result<std::vector<std::string>> Strings(const Node* node, const std::string& key) {
  std::vector<std::string> out;
  if (node == nullptr || node->is_null()) return out;
  if (node->is_string()) return std::vector<std::string>{node->get<std::string>()};
  if (!node->is_array()) return WrongType(key, "a string or a list of strings");
  for (const auto& item : *node) {
    if (!item.is_string()) return WrongType(key, "a string or a list of strings");
    out.push_back(item.get<std::string>());
  }
  return out;
}

const Node* At(const Node& root, const std::string& key) { return config::FindPath(root, config::SplitKey(key)); }

Result<analysis::PatternSet> Patterns(const Node& root, const std::string& key) {
  analysis::PatternSet set;
  ASSIGN_OR_RETURN(set.include, Strings(At(root, key + ".include"), key + ".include"));
  ASSIGN_OR_RETURN(set.exclude, Strings(At(root, key + ".exclude"), key + ".exclude"));
  return set;
}

// analysis.kernel_categories: a list of {category: NAME, pattern: RE2}.
Result<std::vector<analysis::CategoryRule>> CategoryRules(const Node& root) {
  constexpr const char* kKey = "analysis.kernel_categories";
  std::vector<analysis::CategoryRule> rules;
  const Node* list = At(root, kKey);
  if (list == nullptr || list->is_null()) return rules;
  if (!list->is_array()) return WrongType(kKey, "a list of {category: NAME, pattern: REGEX}");
  for (const auto& item : *list) {
    if (!item.is_object() || !item.contains("category") || !item.contains("pattern") || !item["category"].is_string() ||
        !item["pattern"].is_string() || item.size() != 2) {
      return WrongType(kKey, "a list of {category: NAME, pattern: REGEX} (both strings, no other keys)");
    }
    rules.push_back({item["category"].get<std::string>(), item["pattern"].get<std::string>()});
  }
  // Checked here, so a bad expression is a usage error before any import.
  Result<analysis::KernelCategorizer> check = analysis::KernelCategorizer::Create(rules);
  if (!check.ok()) return std::move(check).error();
  return rules;
}

}  // namespace

Result<RegionOptions> RegionOptionsFromConfig(const Node& root) {
  RegionOptions options;
  ASSIGN_OR_RETURN(options.kernels, Patterns(root, "pipeline.ncu.ncu_cli.kernels"));
  ASSIGN_OR_RETURN(options.selection.sections,
                   Strings(At(root, "pipeline.ncu.ncu_cli.sections"), "pipeline.ncu.ncu_cli.sections"));
  ASSIGN_OR_RETURN(options.selection.metrics,
                   Strings(At(root, "pipeline.ncu.ncu_cli.metrics"), "pipeline.ncu.ncu_cli.metrics"));
  if (const Node* aggregate = At(root, "pipeline.regions.aggregate")) {
    if (!aggregate->is_boolean()) return WrongType("pipeline.regions.aggregate", "true or false");
    options.aggregate = aggregate->get<bool>();
  }
  if (const Node* max_folders = At(root, "pipeline.regions.max_folders")) {
    if (!max_folders->is_number_integer() || max_folders->get<std::int64_t>() < 0) {
      return WrongType("pipeline.regions.max_folders", "a whole number >= 0");
    }
    options.max_folders = static_cast<std::size_t>(max_folders->get<std::int64_t>());
  }
  if (const Node* suffix = At(root, "pipeline.regions.instance_suffix"); suffix && !suffix->is_null()) {
    if (!suffix->is_string()) return WrongType("pipeline.regions.instance_suffix", "a string (an RE2 pattern, or '')");
    options.instance_suffix = suffix->get<std::string>();
    // Checked here, so a bad pattern is a usage error before any import.
    Result<analysis::InstanceSuffix> check = analysis::InstanceSuffix::Create(options.instance_suffix);
    if (!check.ok()) return std::move(check).error();
  }
  if (const Node* per_region = At(root, "pipeline.regions.kernels"); per_region && !per_region->is_null()) {
    if (!per_region->is_object()) return WrongType("pipeline.regions.kernels", "a mapping of region -> patterns");
    for (const auto& [region, value] : per_region->items()) {
      const std::string key = "pipeline.regions.kernels." + region;
      if (!value.is_object()) return WrongType(key, "a mapping with include and/or exclude");
      analysis::PatternSet set;
      ASSIGN_OR_RETURN(set.include, Strings(value.contains("include") ? &value["include"] : nullptr, key + ".include"));
      ASSIGN_OR_RETURN(set.exclude, Strings(value.contains("exclude") ? &value["exclude"] : nullptr, key + ".exclude"));
      options.per_region.emplace(region, std::move(set));
    }
  }
  ASSIGN_OR_RETURN(options.categories, CategoryRules(root));
  ASSIGN_OR_RETURN(options.phases, PhaseOptionsFromConfig(root));
  return options;
}

}  // namespace llmpo::pipeline
