#include "src/pipeline/run_folder.h"

#include <errno.h>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <string.h>
#include <sys/stat.h>

#include <algorithm>

#include "src/core/atomic_file.h"
#include "src/core/version.h"
#include "src/pipeline/output_folder.h"
#include "src/report/json_writer.h"

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

std::optional<RunStatus> RunStatusFromText(std::string_view text) {
  for (const RunStatus s :
       {RunStatus::kRunning, RunStatus::kOk, RunStatus::kPartial, RunStatus::kFailed, RunStatus::kInterrupted}) {
    if (ToString(s) == text) return s;
  }
  return std::nullopt;
}

std::optional<StepStatus> StepStatusFromText(std::string_view text) {
  for (const StepStatus s : {StepStatus::kOk, StepStatus::kFailed, StepStatus::kSkipped, StepStatus::kInterrupted}) {
    if (ToString(s) == text) return s;
  }
  return std::nullopt;
}

std::string IsoTimestamp(std::chrono::system_clock::time_point t) {
  const auto seconds = std::chrono::floor<std::chrono::seconds>(t);
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(t - seconds).count();
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:03d}Z", seconds, millis);
}

RunFolder::RunFolder(fs::path dir, std::vector<std::string> command_line, RunLock lock)
    : dir_(std::move(dir)),
      command_line_(std::move(command_line)),
      start_(std::chrono::system_clock::now()),
      lock_(std::move(lock)) {}

std::optional<RunFolder::FileStamp> RunFolder::Stamp(const fs::path& file) {
  struct stat st {};
  if (lstat(file.c_str(), &st) != 0) return std::nullopt;
  return FileStamp{static_cast<std::uintmax_t>(st.st_dev), static_cast<std::uintmax_t>(st.st_ino),
                   static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
                   static_cast<std::uintmax_t>(st.st_size)};
}

namespace {

Error CannotCreate(const fs::path& dir, const std::string& why) {
  return MakeError(ExitStatus::kFailure, fmt::format("cannot create run folder '{}': {}", dir.string(), why))
      .WithNote("check the path and its permissions, or choose another with hydra.run.dir=PATH");
}

// Makes `dir`, or the first of DIR-2, DIR-3, ... that does not exist yet;
// mkdir is atomic, so two runs never get the same one.
Result<fs::path> MakeUniqueFolder(const fs::path& dir) {
  std::error_code ec;
  if (dir.has_parent_path()) fs::create_directories(dir.parent_path(), ec);
  if (ec) return CannotCreate(dir, ec.message());
  std::string base = dir.string();
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  for (int n = 1; n <= 1000; ++n) {
    const fs::path candidate = n == 1 ? fs::path(base) : fs::path(fmt::format("{}-{}", base, n));
    if (mkdir(candidate.c_str(), 0777) == 0) return candidate;
    if (errno != EEXIST) return CannotCreate(candidate, strerror(errno));
  }
  return CannotCreate(dir, "it and DIR-2 ... DIR-1000 exist already");
}

}  // namespace

Result<RunFolder> RunFolder::Create(const fs::path& dir, std::vector<std::string> command_line, CreateOptions options) {
  std::error_code ec;
  fs::path chosen = dir;
  if (options.unique) {
    ASSIGN_OR_RETURN(chosen, MakeUniqueFolder(dir));
  } else {
    fs::create_directories(dir, ec);
    if (ec) return CannotCreate(dir, ec.message());
  }
  // Claim it first, then look: a run that finished or died here left run.json.
  ASSIGN_OR_RETURN(RunLock lock, RunLock::Acquire(chosen));
  if (fs::exists(chosen / "run.json", ec)) {
    return MakeError(ExitStatus::kUsage, fmt::format("run folder '{}' already holds a run (run.json)", chosen.string()))
        .WithNote("choose another folder with hydra.run.dir=PATH, or remove the old run");
  }
  // A run writes files whose names it chooses (ncu/profile.ncu-rep, ...): in
  // a folder holding someone's files it could overwrite one of them.
  std::vector<std::string> present;
  for (auto it = fs::directory_iterator(chosen, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(kRunLockName)) present.push_back(name);
  }
  if (!present.empty()) {
    std::sort(present.begin(), present.end());
    std::string listed;
    for (std::size_t i = 0; i < present.size() && i < 3; ++i) listed += (i ? ", " : "") + present[i];
    if (present.size() > 3) listed += fmt::format(" and {} more", present.size() - 3);
    return MakeError(ExitStatus::kUsage,
                     fmt::format("run folder '{}' is not empty ({}); a run could overwrite those files",
                                 chosen.string(), listed))
        .WithNote("choose a new or empty folder with hydra.run.dir=PATH");
  }
  RunFolder run(fs::absolute(chosen, ec), std::move(command_line), std::move(lock));
  // What is there already is not the run's: RecordArtifact leaves it out.
  for (auto it = fs::recursive_directory_iterator(run.dir_, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    if (auto stamp = Stamp(it->path())) run.before_[fs::relative(it->path(), run.dir_).string()] = *stamp;
  }
  return run;
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
  const std::string name = fs::path(relative).filename().string();
  if (name.starts_with(kRunLockName) || name == kOutputsRecordName) return;
  const auto stamp = Stamp(dir_ / relative);
  if (!stamp) return;
  if (auto old = before_.find(relative); old != before_.end() && old->second == *stamp) return;
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
  if (!tools_.empty()) manifest["tools"] = tools_;
  manifest["steps"] = std::move(steps);
  manifest["artifacts"] = std::move(artifacts);
  return manifest;
}

Status RunFolder::WriteManifest(RunStatus status, const std::string& status_reason) {
  // Workload arguments may hold any bytes; replace what is not UTF-8 rather than fail.
  const std::string text =
      report::JsonFileText(ManifestJson(status, status_reason));
  return WriteFileAtomically(dir_ / "run.json", text);
}

}  // namespace llmpo::pipeline
