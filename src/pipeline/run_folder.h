// The run folder and its manifest (run.json). Every file goes in atomically,
// and run.json is rewritten after each step, so whatever stops the run, the
// folder says what happened and lists what was made.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "src/core/result.h"
#include "src/pipeline/run_lock.h"

namespace llmpo::pipeline {

inline constexpr const char* kRunSchemaVersion = "1.1.0";  // 1.1.0: `tools`

enum class RunStatus { kRunning, kOk, kPartial, kFailed, kInterrupted };
enum class StepStatus { kOk, kFailed, kSkipped, kInterrupted };

std::string_view ToString(RunStatus s);
std::string_view ToString(StepStatus s);
// The statuses as run.json spells them; nullopt for any other text.
std::optional<RunStatus> RunStatusFromText(std::string_view text);
std::optional<StepStatus> StepStatusFromText(std::string_view text);

struct StepRecord {
  std::string name;
  StepStatus status = StepStatus::kSkipped;
  std::string reason;             // why skipped or failed; empty when ok
  std::vector<std::string> argv;  // the command, when one ran
  std::optional<int> exit_code;
  double duration_s = 0.0;
  std::string log;  // path relative to the run folder
};

struct CreateOptions {
  // true: `dir` is a time-stamped default; when it exists already (another
  // run started in the same second), use the first free DIR-2, DIR-3, ...
  // false: use `dir` itself, refused while another live run holds it.
  bool unique = false;
};

class RunFolder {
 public:
  // Creates `dir` (and parents) and claims it with its lock (.llmpo.lock,
  // removed when the RunFolder goes away). Refuses a folder that already
  // holds a run or that a live run is using.
  static Result<RunFolder> Create(const std::filesystem::path& dir, std::vector<std::string> command_line,
                                  CreateOptions options = {});

  const std::filesystem::path& dir() const { return dir_; }
  // Non-empty when the lock of a dead run was taken over.
  const std::string& lock_note() const { return lock_.note(); }
  // Ends the claim (the lock file goes); the destructor does the same.
  void ReleaseLock() { lock_.Release(); }

  // Writes `relative` atomically and lists it as an artifact.
  Status WriteArtifact(const std::string& relative, std::string_view content);

  // Lists a file something else wrote under the run folder, unless it was
  // there before the run and is unchanged, or it is the lock.
  void RecordArtifact(const std::string& relative);

  void AddStep(StepRecord step) { steps_.push_back(std::move(step)); }
  // run.json's "tools": the versions the commands were built for (tool_probe.h).
  void SetTools(nlohmann::ordered_json tools) { tools_ = std::move(tools); }
  const std::vector<StepRecord>& steps() const { return steps_; }
  const std::vector<std::string>& artifacts() const { return artifacts_; }

  // Writes run.json with the given status (end time set unless running).
  Status WriteManifest(RunStatus status, const std::string& status_reason = "");

 private:
  struct FileStamp {
    std::uintmax_t device = 0;
    std::uintmax_t inode = 0;
    std::int64_t mtime_ns = 0;
    std::uintmax_t size = 0;
    bool operator==(const FileStamp&) const = default;
  };
  RunFolder(std::filesystem::path dir, std::vector<std::string> command_line, RunLock lock);
  static std::optional<FileStamp> Stamp(const std::filesystem::path& file);
  nlohmann::ordered_json ManifestJson(RunStatus status, const std::string& status_reason) const;

  std::filesystem::path dir_;
  std::vector<std::string> command_line_;
  std::chrono::system_clock::time_point start_;
  std::vector<StepRecord> steps_;
  nlohmann::ordered_json tools_ = nlohmann::ordered_json::object();
  std::vector<std::string> artifacts_;
  RunLock lock_;
  std::map<std::string, FileStamp> before_;  // files in the folder before the run
};

// ISO 8601 UTC with milliseconds, e.g. 2026-11-22T10:04:05.123Z.
std::string IsoTimestamp(std::chrono::system_clock::time_point t);

}  // namespace llmpo::pipeline
