#include "src/pipeline/profile_job.h"

#include <fmt/format.h>
#include <string.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "src/analysis/kernel_aggregator.h"
#include "src/core/atomic_file.h"
#include "src/ingest/input_file.h"
#include "src/pipeline/environment.h"
#include "src/pipeline/nsys_agent.h"
#include "src/pipeline/process.h"
#include "src/pipeline/progress.h"
#include "src/pipeline/rank_plan.h"
#include "src/pipeline/run_reports.h"
#include "src/pipeline/step_outputs.h"
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

// The demangled names of the `count` kernels with the most GPU time in a
// timeline export (nsys' SQLite), over every process and device.
Result<std::vector<std::string>> TopKernelNames(const fs::path& timeline, int count) {
  analysis::KernelAggregator kernels;
  model::Diagnostics diagnostics;
  ingest::ImportContext ctx{timeline.string(), kernels, diagnostics};
  RETURN_IF_ERROR(ingest::ImportFile(timeline, ingest::InputOptions{timeline.parent_path(), nullptr}, ctx, nullptr));
  std::map<std::string, double> by_name;
  for (const auto& k : kernels.Sorted()) by_name[k.name] += k.total_ns;
  std::vector<std::pair<std::string, double>> ranked(by_name.begin(), by_name.end());
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> names;
  for (const auto& [name, ns] : ranked) {
    if (static_cast<int>(names.size()) == count) break;
    names.push_back(name);
  }
  if (names.empty()) return MakeError(ExitStatus::kInput, fmt::format("{} holds no kernels", timeline.string()));
  return names;
}

// The mangled names of the `count` kernels with the most GPU time in the
// tracer's traces (their summary lists kernels by GPU time, largest first).
Result<std::vector<std::string>> TopMangledNames(const report::TraceOutputs& traced, int count) {
  std::vector<std::string> names;
  for (const auto& k : traced.summaries.kernels) {
    if (static_cast<int>(names.size()) == count) break;
    names.push_back(k.mangled);
  }
  if (names.empty()) return MakeError(ExitStatus::kInput, "the traces hold no kernels");
  return names;
}

// The value of NAME in "NAME=VALUE" entries; "" when absent.
std::string EnvValue(const std::vector<std::string>& env, std::string_view name) {
  for (const auto& e : env) {
    if (e.size() > name.size() && e.starts_with(name) && e[name.size()] == '=') return e.substr(name.size() + 1);
  }
  return "";
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
      for (const PlannedCommand& per_rank : PerRankReports(cmd, run_.dir())) {  // one per rank report
        for (const PlannedCommand& one : PerNumberedReport(per_rank)) {  // repeat:N, ranks: one per nsys report
          RunOne(one, tool);
          if (stop_.stopped()) break;
        }
        if (stop_.stopped()) break;
      }
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
  // Puts the top kernels of the run's timeline into the ncu command: nsys'
  // export when nsys ran, else the tracer's traces, as they were collected
  // (no summary CSV is read back).
  bool ChooseTopKernels(PlannedCommand& cmd) {
    const bool nsys = succeeded_.count("nsys-export") > 0;
    if (!nsys && !traced_) {
      top_reason_ =
          "not run: pipeline.ncu.top_kernels needs the timeline (nsys' export or the tracer's traces), which was not "
          "made";
      Fail(ExitStatus::kToolFailed, top_reason_);
      return false;
    }
    // nsys names kernels demangled, as ncu's `demangled` base does; our trace
    // also keeps CUPTI's mangled names, which ncu's `mangled` base matches exactly.
    const bool trace = !nsys;
    auto names = trace ? TopMangledNames(*traced_, options_.top_kernels)
                       : TopKernelNames(run_.dir() / "nsys" / "run.sqlite", options_.top_kernels);
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
      // under a launcher, the variables are rank-exec's --env arguments
      const std::string lib = EnvValue(cmd.per_rank ? cmd.argv : cmd.env, "NVTX_INJECTION64_PATH");
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
    step.argv = CommandLine(cmd);
    step.log = err;
    auto result = RunWithProgress(cmd, run_.dir() / out, run_.dir() / err);
    const bool retry = result.ok() && !stop_.stopped() && !result->timed_out &&
                       NsysSessionFlake(cmd, result->exit_code, run_.dir() / out, run_.dir() / err);
    if (retry) {
      StopNsysAgents(result->pid);
      result = RunWithProgress(cmd, run_.dir() / out, run_.dir() / err);
    }
    run_.RecordArtifact(out);
    run_.RecordArtifact(err);
    if (!result.ok()) {
      step.status = StepStatus::kFailed;
      step.reason = result.error().message;
      Fail(ExitStatus::kToolMissing, step.reason);
      failed_tools_.insert(tool);
    } else {
      // An agent nsys left behind (a failure, a timeout, an interrupt) is stopped.
      const bool agent_left = cmd.step == "nsys" && StopNsysAgents(result->pid) > 0;
      Judge(step, cmd, tool, *result, run_.dir() / out, run_.dir() / err);
      if (cmd.per_rank && step.status != StepStatus::kInterrupted) JudgeRanks(step, cmd, *result);
      if (agent_left) step.reason += (step.reason.empty() ? "" : "; ") + std::string("nsys left its agent process "
                                     "(nsys --start-agent) running; it was stopped");
      if (retry) step.reason += (step.reason.empty() ? "" : "; ") + std::string("the first try ended \"End of file\" "
                                "(nsys could not reach its agent) and was run once more");
    }
    run_.AddStep(step);
    // What was traced is summarised after a failure or an interrupt too.
    if (tool == "trace" && step.status != StepStatus::kSkipped) SummariseTrace();
    (void)run_.WriteManifest(RunStatus::kRunning);
  }

  // How a step that ran ended: interrupted, timed out, failed (its exit
  // status, or outputs missing or reported as errors), or ok.
  void Judge(StepRecord& step, const PlannedCommand& cmd, const std::string& tool, const ProcessResult& result,
             const fs::path& out, const fs::path& err) {
    step.exit_code = result.exit_code;
    step.duration_s = result.duration_s;
    step.status = StepStatus::kFailed;
    if (stop_.stopped()) {
      step.status = StepStatus::kInterrupted;
      step.reason = fmt::format("interrupted by {}{}", strsignal(stop_.signal()->load()),
                                result.forwarded_signal ? "; the signal was passed on to the tool" : "");
      return;
    }
    if (result.timed_out) {
      step.reason = fmt::format("{} timed out after {:g} s (pipeline.step_timeout_s) and was stopped; {}", cmd.step,
                                options_.step_timeout_s,
                                tool == "trace"  ? "raise the limit, or run the program for less time"
                                : tool == "nsys" ? "raise the limit, or capture less (pipeline.nsys.capture_range="
                                                   "nvtx with nvtx_capture, a shorter run)"
                                                 : "raise the limit, or profile fewer kernels (launch_count, "
                                                   "kernel filters, top_kernels)");
    } else if (result.exit_code != 0 && !NormalEnding(cmd, result.exit_code)) {
      step.reason = FailureReason(cmd, tool, result.exit_code, out, err);
      if (std::string too_old = tool == "trace" ? "" : TooOld(tool); !too_old.empty()) step.reason += "; " + too_old;
    } else if (std::string problem = tool == "trace" ? ""
                                     : cmd.per_rank  ? PerRankOutputProblem(cmd, run_.dir())
                                                     : StepOutputProblem(cmd, run_.dir(), out, err);
               !problem.empty()) {
      step.reason = fmt::format("{}; see {}/{}.stderr.log", problem, tool, cmd.step);
      Fail(ExitStatus::kToolFailed, step.reason);
      if (cmd.step == tool) failed_tools_.insert(tool);  // a failed post-processing step blocks no other
      return;
    } else {
      step.status = StepStatus::kOk;
      succeeded_.insert(cmd.step);
      return;
    }
    Fail(ExitStatus::kToolFailed, step.reason);
    // Under a launcher, what the other ranks made is still post-processed.
    if (!cmd.per_rank || !PerRankOutputProblem(cmd, run_.dir()).empty()) failed_tools_.insert(tool);
  }

  // A per-rank step (rank_plan.h): the ranks' records say which rank failed
  // or hung, which never started, which were claimed twice.
  void JudgeRanks(StepRecord& step, const PlannedCommand& cmd, const ProcessResult& result) {
    const RankOutcome ranks = pipeline::JudgeRanks(run_.dir(), cmd, result.timed_out);
    if (ranks.problems.empty()) return;
    step.reason += (step.reason.empty() ? "" : "; ") + ranks.problems + " (" + ranks.summary + ")";
    if (step.status == StepStatus::kOk) {
      step.status = StepStatus::kFailed;
      succeeded_.erase(cmd.step);
      Fail(ExitStatus::kToolFailed, step.reason);
    } else if (outcome_.reason.starts_with(cmd.step)) {
      outcome_.reason = step.reason;
    }
  }

  // The tracer's traces, read once right after its run (the top kernels and
  // the reports use them), and the trace/ files made from them.
  void SummariseTrace() {
    StepRecord step;
    step.name = "trace-summaries";
    auto loaded = LoadTraceOutputs(run_.dir());
    Result<std::vector<std::string>> written =
        loaded.ok() ? WriteTraceFiles(run_.dir(), *loaded) : Result<std::vector<std::string>>(loaded.error());
    if (loaded.ok()) traced_ = std::move(loaded).value();
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
    // The program itself is started, with the command's variables: one that
    // cannot be started is reported as such (not as `env`'s exit 127).
    spec.argv = cmd.argv;
    spec.env = cmd.env;
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
      if (std::string said = FirstErrorLine(out, err); !said.empty()) reason += fmt::format(": \"{}\"", said);
      reason += fmt::format("; see {}/{}.stderr.log", tool, cmd.step);
    }
    return reason;
  }

  void Skip(const PlannedCommand& cmd, const std::string& why, const std::string& tool) {
    StepRecord step;
    step.name = cmd.step;
    step.argv = CommandLine(cmd);
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
    (void)run_.WriteArtifact(tool + "/cmd.txt", ShellQuote(CommandLine(cmd)) + "\n");
  }

  void Fail(ExitStatus code, const std::string& reason) {
    if (outcome_.exit == ExitStatus::kOk) outcome_ = {RunStatus::kFailed, code, reason};
  }

  void ImportOutputs() {
    if (stop_.stopped()) outcome_ = {RunStatus::kInterrupted, ExitStatus::kInterrupted, "interrupted by a signal"};
    // ncu's saved report alone will do: it is read natively when its CSV
    // export failed.
    const bool exported = std::any_of(succeeded_.begin(), succeeded_.end(),
                                      [](const std::string& s) { return s.starts_with("nsys-export"); });
    if (!exported && !succeeded_.count("ncu-export-details") && !succeeded_.count("ncu") &&
        !succeeded_.count("trace-summaries")) {
      return;
    }
    (void)run_.WriteManifest(RunStatus::kRunning);  // the reports read the steps from run.json
    auto written = BuildRunReports(run_.dir(), regions_, traced_ ? &*traced_ : nullptr);
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
  std::optional<report::TraceOutputs> traced_;  // the tracer's traces, once read
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
