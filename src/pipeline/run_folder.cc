#include "src/pipeline/run_folder.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>

#include "src/core/atomic_file.h"
#include "src/core/version.h"

namespace llmpo::pipeline {
namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

std::string_view ToString(RunStatus s) {
  switch (s) {
    case RunStatus::kRunning:
      return "running";
    case RunStatus::kOk:
      return "ok";
    case RunStatus::kPartial:
      return "partial";
    case RunStatus::kFailed:
      return "failed";
    case RunStatus::kInterrupted:
      return "interrupted";
  }
  return "unknown";
}

std::string_view ToString(StepStatus s) {
  switch (s) {
    case StepStatus::kOk:
      return "ok";
    case StepStatus::kFailed:
      return "failed";
    case StepStatus::kSkipped:
      return "skipped";
    case StepStatus::kInterrupted:
      return "interrupted";
  }
  return "unknown";
}

std::string IsoTimestamp(std::chrono::system_clock::time_point t) {
  const auto seconds = std::chrono::floor<std::chrono::seconds>(t);
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(t - seconds).count();
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:03d}Z", seconds, millis);
}

RunFolder::RunFolder(fs::path dir, std::vector<std::string> command_line)
    : dir_(std::move(dir)), command_line_(std::move(command_line)), start_(std::chrono::system_clock::now()) {}

Result<RunFolder> RunFolder::Create(const fs::path& dir, std::vector<std::string> command_line) {
  std::error_code ec;
  if (fs::exists(dir / "run.json", ec)) {
    return MakeError(ExitStatus::kUsage, fmt::format("run folder '{}' already holds a run (run.json)", dir.string()))
        .WithNote("choose another folder with hydra.run.dir=PATH, or remove the old run");
  }
  fs::create_directories(dir, ec);
  if (ec) {
    return MakeError(ExitStatus::kFailure, fmt::format("cannot create run folder '{}': {}", dir.string(), ec.message()))
        .WithNote("check the path and its permissions, or choose another with hydra.run.dir=PATH");
  }
  return RunFolder(fs::absolute(dir, ec), std::move(command_line));
}

Status RunFolder::WriteArtifact(const std::string& relative, std::string_view content) {
  const fs::path path = dir_ / relative;
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  RETURN_IF_ERROR(WriteFileAtomically(path, content));
  if (std::find(artifacts_.begin(), artifacts_.end(), relative) == artifacts_.end()) artifacts_.push_back(relative);
  return OkStatus();
}

void RunFolder::RecordArtifact(const std::string& relative) {
  std::error_code ec;
  if (!fs::exists(dir_ / relative, ec)) return;
  if (std::find(artifacts_.begin(), artifacts_.end(), relative) == artifacts_.end()) artifacts_.push_back(relative);
}

Json RunFolder::ManifestJson(RunStatus status, const std::string& status_reason) const {
  Json steps = Json::array();
  for (const auto& step : steps_) {
    Json s = {{"name", step.name}, {"status", ToString(step.status)}};
    if (!step.reason.empty()) s["reason"] = step.reason;
    if (!step.argv.empty()) s["argv"] = step.argv;
    s["exit_code"] = step.exit_code ? Json(*step.exit_code) : Json(nullptr);
    s["duration_s"] = step.duration_s;
    s["log"] = step.log.empty() ? Json(nullptr) : Json(step.log);
    steps.push_back(std::move(s));
  }
  Json artifacts = Json::array();
  std::error_code ec;
  for (const auto& relative : artifacts_) {
    const auto size = fs::file_size(dir_ / relative, ec);
    artifacts.push_back({{"path", relative}, {"bytes", ec ? Json(nullptr) : Json(size)}});
  }
  Json manifest = {
      {"schema_version", kRunSchemaVersion},
      {"tool", {{"name", kToolName}, {"version", kToolVersion}}},
      {"run_dir", dir_.string()},
      {"command_line", command_line_},
      {"start_time", IsoTimestamp(start_)},
      {"end_time",
       status == RunStatus::kRunning ? Json(nullptr) : Json(IsoTimestamp(std::chrono::system_clock::now()))},
      {"status", ToString(status)},
  };
  if (!status_reason.empty()) manifest["status_reason"] = status_reason;
  manifest["steps"] = std::move(steps);
  manifest["artifacts"] = std::move(artifacts);
  return manifest;
}

Status RunFolder::WriteManifest(RunStatus status, const std::string& status_reason) {
  // Workload arguments may hold any bytes; replace what is not UTF-8 rather than fail.
  const std::string text =
      ManifestJson(status, status_reason).dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
  return WriteFileAtomically(dir_ / "run.json", text);
}

}  // namespace llmpo::pipeline
