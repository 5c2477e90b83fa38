// ncu's rule results ("findings"): what a rule concluded about one profiled
// result. The details page writes them as rule rows (Rule Name, Rule Type,
// Rule Description, Estimated Speedup Type, Estimated Speedup); a binary
// report holds the same fields. One rule may give several findings per
// result (WorkloadImbalance one per unit; CPIStall an OPT and an INF).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace llmpo::model {

// ncu's message types as the CSV writes them.
enum class FindingType {
  kOptimization,  // OPT: a change that should make the kernel faster
  kWarning,       // WRN: the measurement may be unreliable (sampling, ...)
  kInfo,          // INF: a statement, nothing to change
  kError,         // ERR: the rule failed
};

// What an estimated speedup measures (NvRules): global, the % cut of this
// result's run time if the advice is followed; local, the % efficiency gain
// of one hardware unit in isolation (a severity, not a time saving).
enum class SpeedupKind { kLocal, kGlobal };

struct Finding {
  std::string rule;     // rule identifier: "SOLBottleneck"
  std::string section;  // section identifier: "SpeedOfLight"
  FindingType type = FindingType::kInfo;
  std::string message;
  std::optional<double> speedup_pct;  // ncu's estimated speedup, %; absent when the rule set none
  std::optional<SpeedupKind> speedup_kind;
  std::string title;  // the message's title where ncu gives one ("Small Grid"; binary reports only)

  bool operator==(const Finding&) const = default;
};

std::string_view ToString(FindingType type);  // "OPT", "WRN", "INF", "ERR"
std::string_view ToString(SpeedupKind kind);  // "local", "global"
// From the CSV spelling (also the older "Ok"/"Warning"/"Optimization"/"Error"
// words, case-insensitive); nullopt for anything else.
std::optional<FindingType> ParseFindingType(std::string_view text);
std::optional<SpeedupKind> ParseSpeedupKind(std::string_view text);

}  // namespace llmpo::model
