// `trace [OVERRIDES...] -- CMD...`: the program under our NVTX + CUPTI tracer
// (docs/trace.md); without CMD, the bundled workload the config selects.
#include <fmt/format.h>
#include <unistd.h>

#include <iostream>

#include "src/cli/cmd_multirun.h"
#include "src/cli/diagnostics.h"
#include "src/cli/parse_args.h"
#include "src/cli/run_common.h"
#include "src/cli/subcommands.h"
#include "src/core/version.h"
#include "src/pipeline/commands.h"
#include "src/pipeline/rank_plan.h"
#include "src/pipeline/region_options.h"
#include "src/pipeline/trace_job.h"

namespace llmpo::cli {

int RunTrace(const Invocation& inv) {
  CLI::App app{"Run a program under the NVTX/CUPTI tracer; the trace and its summaries go to a new run folder.",
               "llm-perf-opt trace"};
  ConfigArgs config_args;
  std::vector<std::string> workload_argv;
  SweepArgs sweep_args;
  bool dry_run = false;
  app.add_flag("--dry-run", dry_run, "print the run folder and the program (with -m: every point) and stop");
  AddConfigOptions(app, config_args);
  AddSweepOptions(app, sweep_args);
  const std::vector<std::string> own = SplitWorkload(inv.args, workload_argv);
  if (auto stop = Parse(app, own)) return *stop;
  if (config_args.multirun) return RunMultirun("trace", config_args, sweep_args, dry_run, workload_argv, inv);

  auto composed = ComposeFromArgs(config_args);
  if (!composed.ok()) return ReportError(composed.error());
  config::Node& config = composed->config;
  if (!workload_argv.empty()) config["pipeline"]["workload"]["argv"] = workload_argv;
  if (auto stop = AnswerHydraQuery(config_args, *composed)) return *stop;
  // The tracer alone (--cfg job above shows the config as composed): the
  // run's config.yaml says so, and no ncu or nsys setting is checked or used.
  config["pipeline"]["trace"]["enable"] = true;
  config["pipeline"]["nsys"]["enable"] = false;
  config["pipeline"]["ncu"]["enable"] = false;
  auto dir = RunDir(config);
  if (!dir.ok()) return ReportError(dir.error());
  auto workload = pipeline::ResolveWorkload(config);
  if (!workload.ok()) return ReportError(workload.error());
  if (workload->bundled && !workload->exists) {
    return ReportError(
        MakeError(ExitStatus::kNotBuilt, fmt::format("the bundled workload {} is not built", workload->argv[0]))
            .WithNote("build the workloads, or give your program with `trace -- CMD ARGS...`"));
  }
  auto profiling = pipeline::ReadProfileOptions(config);
  if (!profiling.ok()) return ReportError(profiling.error());
  auto launch = pipeline::LaunchOf(workload->argv, workload->bundled, *profiling);
  if (!launch.ok()) return ReportError(launch.error());
  if (dry_run) {
    Out() << fmt::format("# llm-perf-opt trace --dry-run\n# run folder: {}\n{}\n", *dir,
                         pipeline::ShellQuote(workload->argv));
    if (*launch) {
      Out() << fmt::format("# under {}: the tracer goes inside it, one trace per rank (docs/multirank.md){}\n",
                           pipeline::ToString((*launch)->innermost()),
                           (*launch)->note.empty() ? "" : "; " + (*launch)->note);
    }
    return 0;
  }
  auto library = pipeline::FindTracerLibrary();
  if (!library.ok()) return ReportError(library.error());
  Verbose() << fmt::format("{}: workload: {}\n", kToolName, pipeline::ShellQuote(workload->argv));
  Verbose() << fmt::format("{}: tracer library: {}\n", kToolName, library->string());
  auto regions = pipeline::RegionOptionsFromConfig(config);
  if (!regions.ok()) return ReportError(regions.error());
  if (*launch) {
    Verbose() << fmt::format("{}: launcher: {}; the tracer goes inside it, one trace per rank{}\n", kToolName,
                             pipeline::ToString((*launch)->innermost()),
                             (*launch)->note.empty() ? "" : "; " + (*launch)->note);
  }

  auto run = ClaimRunFolder(*composed, *dir, inv.command_line);
  if (!run.ok()) return ReportError(run.error());
  if (auto s = WriteProvenance(*run, config, *workload); !s.ok()) return ReportError(s.error());
  pipeline::ExecuteOptions options;
  options.step_timeout_s = profiling->step_timeout_s;
  options.progress = ProgressFile();
  options.progress_terminal = options.progress != nullptr && isatty(STDERR_FILENO) != 0;
  const auto outcome = pipeline::RunTrace(*run, workload->argv, *library, *regions, options, *launch);
  if (auto s = run->WriteManifest(outcome.status, outcome.reason); !s.ok()) return ReportError(s.error());
  PrintSummary(*run, outcome.status);
  if (outcome.exit != ExitStatus::kOk) {
    return ReportError(
        MakeError(outcome.exit, fmt::format("trace run {}: {}", pipeline::ToString(outcome.status), outcome.reason))
            .WithNote(fmt::format("artifacts so far are listed in {}/run.json", run->dir().string())));
  }
  return 0;
}

}  // namespace llmpo::cli
