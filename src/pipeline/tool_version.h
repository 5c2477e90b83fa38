// Nsight tool versions: parsing `--version` output and the oldest versions
// the command builders adapt to (2022.1; tool_probe.h says what each
// version changes).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace llmpo::pipeline {

struct ToolVersion {
  int year = 0;
  int minor = 0;
  auto operator<=>(const ToolVersion&) const = default;
  std::string Text() const;
};

// "Version 2025.1.1.0 (build ...)" -> 2025.1; nullopt when no YYYY.N is found.
std::optional<ToolVersion> ParseToolVersion(std::string_view version_output);

// The oldest supported version of "ncu" or "nsys"; nullopt for other tools.
std::optional<ToolVersion> MinimumVersion(std::string_view tool);

// "" when fine or unknown; else why the version is too old and the fix.
std::string TooOldMessage(std::string_view tool, std::string_view version_output);

}  // namespace llmpo::pipeline
