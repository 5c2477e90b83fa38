// Findings: ncu's rule results (guidance such as "Small Grid: the grid is
// too small to fill the GPU"), one per rule message, attached to the launch
// the rule looked at. Kept minimal: the CSV importer's rule rows fill the
// same struct.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace llmpo::model {

// ncu's message types: OPT (an optimisation opportunity), WRN, INF, ERR.
enum class FindingType { kInfo, kWarning, kError, kOptimization };

// Whether an estimated speedup is of the rule's own scope (local) or of the
// whole kernel (global), as ncu labels it.
enum class SpeedupScope { kLocal, kGlobal };

struct Finding {
  std::string rule;     // rule identifier ("SOLBottleneck")
  std::string section;  // section identifier the rule belongs to
  FindingType type = FindingType::kInfo;
  std::string title;  // the message's title where ncu gives one ("Small Grid")
  std::string message;
  std::optional<double> estimated_speedup_pct;  // percent of the kernel's time
  std::optional<SpeedupScope> speedup_scope;
};

inline std::string_view ToString(FindingType t) {
  switch (t) {
    case FindingType::kInfo:
      return "INF";
    case FindingType::kWarning:
      return "WRN";
    case FindingType::kError:
      return "ERR";
    case FindingType::kOptimization:
      return "OPT";
  }
  return "INF";
}

inline std::string_view ToString(SpeedupScope s) { return s == SpeedupScope::kGlobal ? "global" : "local"; }

}  // namespace llmpo::model
