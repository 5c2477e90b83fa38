// Command builders: pure functions from the composed configuration to the
// argv of every tool the profile pipeline runs. Never a shell string; the
// golden tests pin these lists.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "src/config/node.h"
#include "src/core/result.h"

namespace llmpo::pipeline {

using Argv = std::vector<std::string>;

struct PlannedCommand {
  std::string step;  // "nsys", "ncu", "ncu-export-details", ...
  Argv argv;
  std::string stdout_to;  // a file (relative to the run folder) that receives stdout, or ""
};

struct CommandContext {
  std::filesystem::path run_dir;                // where outputs go (commands name files inside it)
  Argv workload;                                // the program to profile
  std::optional<std::string> kernel_regex;      // ncu --kernel-name regex built from the timeline's top kernels
  std::filesystem::path tracer_library;         // libllmpo_tracer.so, for pipeline.trace.enable
  std::optional<std::string> kernel_name_base;  // overrides the config's with kernel_regex (tracer: mangled)
};

// ncu's NVTX include/exclude expressions from the config value (a string,
// a ';'-separated string as in the seeds, or a list): one expression each;
// a plain range name gets the trailing '/' that push/pop matching needs
// (names with '/', '[', ']' or ',' are kept as written).
std::vector<std::string> NvtxExpressions(const config::Node* value);

// `ncu ... WORKLOAD`, writing ncu/<name>.ncu-rep.
Result<Argv> BuildNcuCommand(const config::Node& config, const CommandContext& ctx);
// CSV pages exported from the saved report, so the reports come from the artifact.
std::vector<PlannedCommand> BuildNcuExports(const config::Node& config, const CommandContext& ctx);

// `nsys profile ... WORKLOAD`, then `nsys stats` and `nsys export`.
Result<Argv> BuildNsysCommand(const config::Node& config, const CommandContext& ctx);
std::vector<PlannedCommand> BuildNsysPostprocessing(const CommandContext& ctx);

// `env NVTX_INJECTION64_PATH=LIB CUDA_INJECTION64_PATH=LIB LLMPO_TRACE_FILE=... WORKLOAD`:
// the workload under our tracer (pipeline.trace.enable), writing trace/.
Argv BuildTraceCommand(const CommandContext& ctx);

// What is legal but will most likely profile nothing, checked before a run:
// range or app-range replay with no range source (no NVTX include, and the
// workload neither bundled, whose ranges are NVTX, nor marked with
// pipeline.workload.cuda_profiler_api=true). Each says how to fix it.
std::vector<Error> NcuWarnings(const config::Node& config, bool bundled_workload);

// pipeline.ncu.top_kernels as a count (0: off). Needs a timeline: nsys or
// the tracer enabled.
Result<int> TopKernelCount(const config::Node& config);

// pipeline.step_timeout_s in seconds (0: no limit).
Result<double> StepTimeout(const config::Node& config);

// The --kernel-name regex that matches exactly these kernel names.
std::string KernelNamesRegex(const std::vector<std::string>& names);

// Every command of a profile run, in order (enabled steps only). With
// top_kernels the ncu command carries a placeholder regex until the nsys
// summary exists (the run rebuilds it then).
Result<std::vector<PlannedCommand>> PlanProfile(const config::Node& config, const CommandContext& ctx);

// One argv as a POSIX shell would need it typed (for cmd.txt and --dry-run).
std::string ShellQuote(const Argv& argv);

}  // namespace llmpo::pipeline
