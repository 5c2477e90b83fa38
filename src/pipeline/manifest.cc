#include "src/pipeline/manifest.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "src/core/atomic_file.h"
#include "src/ingest/input_file.h"

namespace llmpo::pipeline {
namespace {

using Json = nlohmann::json;

Error Bad(const std::filesystem::path& file, std::string_view what) {
  return MakeError(ExitStatus::kInput, fmt::format("{}: {}", file.string(), what))
      .WithNote("run.json is written by `profile` and `trace`; give `report` a folder one of them made");
}

// A string member, "" when absent; an error when it has another type.
Result<std::string> Text(const Json& object, const char* key, const std::filesystem::path& file) {
  if (!object.contains(key) || object[key].is_null()) return std::string();
  if (!object[key].is_string()) return Bad(file, fmt::format("'{}' is not a string", key));
  return object[key].get<std::string>();
}

Result<ManifestStep> ReadStep(const Json& s, const std::filesystem::path& file) {
  if (!s.is_object()) return Bad(file, "a step is not an object");
  ManifestStep step;
  ASSIGN_OR_RETURN(step.name, Text(s, "name", file));
  ASSIGN_OR_RETURN(const std::string status, Text(s, "status", file));
  ASSIGN_OR_RETURN(step.reason, Text(s, "reason", file));
  if (s.contains("exit_code") && !s["exit_code"].is_null()) {
    if (!s["exit_code"].is_number_integer())
      return Bad(file, fmt::format("step '{}': exit_code is not an integer", step.name));
    step.exit_code = s["exit_code"].get<int>();
  }
  const auto typed = StepStatusFromText(status);
  if (!typed) {
    return Bad(file, fmt::format("step '{}': status '{}' is not one of ok, failed, skipped, interrupted", step.name,
                                 status));
  }
  step.status = *typed;
  if (s.contains("argv") && s["argv"].is_array()) {
    for (const auto& a : s["argv"]) {
      if (a.is_string()) step.argv.push_back(a.get<std::string>());
    }
  }
  return step;
}

}  // namespace

const ManifestStep* RunManifest::Step(std::string_view name) const {
  for (const auto& s : steps) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

bool RunManifest::Succeeded(std::string_view step) const {
  const ManifestStep* s = Step(step);
  return s != nullptr && s->status == StepStatus::kOk;
}

Result<std::string> ReadRunFile(const std::filesystem::path& file) {
  RETURN_IF_ERROR(ingest::CheckInputFile(file));
  return ReadWholeFile(file);
}

Result<RunManifest> ReadManifest(const std::filesystem::path& run_dir) {
  const std::filesystem::path file = run_dir / "run.json";
  ASSIGN_OR_RETURN(std::string text, ReadRunFile(file));
  const Json json = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) return Bad(file, "not a JSON object");
  RunManifest m;
  ASSIGN_OR_RETURN(m.schema_version, Text(json, "schema_version", file));
  ASSIGN_OR_RETURN(const std::string status, Text(json, "status", file));
  const auto typed = RunStatusFromText(status);
  if (!typed) {
    return Bad(file, fmt::format("status '{}' is not one of running, ok, partial, failed, interrupted", status));
  }
  m.status = *typed;
  if (json.contains("steps")) {
    if (!json["steps"].is_array()) return Bad(file, "'steps' is not a list");
    for (const auto& s : json["steps"]) {
      ASSIGN_OR_RETURN(ManifestStep step, ReadStep(s, file));
      m.steps.push_back(std::move(step));
    }
  }
  if (json.contains("artifacts") && json["artifacts"].is_array()) {
    for (const auto& a : json["artifacts"]) {
      if (a.is_object() && a.contains("path") && a["path"].is_string())
        m.artifacts.push_back(a["path"].get<std::string>());
    }
  }
  return m;
}

}  // namespace llmpo::pipeline
