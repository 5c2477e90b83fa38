// Composes the configuration the way Hydra does: primary config, its
// defaults list edited by group overrides, option files merged at their
// packages, then value overrides, then interpolations.
#pragma once

#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include "src/config/node.h"
#include "src/config/repository.h"
#include "src/core/result.h"

namespace llmpo::config {

struct ComposeRequest {
  std::vector<std::filesystem::path> search_path;  // user folder first, built-in last
  std::string config_name = "config";
  std::vector<std::string> overrides;
  std::time_t now = 0;
  std::filesystem::path cwd;
};

struct Composition {
  Node config;                       // resolved tree
  Node unresolved;                   // the same before ${...} were resolved
  std::vector<std::string> choices;  // "group@package: option", in merge order
};

Result<Composition> Compose(const ComposeRequest& request);

// The instant ${now:...} uses: SOURCE_DATE_EPOCH when set (reproducible
// output, as in reproducible builds), else the current time.
std::time_t ComposeTime();

}  // namespace llmpo::config
