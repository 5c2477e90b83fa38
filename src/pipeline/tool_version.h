// Nsight tool versions: parsing `--version` output and the oldest versions
// whose command grammar the builders use (docs/profile.md: ncu app-range
// replay and --graph-profiling, nsys' cuda_gpu_kern_sum report name; both
// arrived around 2023.1).
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
