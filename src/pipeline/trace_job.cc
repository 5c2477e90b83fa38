#include "src/pipeline/trace_job.h"

#include <fmt/format.h>
#include <string.h>

#include <algorithm>
#include <fstream>

#include "src/analysis/trace_summary.h"
#include "src/ingest/llmpo_trace.h"
#include "src/pipeline/import_job.h"
#include "src/pipeline/outputs.h"
#include "src/pipeline/process.h"
#include "src/pipeline/progress.h"
#include "src/report/trace_report.h"

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

// The raw traces, with or without GPU work: they keep the NVTX tree and its
// CPU times (the summary CSVs beside them are flat, for people and nsys users).
std::vector<fs::path> TraceReportInputs(const fs::path& trace_dir) { return TraceFiles(trace_dir); }

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

std::optional<report::TimelineOverview> TraceTimeline(const fs::path& run_dir) {
  auto outputs = LoadTraceOutputs(run_dir);  // WriteTraceSummaries reports why it fails
  if (!outputs.ok()) return std::nullopt;
  return report::BuildTimelineOverview(outputs->traces);
}

Result<std::vector<std::string>> WriteTraceSummaries(const fs::path& run_dir) {
  ASSIGN_OR_RETURN(const report::TraceOutputs outputs, LoadTraceOutputs(run_dir));
  report::ReportSet set;
  set.trace = &outputs;
  return WriteOutputs(run_dir, set, TraceOutputRows(), /*whole_set=*/false);
}

Result<std::vector<std::string>> BuildTraceReports(const fs::path& run_dir, const RegionOptions& regions) {
  // The traces are read here once for their summaries, trace.json and the
  // page's timeline; the import reads them for kernels and regions.
  ASSIGN_OR_RETURN(const report::TraceOutputs outputs, LoadTraceOutputs(run_dir));
  ImportRequest request;
  request.trace = &outputs;
  request.timeline = report::BuildTimelineOverview(outputs.traces);
  request.trace_json_link = "trace/trace.json";
  request.html_run = report::RunContext{};
  request.html_run->run_name = run_dir.filename().string();
  request.inputs = TraceReportInputs(run_dir / "trace");
  request.out_dir = run_dir;
  request.regions = regions;
  request.regions_subdir = "trace/regions";
  request.label_base = run_dir;
  ASSIGN_OR_RETURN(ImportOutcome outcome, RunImport(request));
  return outcome.written;
}

TraceOutcome RunTrace(RunFolder& run, const std::vector<std::string>& workload, const fs::path& library,
                      const RegionOptions& regions, const ExecuteOptions& options) {
  TraceOutcome outcome;
  std::error_code ec;
  fs::create_directories(run.dir() / "trace", ec);
  StepSpec spec;
  spec.argv = workload;
  spec.stdout_file = run.dir() / "trace" / "workload.stdout.log";
  spec.stderr_file = run.dir() / "trace" / "workload.stderr.log";
  spec.env = {"NVTX_INJECTION64_PATH=" + library.string(), "CUDA_INJECTION64_PATH=" + library.string(),
              "LLMPO_TRACE_FILE=" + (run.dir() / "trace" / "trace.%p.tsv").string()};
  spec.timeout_s = options.step_timeout_s;
  StopSignals stop;  // the program has its own process group: RunStep passes these on
  spec.stop_signal = stop.signal();
  auto result =
      RunStepWithProgress(options.Runner(), std::move(spec), "trace", options.progress, options.progress_terminal);

  StepRecord step{"trace", StepStatus::kOk, "", workload, std::nullopt, 0, "trace/workload.stderr.log"};
  if (!result.ok()) {
    step.status = StepStatus::kFailed;
    step.reason = result.error().message;
    outcome = {RunStatus::kFailed, ExitStatus::kToolMissing, step.reason};
  } else {
    step.exit_code = result->exit_code;
    step.duration_s = result->duration_s;
    if (stop.stopped()) {
      step.status = StepStatus::kInterrupted;
      step.reason =
          fmt::format("interrupted by {}; the signal was passed on to the program", strsignal(stop.signal()->load()));
      outcome = {RunStatus::kInterrupted, ExitStatus::kInterrupted, "interrupted by a signal"};
    } else if (result->timed_out) {
      step.status = StepStatus::kFailed;
      step.reason = fmt::format("the program timed out after {:g} s (pipeline.step_timeout_s)", options.step_timeout_s);
      outcome = {RunStatus::kFailed, ExitStatus::kToolFailed, step.reason};
    } else if (result->exit_code != 0) {
      step.status = StepStatus::kFailed;
      step.reason = fmt::format("the program exited with {}; see trace/workload.stderr.log", result->exit_code);
      outcome = {RunStatus::kFailed, ExitStatus::kToolFailed, step.reason};
    }
  }
  run.AddStep(step);
  (void)run.WriteManifest(RunStatus::kRunning);
  // Whatever was traced is summarised, even after a failure or an interrupt.
  StepRecord reports{"trace-reports", StepStatus::kOk, "", {}, std::nullopt, 0, ""};
  auto written = BuildTraceReports(run.dir(), regions);
  if (written.ok()) {
    for (const auto& f : *written) run.RecordArtifact(f);
    if (outcome.status == RunStatus::kFailed) outcome.status = RunStatus::kPartial;
  } else {
    reports.status = StepStatus::kFailed;
    reports.reason = written.error().Render();
    if (outcome.exit == ExitStatus::kOk) outcome = {RunStatus::kFailed, written.error().kind, reports.reason};
  }
  run.AddStep(reports);
  for (const auto& f : TraceFiles(run.dir() / "trace")) run.RecordArtifact("trace/" + f.filename().string());
  run.RecordArtifact("trace/workload.stdout.log");
  run.RecordArtifact("trace/workload.stderr.log");
  return outcome;
}

}  // namespace llmpo::pipeline
