// Where config files live: a search path of folders, the user's own
// (--config-dir) first, then the built-in tree. A config group is a folder;
// its options are the .yaml files in it.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "src/config/node.h"
#include "src/core/result.h"

namespace llmpo::config {

struct LoadedConfig {
  Node body;                           // the file's mapping
  std::optional<std::string> package;  // from a "# @package X" header line
  std::filesystem::path file;
};

class Repository {
 public:
  explicit Repository(std::vector<std::filesystem::path> search_path);

  const std::vector<std::filesystem::path>& search_path() const { return search_path_; }

  // True if `group` (a/b/c) is a folder in any search-path entry.
  bool IsGroup(const std::string& group) const;

  // Every group (folder) in the search path, sorted, as a/b/c.
  std::vector<std::string> Groups() const;

  // Option names in `group`, sorted, without ".yaml".
  std::vector<std::string> Options(const std::string& group) const;

  // Top-level config names (for --config-name suggestions).
  std::vector<std::string> PrimaryConfigs() const;

  // Loads `<group>/<option>.yaml` (group may be empty for a primary config).
  // Errors say which options exist and suggest the nearest one.
  Result<LoadedConfig> Load(const std::string& group, const std::string& option) const;

 private:
  std::optional<std::filesystem::path> Locate(const std::string& group, const std::string& option) const;

  std::vector<std::filesystem::path> search_path_;
};

// The built-in conf/ folder, found from the binary's own location
// (/proc/self/exe), never from a path compiled in: <bin dir>/conf (the build
// tree links it to the source conf/; bundles copy it), else
// <bin dir>/../share/llm-perf-opt/conf (installs).
std::filesystem::path BuiltinConfigDir();

}  // namespace llmpo::config
