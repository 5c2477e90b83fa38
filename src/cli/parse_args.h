// Shared CLI plumbing: CLI11 parsing with our exit codes, and the
// configuration options every config-driven subcommand takes.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "src/cli/subcommands.h"
#include "src/config/composer.h"

namespace llmpo::cli {

struct ConfigArgs {
  std::string config_dir;
  std::string config_name = "config";
  std::vector<std::string> overrides;
};

// Adds --config-dir, --config-name and the OVERRIDES positional.
void AddConfigOptions(CLI::App& app, ConfigArgs& args);

// Parses `args`; returns an exit code when the program should stop
// (help printed: 0; parse error: usage).
std::optional<int> Parse(CLI::App& app, const std::vector<std::string>& args);

Result<config::Composition> ComposeFromArgs(const ConfigArgs& args);

}  // namespace llmpo::cli
