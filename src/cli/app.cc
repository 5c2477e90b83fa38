#include <fmt/format.h>

#include <iostream>

#include "src/cli/diagnostics.h"
#include "src/cli/subcommands.h"
#include "src/core/exit_status.h"
#include "src/core/spellcheck.h"
#include "src/core/version.h"

namespace llmpo::cli {
namespace {

constexpr Subcommand kSubcommands[] = {
    {"profile", "profile [OVERRIDES...] [-- WORKLOAD ARGV...]",
     "run the configured profiling pipeline and write a run folder", RunProfile},
    {"report", "report RUN_DIR", "regenerate every report of a run from its artifacts", RunReport},
    {"import", "import PATH... --out DIR", "build reports from existing ncu/nsys outputs", RunImport},
    {"config", "config [OVERRIDES...]", "print the composed, resolved configuration", RunConfig},
    {"doctor", "doctor", "check the GPU, driver, CUDA, ncu and nsys on this machine", RunDoctor},
    {"trace", "trace [OVERRIDES...] -- CMD...", "record an NVTX/CUDA timeline without nsys", RunTrace},
};

void PrintHelp(std::ostream& out) {
  out << fmt::format(
      "{} {}: profile CUDA programs with Nsight Systems and Nsight Compute,\n"
      "scoped to NVTX regions, and report per region and per kernel.\n\n"
      "usage: {} SUBCOMMAND [ARGS...]\n\nsubcommands:\n",
      kToolName, kToolVersion, kToolName);
  for (const auto& sub : kSubcommands) out << fmt::format("  {:<46} {}\n", sub.usage, sub.summary);
  out << fmt::format("\n'{} SUBCOMMAND --help' describes one subcommand.\n\nexit codes:\n", kToolName);
  for (const auto& info : AllExitStatuses()) {
    out << fmt::format("  {:>3}  {:<13} {}\n", ToInt(info.status), info.name, info.meaning);
  }
}

const Subcommand* Find(std::string_view name) {
  for (const auto& sub : kSubcommands) {
    if (sub.name == name) return &sub;
  }
  return nullptr;
}

int UnknownSubcommand(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& sub : kSubcommands) names.emplace_back(sub.name);
  Error e = MakeError(ExitStatus::kUsage, fmt::format("unknown subcommand '{}'", name));
  if (auto near = ClosestMatch(name, names)) std::move(e).WithNote(fmt::format("did you mean '{}'?", *near));
  std::move(e).WithNote(fmt::format("run '{} --help' for the list", kToolName));
  return ReportError(e);
}

}  // namespace

std::span<const Subcommand> AllSubcommands() { return kSubcommands; }

int Main(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    PrintHelp(args.empty() ? std::cerr : std::cout);
    return ToInt(args.empty() ? ExitStatus::kUsage : ExitStatus::kOk);
  }
  if (args[0] == "--version") {
    std::cout << kToolName << " " << kToolVersion << "\n";
    return 0;
  }
  const Subcommand* sub = Find(args[0]);
  if (sub == nullptr) return UnknownSubcommand(args[0]);
  Invocation inv;
  inv.args.assign(args.begin() + 1, args.end());
  inv.command_line.push_back(kToolName);
  inv.command_line.insert(inv.command_line.end(), args.begin(), args.end());
  return sub->handler(inv);
}

}  // namespace llmpo::cli
