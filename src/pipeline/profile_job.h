// Runs the planned profile commands in order, step by step: each command's
// output goes to files in the run folder, each step's argv, exit code,
// duration and log land in run.json (rewritten after every step), and the
// ncu/nsys outputs are imported into kernels.md/json and the region report.
// A missing tool, a failing command, a timeout, Ctrl-C or SIGTERM (passed on
// to the running tool's process group) stops what depends on it; what was
// made so far stays and is listed.
#pragma once

#include <cstdio>
#include <functional>
#include <vector>

#include "src/config/node.h"
#include "src/core/exit_status.h"
#include "src/pipeline/commands.h"
#include "src/pipeline/process.h"
#include "src/pipeline/region_options.h"
#include "src/pipeline/run_folder.h"
#include "src/pipeline/workload.h"

namespace llmpo::pipeline {

struct ProfileOutcome {
  RunStatus status = RunStatus::kOk;
  ExitStatus exit = ExitStatus::kOk;
  std::string reason;
};

// Rebuilds the ncu argv with a kernel-name regex over names of the given
// --kernel-name-base (for pipeline.ncu.top_kernels).
using NcuRebuilder = std::function<Result<Argv>(const std::string& regex, const std::string& name_base)>;

struct ExecuteOptions {
  int top_kernels = 0;  // pipeline.ncu.top_kernels (0: off); needs rebuild_ncu
  NcuRebuilder rebuild_ncu;
  double step_timeout_s = 0;  // pipeline.step_timeout_s (0: none)
  // Where live progress goes (nullptr: nowhere) and whether it is a terminal.
  std::FILE* progress = nullptr;
  bool progress_terminal = false;
  // Starts the tools and the workload (nullptr: SystemRunner()).
  ProcessRunner* runner = nullptr;
  ProcessRunner& Runner() const { return runner != nullptr ? *runner : SystemRunner(); }
};

ProfileOutcome ExecuteProfile(RunFolder& run, const std::vector<PlannedCommand>& plan, const Workload& workload,
                              const RegionOptions& regions, const ExecuteOptions& options = {});

}  // namespace llmpo::pipeline
