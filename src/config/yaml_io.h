// YAML text <-> configuration tree, through yaml-cpp.
#pragma once

#include <string>
#include <string_view>

#include "src/config/node.h"
#include "src/core/result.h"

namespace llmpo::config {

// Parses one YAML document. `source` names it in error messages
// ("conf/config.yaml:3:5: ..."). Quoted scalars stay strings; plain ones are
// typed by TypePlainScalar. An empty or null document is an empty mapping.
Result<Node> LoadYaml(std::string_view text, const std::string& source);

// Block-style YAML that LoadYaml reads back to the same tree.
std::string EmitYaml(const Node& node);

}  // namespace llmpo::config
