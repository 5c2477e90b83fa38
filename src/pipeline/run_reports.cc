#include "src/pipeline/run_reports.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "src/config/node_path.h"
#include "src/config/scalar.h"
#include "src/config/yaml_io.h"
#include "src/ingest/input_file.h"
#include "src/pipeline/import_job.h"
#include "src/pipeline/manifest.h"
#include "src/pipeline/mfu_options.h"
#include "src/pipeline/rank_plan.h"
#include "src/pipeline/step_outputs.h"
#include "src/pipeline/trace_job.h"

namespace llmpo::pipeline {
namespace fs = std::filesystem;
namespace {

Result<nlohmann::json> ReadJson(const fs::path& file) {
  ASSIGN_OR_RETURN(std::string text, ReadRunFile(file));
  auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return MakeError(ExitStatus::kInput, fmt::format("{}: not valid JSON", file.string()));
  return json;
}

// The run as its reports describe it; its steps as run.json records them
// (typed in `manifest`, for deciding what to import).
Result<report::RunContext> ReadRunContext(const fs::path& run_dir, const RunManifest& manifest) {
  report::RunContext run;
  run.run_name = run_dir.filename().string();
  for (const auto& step : manifest.steps) {
    if (step.name == "report") continue;  // written after these reports
    run.steps.push_back(
        report::RunContext::Step{step.name, std::string(ToString(step.status)), step.reason, step.exit_code});
  }
  // env.json may be missing or damaged (the GPU is then not named), but a
  // FIFO or a device there is refused like any other run file.
  const fs::path env_file = run_dir / "env.json";
  if (std::error_code ec; fs::exists(fs::symlink_status(env_file, ec))) {
    RETURN_IF_ERROR(ingest::CheckInputFile(env_file));
  }
  if (auto env = ReadJson(env_file); env.ok() && env->contains("gpu") && (*env)["gpu"].is_string()) {
    run.gpu = (*env)["gpu"].get<std::string>();
  }
  ASSIGN_OR_RETURN(std::string inputs_text, ReadRunFile(run_dir / "inputs.yaml"));
  ASSIGN_OR_RETURN(config::Node inputs, config::LoadYaml(inputs_text, (run_dir / "inputs.yaml").string()));
  if (const auto* argv = config::FindPath(inputs, config::SplitKey("workload.argv")); argv && argv->is_array()) {
    for (const auto& a : *argv) run.workload.push_back(config::ScalarToText(a));
  }
  ASSIGN_OR_RETURN(std::string config_text, ReadRunFile(run_dir / "config.yaml"));
  ASSIGN_OR_RETURN(config::Node config, config::LoadYaml(config_text, (run_dir / "config.yaml").string()));
  ASSIGN_OR_RETURN(MfuOptions mfu, MfuOptionsFromConfig(config));
  static_cast<report::ModelInputs&>(run) = std::move(mfu);
  return run;
}

// How a rank's run ended, in a few words.
std::string EndedText(const RankRecord& r) {
  if (!r.finished) return "no end recorded";
  if (r.signal)
    return r.stopped_from_outside ? fmt::format("stopped (signal {})", *r.signal) : fmt::format("signal {}", *r.signal);
  return r.exit_code ? fmt::format("exit {}", *r.exit_code) : "no end recorded";
}

// The ranks of the run's first step that ran under a launcher, as rank-exec
// recorded them in ranks/ (the first record of a rank claimed twice).
std::vector<analysis::RankWho> LaunchedRanks(const fs::path& run_dir, const RunManifest& manifest) {
  for (const auto& step : manifest.steps) {
    const std::vector<RankRecord> records = ReadRankRecords(RankRecordDir(run_dir).string(), step.name);
    if (records.empty()) continue;
    std::vector<analysis::RankWho> out;
    for (const RankRecord& r : records) {
      if (!r.who.rank || (!out.empty() && out.back().rank == *r.who.rank)) continue;
      analysis::RankWho who;
      who.rank = *r.who.rank;
      if (!r.who.host.empty()) who.hosts.push_back(r.who.host);
      who.world_size = r.who.world_size;
      who.local_rank = r.who.local_rank;
      who.node = r.who.node;
      who.visible_devices = r.who.cuda_visible_devices;
      who.ended = EndedText(r);
      out.push_back(std::move(who));
    }
    return out;
  }
  return {};
}

}  // namespace

// The launcher rank of a per-rank export step ("nsys-export.rank3",
// "ncu-export-details.rank3"); none for other steps.
std::optional<std::int64_t> StepRank(const std::string& step) {
  const auto at = step.rfind(".rank");
  return at == std::string::npos ? std::nullopt : RankNumber(std::string_view(step).substr(at + 5));
}

Result<RegionOptions> RunRegionOptions(const fs::path& run_dir) {
  ASSIGN_OR_RETURN(std::string text, ReadRunFile(run_dir / "config.yaml"));
  ASSIGN_OR_RETURN(config::Node config, config::LoadYaml(text, (run_dir / "config.yaml").string()));
  return RegionOptionsFromConfig(config);
}

Result<std::vector<std::string>> BuildRunReports(const fs::path& run_dir, const RegionOptions& regions,
                                                 const report::TraceOutputs* traced) {
  ASSIGN_OR_RETURN(const RunManifest manifest, ReadManifest(run_dir));
  ASSIGN_OR_RETURN(report::RunContext run, ReadRunContext(run_dir, manifest));
  run.launched_ranks = LaunchedRanks(run_dir, manifest);
  ImportRequest request;
  // nsys' SQLite export, or one per numbered report (repeat:N: nsys-export.1, ...).
  for (const ManifestStep& step : manifest.steps) {
    if (step.status != StepStatus::kOk || !(step.name == "nsys-export" || step.name.starts_with("nsys-export.")))
      continue;
    const std::string output = ArgValue(step.argv, "--output");
    // by its name in this folder: a run folder may have moved since
    request.inputs.push_back(run_dir / "nsys" /
                             (output.empty() ? fs::path("run.sqlite") : fs::path(output).filename()));
    if (const auto rank = StepRank(step.name)) request.input_ranks[request.inputs.back().string()] = *rank;
  }
  // The CSV export when it was made, else the saved report itself (read
  // natively: a run folder copied to a machine without ncu, or an export
  // step that failed).
  // Under a launcher: one export per profiled rank (ncu-export-details.rankN).
  for (const ManifestStep& step : manifest.steps) {
    if (step.status != StepStatus::kOk || !step.name.starts_with("ncu-export-details.rank")) continue;
    request.inputs.push_back(run_dir / "ncu" / ("details" + step.name.substr(18) + ".csv"));
    if (const auto rank = StepRank(step.name)) request.input_ranks[request.inputs.back().string()] = *rank;
  }
  if (manifest.Succeeded("ncu-export-details")) {
    request.inputs.push_back(run_dir / "ncu" / "details.csv");
  } else if (std::error_code ec;
             manifest.Succeeded("ncu") && fs::is_regular_file(run_dir / "ncu" / "profile.ncu-rep", ec)) {
    request.inputs.push_back(run_dir / "ncu" / "profile.ncu-rep");
  }
  request.out_dir = run_dir;
  request.regions = regions;
  request.regions_subdir = "ncu/regions";
  // Only the tracer ran (`trace`, or `profile` with the tracer alone): the
  // reports come from its traces, read once (by the run, or here), which
  // also give the trace/ files and the page's timeline. ("trace-reports":
  // trace runs of earlier versions.)
  std::optional<report::TraceOutputs> loaded;
  if (request.inputs.empty() && (manifest.Succeeded("trace-summaries") || manifest.Succeeded("trace-reports"))) {
    if (traced == nullptr) {
      ASSIGN_OR_RETURN(loaded, LoadTraceOutputs(run_dir));
      traced = &*loaded;
    }
    request.inputs = traced->files;
    request.regions_subdir = "trace/regions";
    request.trace = traced;
    request.timeline = report::BuildTimelineOverview(traced->traces);
    request.trace_json_link = "trace/trace.json";
  }
  request.run_folder = run;
  request.label_base = run_dir;
  ASSIGN_OR_RETURN(ImportOutcome outcome, RunImport(request));
  if (!outcome.failures.empty()) return outcome.failures.front();
  return outcome.written;
}

}  // namespace llmpo::pipeline
