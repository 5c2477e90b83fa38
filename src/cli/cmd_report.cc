#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "src/cli/diagnostics.h"
#include "src/cli/parse_args.h"
#include "src/pipeline/manifest.h"
#include "src/pipeline/run_lock.h"
#include "src/pipeline/run_reports.h"
#include "src/pipeline/trace_job.h"

namespace llmpo::cli {

int RunReport(const Invocation& inv) {
  CLI::App app{"Regenerate every report of a run from its folder (byte-identical to what the run wrote).",
               "llm-perf-opt report"};
  std::string dir;
  app.add_option("run_dir", dir, "the run folder (it holds run.json)")->required();
  if (auto stop = Parse(app, inv.args)) return *stop;
  // A run still going has a held lock; a finished run removed it, and the
  // lock of one that died is stale: neither stops the rebuild.
  pipeline::LockOwner owner;
  if (pipeline::ProbeRunLock(dir, &owner) == pipeline::LockState::kHeld) {
    return ReportError(
        MakeError(ExitStatus::kUsage, fmt::format("the run in '{}' is still running (pid {})", dir, owner.pid))
            .WithNote("wait until it has finished; its run.json then has the final status"));
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(std::filesystem::path(dir) / "run.json", ec)) {
    return ReportError(MakeError(ExitStatus::kInput, fmt::format("'{}' is not a run folder: it has no run.json", dir))
                           .WithNote("give the folder a profile run wrote, e.g. tmp/profile-output/<run_id>"));
  }
  auto regions = pipeline::RunRegionOptions(dir);
  if (!regions.ok()) return ReportError(std::move(regions).error().WithContext("reading the run's config.yaml"));
  // A profile run or a trace run: the same report builder reads which steps
  // succeeded in run.json and imports their outputs.
  auto written = pipeline::BuildRunReports(dir, *regions);
  if (!written.ok()) return ReportError(written.error());
  for (const auto& file : *written) {
    if (file.starts_with("trace/regions/") && !file.starts_with("trace/regions/report.")) continue;
    if (!file.starts_with("ncu/regions/") || file == "ncu/regions/report.md" || file == "ncu/regions/report.json") {
      Out() << fmt::format("wrote {}/{}\n", dir, file);
    }
  }
  return 0;
}

}  // namespace llmpo::cli
