// run.json read back as a typed value, for `report RUN_DIR` and the run
// reports: which steps ran and how they ended, what the run produced. The
// writer is RunFolder (run_folder.h); docs/profile.md has the schema.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/result.h"
#include "src/pipeline/run_folder.h"

namespace llmpo::pipeline {

struct ManifestStep {
  std::string name;
  StepStatus status = StepStatus::kSkipped;
  std::string reason;
  std::optional<int> exit_code;
  std::vector<std::string> argv;
};

struct RunManifest {
  std::string schema_version;
  RunStatus status = RunStatus::kRunning;
  std::vector<ManifestStep> steps;
  std::vector<std::string> artifacts;  // paths relative to the run folder

  const ManifestStep* Step(std::string_view name) const;
  bool Succeeded(std::string_view step) const;
};

// Reads one file of a run folder for `report` (run.json, config.yaml,
// inputs.yaml, env.json): checked first as `import` checks its inputs
// (ingest::CheckInputFile), so a FIFO, a device, a folder or a dangling link
// there is an input error naming the file, never a read that blocks or never
// ends.
Result<std::string> ReadRunFile(const std::filesystem::path& file);

// Reads RUN_DIR/run.json. A file that is not JSON, or whose fields have the
// wrong types, is an input error naming the file and the field.
Result<RunManifest> ReadManifest(const std::filesystem::path& run_dir);

}  // namespace llmpo::pipeline
