#include "src/model/findings.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace llmpo::model {
namespace {

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

}  // namespace

std::string_view ToString(FindingType type) {
  switch (type) {
    case FindingType::kOptimization:
      return "OPT";
    case FindingType::kWarning:
      return "WRN";
    case FindingType::kInfo:
      return "INF";
    case FindingType::kError:
      return "ERR";
  }
  return "INF";
}

std::string_view ToString(SpeedupKind kind) { return kind == SpeedupKind::kLocal ? "local" : "global"; }

std::optional<FindingType> ParseFindingType(std::string_view text) {
  const std::string t = Lower(text);
  if (t == "opt" || t == "optimization") return FindingType::kOptimization;
  if (t == "wrn" || t == "warning") return FindingType::kWarning;
  if (t == "inf" || t == "ok" || t == "info") return FindingType::kInfo;
  if (t == "err" || t == "error") return FindingType::kError;
  return std::nullopt;
}

std::optional<SpeedupKind> ParseSpeedupKind(std::string_view text) {
  const std::string t = Lower(text);
  if (t == "local") return SpeedupKind::kLocal;
  if (t == "global") return SpeedupKind::kGlobal;
  return std::nullopt;
}

}  // namespace llmpo::model
