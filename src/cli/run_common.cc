#include "src/cli/run_common.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "src/cli/diagnostics.h"
#include "src/config/node_path.h"
#include "src/config/yaml_io.h"
#include "src/pipeline/environment.h"
#include "src/report/json_writer.h"

namespace llmpo::cli {

using config::Node;
using pipeline::RunFolder;
using pipeline::RunStatus;

std::vector<std::string> SplitWorkload(const std::vector<std::string>& args, std::vector<std::string>& workload) {
  auto dashes = std::find(args.begin(), args.end(), "--");
  if (dashes != args.end()) workload.assign(dashes + 1, args.end());
  return {args.begin(), dashes};
}

Result<std::string> RunDir(const Node& config) {
  const Node* dir = config::FindPath(config, config::SplitKey("hydra.run.dir"));
  if (dir == nullptr || !dir->is_string() || dir->get<std::string>().empty()) {
    return MakeError(ExitStatus::kUsage, "hydra.run.dir must be a non-empty path")
        .WithNote("set it with hydra.run.dir=PATH");
  }
  return dir->get<std::string>();
}

Result<RunFolder> ClaimRunFolder(const config::Composition& composed, const std::string& dir,
                                 const std::vector<std::string>& command_line) {
  const Node* raw = config::FindPath(composed.unresolved, config::SplitKey("hydra.run.dir"));
  pipeline::CreateOptions options;
  options.unique = raw != nullptr && raw->is_string() && raw->get<std::string>().find("${now:") != std::string::npos;
  auto run = RunFolder::Create(dir, command_line, options);
  if (run.ok() && !run->lock_note().empty()) {
    ReportWarning(MakeError(ExitStatus::kOk, run->lock_note())
                      .WithNote("its files stay; this run's run.json lists only what this run makes"));
  }
  return run;
}

namespace {

Node InputsDocument(const Node& config, const pipeline::Workload& w) {
  Node workload = Node::object();
  const Node* model = config::FindPath(config, config::SplitKey("model.name"));
  workload["model"] = (w.bundled && model) ? *model : Node(nullptr);
  workload["bundled"] = w.bundled;
  workload["argv"] = w.argv;
  return Node{{"workload", workload}};
}

}  // namespace

Status WriteProvenance(RunFolder& run, const Node& config, const pipeline::Workload& workload) {
  RETURN_IF_ERROR(run.WriteArtifact("config.yaml", config::EmitYaml(config)));
  RETURN_IF_ERROR(run.WriteArtifact(
      "env.json", report::JsonFileText(pipeline::DescribeEnvironment())));
  RETURN_IF_ERROR(run.WriteArtifact("inputs.yaml", config::EmitYaml(InputsDocument(config, workload))));
  return run.WriteManifest(RunStatus::kRunning);
}

void PrintSummary(const RunFolder& run, RunStatus status) {
  Out() << fmt::format("run folder: {}\n", run.dir().string());
  for (const auto& step : run.steps()) {
    Out() << fmt::format("  step {}: {}{}\n", step.name, pipeline::ToString(step.status),
                         step.reason.empty() ? "" : ": " + step.reason);
  }
  Out() << fmt::format("artifacts: {} run.json\n", fmt::join(run.artifacts(), " "));
  Out() << fmt::format("status: {}\n", pipeline::ToString(status));
}

Result<std::optional<pipeline::RunLock>> ClaimOutputFolder(const std::string& out) {
  std::optional<pipeline::RunLock> lock;
  if (std::error_code ec; std::filesystem::create_directories(out, ec), !ec) {
    ASSIGN_OR_RETURN(pipeline::RunLock claimed, pipeline::RunLock::Acquire(out));
    lock.emplace(std::move(claimed));
  }
  return lock;
}

}  // namespace llmpo::cli
