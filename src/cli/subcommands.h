// The subcommands, in one table that drives dispatch, help and "did you mean".
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace llmpo::cli {

// Arguments after the subcommand name, and the full command line for run.json.
struct Invocation {
  std::vector<std::string> args;
  std::vector<std::string> command_line;
};

using Handler = int (*)(const Invocation&);

struct Subcommand {
  std::string_view name;
  std::string_view usage;
  std::string_view summary;
  Handler handler;
};

std::span<const Subcommand> AllSubcommands();

int RunConfig(const Invocation& inv);
int RunProfile(const Invocation& inv);
int RunReport(const Invocation& inv);
int RunImport(const Invocation& inv);
int RunDoctor(const Invocation& inv);
int RunTrace(const Invocation& inv);
int RunCompare(const Invocation& inv);
int RunMerge(const Invocation& inv);
// Internal: the per-rank wrapper profile/trace put under a launcher (not in the table).
int RunRankExec(const std::vector<std::string>& args);

// Entry point: argv[0] excluded.
int Main(const std::vector<std::string>& args);

}  // namespace llmpo::cli
