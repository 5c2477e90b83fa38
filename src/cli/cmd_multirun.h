// `profile -m` and `trace -m`: Hydra's multirun (docs/sweeps.md).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "src/cli/parse_args.h"
#include "src/cli/subcommands.h"

namespace llmpo::cli {

struct SweepArgs {
  bool resume = false;  // --resume: the sweep folder must hold this sweep already
  bool yes = false;     // --yes: run a sweep of many points without asking
};

void AddSweepOptions(CLI::App& app, SweepArgs& args);

// Plans the sweep from the overrides, composes every point, then prints
// them (--cfg, --dry-run) or runs them and writes the sweep report.
int RunMultirun(const std::string& command, const ConfigArgs& config, const SweepArgs& sweep, bool dry_run,
                const std::vector<std::string>& workload_argv, const Invocation& inv);

}  // namespace llmpo::cli
