// The configuration tree: an insertion-ordered JSON value, so keys print in
// the order the YAML files declared them (as OmegaConf does).
#pragma once

#include <nlohmann/json.hpp>

namespace llmpo::config {

using Node = nlohmann::ordered_json;

}  // namespace llmpo::config
