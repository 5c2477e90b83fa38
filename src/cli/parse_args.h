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
  // Hydra's own flags: -m/--multirun (profile and trace: cmd_multirun.h), --cfg job|hydra|all
  // (print the composed config and stop), --info (search path and groups, stop).
  bool multirun = false;
  std::string cfg;
  bool info = false;
};

// Adds --config-dir, --config-name, Hydra's -m/--cfg/--info and the
// OVERRIDES positional; the help's footer lists the config groups.
void AddConfigOptions(CLI::App& app, ConfigArgs& args);

// Parses `args`; returns an exit code when the program should stop
// (help printed: 0; parse error: usage). An unknown option is an error
// with the nearest known one suggested.
std::optional<int> Parse(CLI::App& app, const std::vector<std::string>& args);

// Refuses -m and sweep overrides (profile and trace run those through
// cmd_multirun.h first), then composes.
Result<config::Composition> ComposeFromArgs(const ConfigArgs& args);

// --cfg and --info: prints what they ask for and returns 0 (stop); nullopt
// when neither was given.
std::optional<int> AnswerHydraQuery(const ConfigArgs& args, const config::Composition& composed);

// The config groups of the built-in tree (folders with options) and their
// options, for --help: "config groups (GROUP=OPTION):" and one line each.
std::string ConfigGroupsHelp();

}  // namespace llmpo::cli
