#include "src/pipeline/trace_job.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

#include "src/analysis/trace_summary.h"
#include "src/ingest/input_file.h"
#include "src/ingest/llmpo_trace.h"
#include "src/pipeline/commands.h"
#include "src/pipeline/outputs.h"
#include "src/pipeline/rank_plan.h"
#include "src/pipeline/workload.h"

namespace llmpo::pipeline {
namespace fs = std::filesystem;

std::vector<fs::path> TraceFiles(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("trace.", 0) == 0 && e.path().extension() == ".tsv") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

Result<fs::path> FindTracerLibrary() {
  if (const char* env = std::getenv("LLMPO_TRACER_LIBRARY"); env != nullptr && *env) {
    if (fs::exists(env)) return fs::path(env);
    return MakeError(ExitStatus::kNotBuilt, fmt::format("LLMPO_TRACER_LIBRARY names {}, which does not exist", env));
  }
  // Next to the binary (build tree, bundles), else where an install puts it.
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  const fs::path next_to_us = self.parent_path() / "libllmpo_tracer.so";
  const fs::path installed = self.parent_path().parent_path() / "lib/llm-perf-opt/libllmpo_tracer.so";
  for (const fs::path& candidate : {next_to_us, installed}) {
    if (!ec && fs::exists(candidate, ec)) return candidate;
  }
  return MakeError(ExitStatus::kNotBuilt, fmt::format("the tracer library is not built ({} and {} are missing)",
                                                      next_to_us.string(), installed.string()))
      .WithNote(
          "build it with the CUDA toolkit's NVTX headers present (cmake --build --preset release), or set "
          "LLMPO_TRACER_LIBRARY to its path");
}

Result<report::TraceOutputs> LoadTraceOutputs(const fs::path& run_dir) {
  const fs::path dir = run_dir / "trace";
  const auto files = TraceFiles(dir);
  if (files.empty()) {
    return MakeError(ExitStatus::kInput, fmt::format("{} holds no trace.*.tsv: the program made no NVTX or CUDA call, "
                                                     "or the tracer was not loaded",
                                                     dir.string()));
  }
  report::TraceOutputs outputs;
  for (const auto& f : files) {
    // As `import` checks its inputs: a FIFO or a device named trace.*.tsv
    // is an input error, never a read that blocks or never ends.
    RETURN_IF_ERROR(ingest::CheckInputFile(f));
    std::ifstream in(f, std::ios::binary);
    model::Diagnostics diagnostics;
    ASSIGN_OR_RETURN(model::TraceData trace,
                     ingest::ImportLlmpoTrace(in, fs::relative(f, run_dir).string(), diagnostics));
    outputs.diagnostics.Merge(diagnostics);
    outputs.traces.push_back(std::move(trace));
    outputs.files.push_back(f);
    outputs.file_diagnostics.push_back(std::move(diagnostics));
  }
  outputs.summaries = analysis::Summarize(outputs.traces);
  return outputs;
}

Result<std::vector<std::string>> WriteTraceFiles(const fs::path& run_dir, const report::TraceOutputs& traced) {
  report::ReportSet set;
  set.trace = &traced;
  return WriteOutputs(run_dir, set, TraceOutputRows(), /*whole_set=*/false);
}

ProfileOutcome RunTrace(RunFolder& run, const std::vector<std::string>& workload, const fs::path& library,
                        const RegionOptions& regions, const ExecuteOptions& options,
                        const std::optional<LaunchSplit>& launch) {
  CommandContext ctx;
  std::error_code ec;
  // ranks may start in another folder (srun --chdir, a remote node's home): absolute names
  ctx.run_dir = launch ? fs::absolute(run.dir(), ec) : run.dir();
  ctx.workload = workload;
  ctx.tracer_library = library;
  ctx.launch = launch;
  ctx.self = SelfExecutable();
  ProfileOptions tracer_only;
  tracer_only.trace = true;
  const std::vector<PlannedCommand> plan =
      launch ? PlanUnderLauncher(tracer_only, ctx) : std::vector<PlannedCommand>{BuildTraceCommand(ctx)};
  return ExecuteProfile(run, plan, Workload{workload, false, true}, regions, options);
}

}  // namespace llmpo::pipeline
