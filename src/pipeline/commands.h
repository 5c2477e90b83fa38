// Command builders: pure functions from the typed profiling options
// (profile_options.h, read once from the composed configuration) to the
// argv of every tool the profile pipeline runs. Never a shell string; the
// golden tests pin these lists.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "src/core/result.h"
#include "src/pipeline/launcher.h"
#include "src/pipeline/profile_options.h"
#include "src/pipeline/tool_probe.h"

namespace llmpo::pipeline {

using Argv = std::vector<std::string>;

struct PlannedCommand {
  std::string step;  // "nsys", "ncu", "ncu-export-details", ...
  Argv argv;
  std::string stdout_to;              // a file (relative to the run folder) that receives stdout, or ""
  std::vector<std::string> env = {};  // "NAME=VALUE" set for the program only (the tracer's injection)
  bool per_rank = false;  // the tool runs inside a launcher, once per rank (rank_plan.h); records in ranks/
};

// The command as it can be typed (cmd.txt, --dry-run, run.json): argv, after
// `env NAME=VALUE...` when the command sets variables.
Argv CommandLine(const PlannedCommand& cmd);

struct CommandContext {
  std::filesystem::path run_dir;                // where outputs go (commands name files inside it)
  Argv workload;                                // the program to profile
  std::optional<std::string> kernel_regex;      // ncu --kernel-name regex built from the timeline's top kernels
  std::filesystem::path tracer_library;         // libllmpo_tracer.so, for pipeline.trace.enable
  std::optional<std::string> kernel_name_base;  // overrides the config's with kernel_regex (tracer: mangled)
  const InstalledTools* tools = nullptr;        // the probed ncu/nsys (null: the newest grammar)
  std::string output_suffix;                    // after the output names (".rank{rank}" under a launcher)
  // The workload's launcher (pipeline.launcher): every tool then runs inside
  // it, once per rank, through `SELF rank-exec` (rank_plan.h).
  std::optional<LaunchSplit> launch;
  std::filesystem::path self;  // this program, for rank-exec
};

// `ncu ... WORKLOAD`, writing ncu/<name>.ncu-rep.
Argv BuildNcuCommand(const NcuOptions& ncu, const CommandContext& ctx);
// CSV pages exported from the saved report, so the reports come from the artifact.
std::vector<PlannedCommand> BuildNcuExports(const NcuOptions& ncu, const CommandContext& ctx);

// `nsys profile ... WORKLOAD`, then `nsys stats` and `nsys export`.
Argv BuildNsysCommand(const NsysOptions& nsys, const CommandContext& ctx);
std::vector<PlannedCommand> BuildNsysPostprocessing(const CommandContext& ctx);

// The workload under our tracer (pipeline.trace.enable), writing trace/:
// step "trace", with NVTX_INJECTION64_PATH=LIB CUDA_INJECTION64_PATH=LIB
// LLMPO_TRACE_FILE=... set for the program.
PlannedCommand BuildTraceCommand(const CommandContext& ctx);

// What is legal but will most likely profile nothing, checked before a run:
// range or app-range replay with no range source (no NVTX include, and the
// workload neither bundled, whose ranges are NVTX, nor marked with
// pipeline.workload.cuda_profiler_api=true). Each says how to fix it.
std::vector<Error> NcuWarnings(const ProfileOptions& options, bool bundled_workload);

// The --kernel-name regex that matches exactly these kernel names.
std::string KernelNamesRegex(const std::vector<std::string>& names);

// Every command of a profile run, in order (enabled steps only). With
// top_kernels the ncu command carries a placeholder regex until the
// timeline exists (the run rebuilds it then).
std::vector<PlannedCommand> PlanProfile(const ProfileOptions& options, const CommandContext& ctx);

// One argv as a POSIX shell would need it typed (for cmd.txt and --dry-run).
std::string ShellQuote(const Argv& argv);

}  // namespace llmpo::pipeline
