#include "src/pipeline/profile_job.h"

#include <fmt/format.h>
#include <string.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "src/analysis/kernel_aggregator.h"
#include "src/core/atomic_file.h"
#include "src/core/csv_reader.h"
#include "src/ingest/importer.h"
#include "src/pipeline/environment.h"
#include "src/pipeline/process.h"
#include "src/pipeline/progress.h"
#include "src/pipeline/run_reports.h"
#include "src/pipeline/tool_version.h"
#include "src/pipeline/trace_job.h"

namespace llmpo::pipeline {
namespace fs = std::filesystem;
namespace {

std::string ToolOf(const std::string& step) { return step.substr(0, step.find('-')); }

bool FileMentions(const fs::path& file, std::string_view text) {
  auto content = ReadWholeFile(file);
  return content.ok() && content->find(text) != std::string::npos;
}

// The names of the `count` kernels with the most GPU time in nsys' summary.
Result<std::vector<std::string>> TopKernelNames(const fs::path& summary, int count) {
  std::ifstream in(summary, std::ios::binary);
  if (!in) return MakeError(ExitStatus::kInput, fmt::format("cannot read {}", summary.string()));
  analysis::KernelAggregator kernels;
  model::Diagnostics diagnostics;
  ingest::ImportContext ctx{summary.string(), kernels, diagnostics};
  RETURN_IF_ERROR(ingest::ImportNsysStatsCsv(in, ctx));
  std::vector<std::string> names;
  for (const auto& k : kernels.Sorted()) {
    if (static_cast<int>(names.size()) == count) break;
    names.push_back(k.name);
  }
  if (names.empty()) return MakeError(ExitStatus::kInput, fmt::format("{} lists no kernels", summary.string()));
  return names;
}

// The mangled names of the first `count` kernels of our tracer's summary
// (it lists them by GPU time, largest first).
Result<std::vector<std::string>> TopMangledNames(const fs::path& summary, int count) {
  std::ifstream in(summary, std::ios::binary);
  if (!in) return MakeError(ExitStatus::kInput, fmt::format("cannot read {}", summary.string()));
  CsvReader reader(in);
  std::vector<std::string_view> fields;
  if (!reader.Next(fields)) return MakeError(ExitStatus::kInput, fmt::format("{} is empty", summary.string()));
  const auto column = std::find(fields.begin(), fields.end(), "Mangled Name") - fields.begin();
  if (column == static_cast<std::ptrdiff_t>(fields.size())) {
    return MakeError(ExitStatus::kInput, fmt::format("{} has no \"Mangled Name\" column", summary.string()));
  }
  std::vector<std::string> names;
  while (static_cast<int>(names.size()) < count && reader.Next(fields)) {
    if (static_cast<std::size_t>(column) < fields.size()) names.emplace_back(fields[static_cast<std::size_t>(column)]);
  }
  if (names.empty()) return MakeError(ExitStatus::kInput, fmt::format("{} lists no kernels", summary.string()));
  return names;
}

class Executor {
 public:
  Executor(RunFolder& run, const RegionOptions& regions, const ExecuteOptions& options)
      : run_(run), regions_(regions), options_(options) {}

  void Run(const std::vector<PlannedCommand>& plan, const Workload& workload) {
    for (std::size_t i = 0; i < plan.size(); ++i) {
      PlannedCommand cmd = plan[i];
      const std::string tool = ToolOf(cmd.step);
      if (cmd.step == "ncu" && options_.top_kernels > 0 && !ChooseTopKernels(cmd)) {
        Skip(cmd, top_reason_, tool);
        failed_tools_.insert(tool);
        continue;
      }
      if (cmd.step == tool) WriteCmdTxt(cmd);  // the main command of a tool, as cmd.txt
      if (std::string why = Blocker(cmd, tool, workload); !why.empty()) {
        Skip(cmd, why, tool);
        continue;
      }
      RunOne(cmd, tool);
      if (stop_.stopped()) {
        for (std::size_t j = i + 1; j < plan.size(); ++j) Skip(plan[j], "not run: interrupted", "");
        break;
      }
    }
    ImportOutputs();
    RecordEverything();
  }

  ProfileOutcome outcome() const { return outcome_; }

 private:
  // Puts the top kernels of the nsys summary into the ncu command.
  bool ChooseTopKernels(PlannedCommand& cmd) {
    // nsys' summary when nsys ran, else the tracer's (same shape).
    const char* source = succeeded_.count("nsys-stats") ? "nsys" : succeeded_.count("trace-summaries") ? "trace" : "";
    if (*source == 0) {
      top_reason_ = "not run: pipeline.ncu.top_kernels needs the timeline's kernel summary, which was not made";
      Fail(ExitStatus::kToolFailed, top_reason_);
      return false;
    }
    // nsys names kernels demangled, as ncu's `demangled` base does; our trace
    // also keeps CUPTI's mangled names, which ncu's `mangled` base matches exactly.
    const bool trace = std::string_view(source) == "trace";
    const fs::path summary = run_.dir() / source / "summary_cuda_gpu_kern_sum.csv";
    auto names = trace ? TopMangledNames(summary, options_.top_kernels) : TopKernelNames(summary, options_.top_kernels);
    Result<Argv> argv = names.ok() ? options_.rebuild_ncu(KernelNamesRegex(*names), trace ? "mangled" : "demangled")
                                   : Result<Argv>(names.error());
    if (!argv.ok()) {
      top_reason_ = "not run: choosing the top kernels failed: " + argv.error().message;
      Fail(argv.error().kind, top_reason_);
      return false;
    }
    cmd.argv = std::move(argv).value();
    return true;
  }

  // Why a command cannot run, or "".
  std::string Blocker(const PlannedCommand& cmd, const std::string& tool, const Workload& workload) {
    if (failed_tools_.count(tool)) return fmt::format("not run: an earlier {} step did not complete", tool);
    if (tool == "trace") {
      const std::string lib = cmd.argv[1].substr(cmd.argv[1].find('=') + 1);
      if (!fs::exists(lib)) {
        Fail(ExitStatus::kNotBuilt, "the tracer library is not built");
        failed_tools_.insert(tool);
        return fmt::format(
            "the tracer library {} is not built: build it (cmake --build --preset release) or set "
            "LLMPO_TRACER_LIBRARY; the command is in trace/cmd.txt",
            lib);
      }
    } else if (!FindOnPath(tool)) {
      Fail(ExitStatus::kToolMissing, fmt::format("{} is not on PATH", tool));
      failed_tools_.insert(tool);
      return fmt::format(
          "{} not found on PATH: install it or add it to PATH (llm-perf-opt doctor checks); the "
          "command is in {}/cmd.txt",
          tool, tool);
    }
    if (cmd.step == tool && workload.bundled && !workload.exists) {
      Fail(ExitStatus::kToolMissing, "the bundled workload is not built");
      failed_tools_.insert(tool);
      return fmt::format(
          "the bundled workload {} is not built: build the workloads, or give your program with "
          "`profile -- CMD ARGS...`",
          workload.argv[0]);
    }
    return "";
  }

  void RunOne(const PlannedCommand& cmd, const std::string& tool) {
    std::error_code ec;
    fs::create_directories(run_.dir() / tool, ec);
    const std::string out = cmd.stdout_to.empty() ? fmt::format("{}/{}.stdout.log", tool, cmd.step) : cmd.stdout_to;
    const std::string err = fmt::format("{}/{}.stderr.log", tool, cmd.step);
    StepRecord step;
    step.name = cmd.step;
    step.argv = cmd.argv;
    step.log = err;
    auto result = RunWithProgress(cmd, run_.dir() / out, run_.dir() / err);
    run_.RecordArtifact(out);
    run_.RecordArtifact(err);
    if (!result.ok()) {
      step.status = StepStatus::kFailed;
      step.reason = result.error().message;
      Fail(ExitStatus::kToolMissing, step.reason);
      failed_tools_.insert(tool);
    } else {
      step.exit_code = result->exit_code;
      step.duration_s = result->duration_s;
      if (stop_.stopped()) {
        step.status = StepStatus::kInterrupted;
        step.reason = fmt::format("interrupted by {}{}", strsignal(stop_.signal()->load()),
                                  result->forwarded_signal ? "; the signal was passed on to the tool" : "");
      } else if (result->timed_out) {
        step.status = StepStatus::kFailed;
        step.reason = fmt::format(
            "{} timed out after {:g} s (pipeline.step_timeout_s) and was stopped; raise the limit, or profile "
            "fewer kernels (launch_count, kernel filters, top_kernels)",
            cmd.step, options_.step_timeout_s);
        Fail(ExitStatus::kToolFailed, step.reason);
        failed_tools_.insert(tool);
      } else if (result->exit_code != 0) {
        step.status = StepStatus::kFailed;
        step.reason = FailureReason(cmd, tool, result->exit_code, run_.dir() / out, run_.dir() / err);
        if (std::string too_old = tool == "trace" ? "" : TooOld(tool); !too_old.empty()) step.reason += "; " + too_old;
        Fail(ExitStatus::kToolFailed, step.reason);
        failed_tools_.insert(tool);
      } else {
        step.status = StepStatus::kOk;
        succeeded_.insert(cmd.step);
      }
    }
    run_.AddStep(step);
    if (tool == "trace" && !stop_.stopped()) SummariseTrace();
    (void)run_.WriteManifest(RunStatus::kRunning);
  }

  // The tracer's summaries, right after its run (the top kernels need them).
  void SummariseTrace() {
    StepRecord step;
    step.name = "trace-summaries";
    auto written = WriteTraceSummaries(run_.dir());
    if (written.ok()) {
      step.status = StepStatus::kOk;
      for (const auto& f : *written) run_.RecordArtifact(f);
      succeeded_.insert(step.name);
    } else {
      step.status = StepStatus::kFailed;
      step.reason = written.error().Render();
      Fail(written.error().kind, step.reason);
    }
    run_.AddStep(step);
  }

  Result<ProcessResult> RunWithProgress(const PlannedCommand& cmd, const fs::path& out, const fs::path& err) {
    StepSpec spec;
    spec.argv = cmd.argv;
    spec.stdout_file = out;
    spec.stderr_file = err;
    spec.timeout_s = options_.step_timeout_s;
    spec.stop_signal = stop_.signal();
    return RunStepWithProgress(options_.Runner(), std::move(spec), cmd.step, options_.progress,
                               options_.progress_terminal);
  }

  // After a failure: is the tool older than the commands need? Its
  // `--version` output stays in TOOL/version.txt.
  std::string TooOld(const std::string& tool) {
    const fs::path file = run_.dir() / tool / "version.txt";
    StepSpec spec;
    spec.argv = {tool, "--version"};
    spec.stdout_file = file;
    spec.stderr_file = file;
    spec.timeout_s = 60;
    auto ran = options_.Runner().Run(spec);
    auto text = ReadWholeFile(file);
    return ran.ok() && text.ok() ? TooOldMessage(tool, *text) : "";
  }

  static std::string FailureReason(const PlannedCommand& cmd, const std::string& tool, int code, const fs::path& out,
                                   const fs::path& err) {
    std::string reason = fmt::format("{} exited with {}", cmd.step, code);
    if (FileMentions(out, "No kernels were profiled") || FileMentions(err, "No kernels were profiled")) {
      reason +=
          ": ncu profiled no kernel. Check the kernel and NVTX filters (push/pop ranges need a trailing '/', "
          "named domains DOMAIN@range/) and launch-skip/count";
    } else if (FileMentions(out, "No ranges were profiled") || FileMentions(err, "No ranges were profiled")) {
      reason += ": no range matched. Range replay needs NVTX includes that match ranges around CUDA work";
    } else if (FileMentions(out, "ERR_NVGPUCTRPERM") || FileMentions(err, "ERR_NVGPUCTRPERM")) {
      reason += ": no permission for GPU performance counters (see llm-perf-opt doctor)";
    } else {
      reason += fmt::format("; see {}/{}.stderr.log", tool, cmd.step);
    }
    return reason;
  }

  void Skip(const PlannedCommand& cmd, const std::string& why, const std::string& tool) {
    StepRecord step;
    step.name = cmd.step;
    step.argv = cmd.argv;
    step.status = StepStatus::kSkipped;
    step.reason = why;
    run_.AddStep(step);
    if (stop_.stopped() && outcome_.status != RunStatus::kInterrupted) {
      outcome_ = {RunStatus::kInterrupted, ExitStatus::kInterrupted, "interrupted by a signal"};
    }
    (void)tool;
  }

  void WriteCmdTxt(const PlannedCommand& cmd) {
    const std::string tool = ToolOf(cmd.step);
    (void)run_.WriteArtifact(tool + "/cmd.txt", ShellQuote(cmd.argv) + "\n");
  }

  void Fail(ExitStatus code, const std::string& reason) {
    if (outcome_.exit == ExitStatus::kOk) outcome_ = {RunStatus::kFailed, code, reason};
  }

  void ImportOutputs() {
    if (stop_.stopped()) outcome_ = {RunStatus::kInterrupted, ExitStatus::kInterrupted, "interrupted by a signal"};
    // ncu's saved report alone will do: it is read natively when its CSV
    // export failed.
    if (!succeeded_.count("nsys-export") && !succeeded_.count("ncu-export-details") && !succeeded_.count("ncu") &&
        !succeeded_.count("trace-summaries")) {
      return;
    }
    (void)run_.WriteManifest(RunStatus::kRunning);  // the reports read the steps from run.json
    auto written = BuildRunReports(run_.dir(), regions_);
    StepRecord step;
    step.name = "report";
    if (!written.ok()) {
      step.status = StepStatus::kFailed;
      step.reason = written.error().Render();
      Fail(written.error().kind, step.reason);
    } else {
      step.status = StepStatus::kOk;
      for (const auto& file : *written) run_.RecordArtifact(file);
    }
    run_.AddStep(step);
    // Some steps ran and produced reports although others failed: partial.
    if (outcome_.status == RunStatus::kFailed && !succeeded_.empty()) outcome_.status = RunStatus::kPartial;
  }

  // Whatever the tools wrote (reports, exports) joins the artifact list.
  void RecordEverything() {
    std::error_code ec;
    std::vector<std::string> found;
    for (auto it = fs::recursive_directory_iterator(run_.dir(), ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (it->is_regular_file()) found.push_back(fs::relative(it->path(), run_.dir()).string());
    }
    std::sort(found.begin(), found.end());
    for (const auto& f : found) {
      if (f != "run.json") run_.RecordArtifact(f);
    }
  }

  RunFolder& run_;
  const RegionOptions& regions_;
  const ExecuteOptions& options_;
  StopSignals stop_;  // the tool has its own process group: RunStep passes these on
  std::string top_reason_;
  ProfileOutcome outcome_;
  std::set<std::string> failed_tools_;
  std::set<std::string> succeeded_;
};

}  // namespace

ProfileOutcome ExecuteProfile(RunFolder& run, const std::vector<PlannedCommand>& plan, const Workload& workload,
                              const RegionOptions& regions, const ExecuteOptions& options) {
  Executor executor(run, regions, options);
  executor.Run(plan, workload);
  return executor.outcome();
}

}  // namespace llmpo::pipeline
