// `profile`: compose the config, make the run folder and its provenance
// files, then run the enabled steps (profile_job) and import what they made.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>

#include "src/cli/cmd_multirun.h"
#include "src/cli/diagnostics.h"
#include "src/cli/parse_args.h"
#include "src/cli/run_common.h"
#include "src/config/node_path.h"
#include "src/config/yaml_io.h"
#include "src/core/version.h"
#include "src/pipeline/commands.h"
#include "src/pipeline/environment.h"
#include "src/pipeline/mfu_options.h"
#include "src/pipeline/profile_job.h"
#include "src/pipeline/rank_plan.h"
#include "src/pipeline/region_options.h"
#include "src/pipeline/run_folder.h"
#include "src/pipeline/trace_job.h"
#include "src/pipeline/workload.h"

namespace llmpo::cli {
namespace {

using config::Node;
using pipeline::RunFolder;
using pipeline::RunStatus;
using pipeline::StepRecord;
using pipeline::StepStatus;

struct ProfileArgs {
  ConfigArgs config;
  SweepArgs sweep;
  std::vector<std::string> workload_argv;
  bool dry_run = false;
};

// A disabled tool's step, listed so run.json says why it did not run.
void AddDisabledSteps(RunFolder& run, const pipeline::ProfileOptions& profiling) {
  const std::pair<const char*, bool> tools[] = {
      {"trace", profiling.trace}, {"nsys", profiling.nsys.enable}, {"ncu", profiling.ncu.enable}};
  for (const auto& [name, enabled] : tools) {
    const std::string key = fmt::format("pipeline.{}.enable", name);
    if (enabled) continue;
    StepRecord step;
    step.name = name;
    step.status = StepStatus::kSkipped;
    step.reason = fmt::format("disabled ({}=false)", key);
    run.AddStep(step);
  }
}

int DryRun(const std::string& dir, const pipeline::Workload& workload,
           const std::vector<pipeline::PlannedCommand>& plan) {
  std::cout << fmt::format(
      "# llm-perf-opt profile --dry-run: the commands a run would execute, in order\n"
      "# run folder: {}\n",
      dir);
  if (workload.bundled && !workload.exists) {
    std::cout << fmt::format("# note: the bundled workload {} is not built yet\n", workload.argv[0]);
  }
  if (plan.empty()) {
    std::cout << "# nothing to run: pipeline.nsys.enable and pipeline.ncu.enable are both false\n";
  }
  for (const auto& cmd : plan) {
    std::cout << fmt::format("# step {}{}\n{}\n", cmd.step,
                             cmd.stdout_to.empty() ? "" : fmt::format(" (stdout to {}/{})", dir, cmd.stdout_to),
                             pipeline::ShellQuote(pipeline::CommandLine(cmd)));
  }
  return 0;
}

int Execute(const ProfileArgs& args, const Invocation& inv) {
  auto composed = ComposeFromArgs(args.config);
  if (!composed.ok()) return ReportError(composed.error());
  Node& config = composed->config;
  if (!args.workload_argv.empty()) config["pipeline"]["workload"]["argv"] = args.workload_argv;
  if (auto stop = AnswerHydraQuery(args.config, *composed)) return *stop;

  auto dir = RunDir(config);
  if (!dir.ok()) return ReportError(dir.error());
  auto workload = pipeline::ResolveWorkload(config);
  if (!workload.ok()) return ReportError(workload.error());
  std::error_code ec;
  pipeline::CommandContext ctx{std::filesystem::absolute(*dir, ec), workload->argv, std::nullopt, {}, std::nullopt};
  auto tracer = pipeline::FindTracerLibrary();
  ctx.tracer_library = tracer.ok() ? *tracer : std::filesystem::path("<libllmpo_tracer.so: not built>");
  auto profiling = pipeline::ReadProfileOptions(config);
  if (!profiling.ok()) return ReportError(profiling.error());
  // A launcher in the command (pipeline.launcher): the tools go inside it, one output per rank.
  auto launch = pipeline::LaunchOf(workload->argv, workload->bundled, *profiling);
  if (!launch.ok()) return ReportError(launch.error());
  ctx.launch = *launch;
  ctx.self = pipeline::SelfExecutable();
  if (ctx.launch && !ctx.launch->note.empty()) Verbose() << fmt::format("{}: {}\n", kToolName, ctx.launch->note);
  // The installed ncu/nsys, probed once: the commands are built for them.
  const pipeline::InstalledTools tools =
      pipeline::ProbeTools(pipeline::SystemRunner(), profiling->ncu.enable, profiling->nsys.enable);
  ctx.tools = &tools;
  if (auto refused = pipeline::CheckInstalledTools(*profiling, tools); !refused.empty()) {
    for (std::size_t i = 1; i < refused.size(); ++i) ReportWarning(refused[i]);
    return ReportError(refused.front());
  }
  for (const auto& note : pipeline::AdaptationNotes(*profiling, tools)) {
    ReportWarning(MakeError(ExitStatus::kOk, note));
  }
  const std::vector<pipeline::PlannedCommand> plan = pipeline::PlanProfile(*profiling, ctx);
  for (const auto& warning : pipeline::NcuWarnings(*profiling, workload->bundled)) ReportWarning(warning);
  Verbose() << fmt::format("{}: workload: {}{}\n", kToolName, pipeline::ShellQuote(workload->argv),
                           workload->bundled ? (workload->exists ? " (bundled)" : " (bundled, not built)") : "");
  Verbose() << fmt::format("{}: tracer library: {}\n", kToolName, ctx.tracer_library.string());
  for (const auto& cmd : plan) {
    Verbose() << fmt::format("{}: step {} will run: {}\n", kToolName, cmd.step,
                             pipeline::ShellQuote(pipeline::CommandLine(cmd)));
  }
  if (auto mfu = pipeline::MfuOptionsFromConfig(config); !mfu.ok()) return ReportError(mfu.error());
  if (args.dry_run) return DryRun(ctx.run_dir.string(), *workload, plan);
  auto run = ClaimRunFolder(*composed, *dir, inv.command_line);
  if (!run.ok()) return ReportError(run.error());
  if (auto s = WriteProvenance(*run, config, *workload); !s.ok()) return ReportError(s.error());
  run->SetTools(pipeline::ToolsJson(tools));

  auto regions = pipeline::RegionOptionsFromConfig(config);
  if (!regions.ok()) {
    (void)run->WriteManifest(RunStatus::kFailed, regions.error().message);
    return ReportError(regions.error());
  }
  AddDisabledSteps(*run, *profiling);
  pipeline::ExecuteOptions options;
  options.top_kernels = profiling->ncu.top_kernels;
  options.rebuild_ncu = [&](const std::string& regex, const std::string& name_base) -> Result<pipeline::Argv> {
    pipeline::CommandContext with_regex = ctx;
    with_regex.kernel_regex = regex;
    with_regex.kernel_name_base = name_base;
    return pipeline::BuildNcuCommand(profiling->ncu, with_regex);
  };
  options.step_timeout_s = profiling->step_timeout_s;
  options.progress = ProgressFile();
  options.progress_terminal = options.progress != nullptr && isatty(STDERR_FILENO) != 0;
  const pipeline::ProfileOutcome outcome = pipeline::ExecuteProfile(*run, plan, *workload, *regions, options);
  if (auto s = run->WriteManifest(outcome.status, outcome.reason); !s.ok()) return ReportError(s.error());
  PrintSummary(*run, outcome.status);
  if (outcome.exit != ExitStatus::kOk) {
    return ReportError(
        MakeError(outcome.exit, fmt::format("profile run {}: {}", pipeline::ToString(outcome.status), outcome.reason))
            .WithNote(fmt::format("artifacts so far are listed in {}/run.json", run->dir().string())));
  }
  return 0;
}

}  // namespace

int RunProfile(const Invocation& inv) {
  CLI::App app{"Run the configured profiling pipeline; results go to a new run folder (hydra.run.dir).",
               "llm-perf-opt profile"};
  ProfileArgs args;
  app.add_flag("--dry-run", args.dry_run, "print the commands the run would execute, in order, and stop");
  AddConfigOptions(app, args.config);
  AddSweepOptions(app, args.sweep);
  const std::vector<std::string> own = SplitWorkload(inv.args, args.workload_argv);
  if (auto stop = Parse(app, own)) return *stop;
  if (args.config.multirun) return RunMultirun("profile", args.config, args.sweep, args.dry_run, args.workload_argv, inv);
  return Execute(args, inv);
}

}  // namespace llmpo::cli
