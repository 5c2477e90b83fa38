#include "src/pipeline/tool_version.h"

#include <fmt/format.h>
#include <re2/re2.h>

namespace llmpo::pipeline {

std::string ToolVersion::Text() const { return fmt::format("{}.{}", year, minor); }

std::optional<ToolVersion> ParseToolVersion(std::string_view version_output) {
  static const RE2 kYearMinor(R"((20\d\d)\.(\d+))");
  ToolVersion v;
  if (!RE2::PartialMatch(version_output, kYearMinor, &v.year, &v.minor)) return std::nullopt;
  return v;
}

std::optional<ToolVersion> MinimumVersion(std::string_view tool) {
  if (tool == "ncu" || tool == "nsys") return ToolVersion{2022, 1};
  return std::nullopt;
}

std::string TooOldMessage(std::string_view tool, std::string_view version_output) {
  const auto minimum = MinimumVersion(tool);
  const auto version = ParseToolVersion(version_output);
  if (!minimum || !version || *version >= *minimum) return "";
  const char* product = tool == "ncu" ? "Nsight Compute" : "Nsight Systems";
  return fmt::format("{} {} is older than {}, the oldest version the commands are built for; install {} {} or newer", tool,
                     version->Text(), minimum->Text(), product, minimum->Text());
}

}  // namespace llmpo::pipeline
