// Multi-rank launchers in a workload command (`torchrun ...`, `mpirun ...`,
// `srun ...`, nested as `srun ... torchrun ...`): which one, and where its
// own options end and the program of every rank begins, so that a profiler
// can be put between the two (launcher ... profiler ... program: one output
// per rank, the form NVIDIA documents for nsys and ncu across nodes).
// Pure functions of the argv and pipeline.launcher; docs/multirank.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/core/result.h"

namespace llmpo::pipeline {

enum class LauncherKind { kTorchrun, kMpirun, kSrun };

std::string ToString(LauncherKind kind);

// A workload split at its innermost launcher.
struct LaunchSplit {
  std::vector<LauncherKind> chain;  // outermost first; the last one starts the ranks
  std::vector<std::string> launcher;  // the launcher part, to run as is
  std::vector<std::string> program;   // what each rank runs
  std::string note;                   // what was changed, e.g. torchrun's --no_python added ("" : nothing)
  LauncherKind innermost() const { return chain.back(); }
};

// pipeline.launcher: "auto" (detect from the command), "none" (never
// split: the profiler goes outside, one report for the whole tree), or a
// launcher name that argv[0] is taken for (a site's wrapper script).
// nullopt: no launcher (or "none"). A usage error when a launcher's
// options never reach a program, naming the launcher and the fix.
Result<std::optional<LaunchSplit>> SplitLauncher(const std::vector<std::string>& argv, const std::string& setting);

// The launcher kind a program name stands for ("torchrun", "mpirun",
// "mpiexec", "orterun", "mpiexec.hydra", "srun", ...), or nullopt.
std::optional<LauncherKind> LauncherOf(const std::string& program);

}  // namespace llmpo::pipeline
