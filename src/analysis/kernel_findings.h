// ncu's findings of one kernel over its launches. Launches of one kernel can
// get the same rule with different messages (SOLBottleneck: "Memory is more
// heavily utilized" for one, "grid is too small" for another), so findings
// are kept per (rule, section, type, speedup kind, message with its numbers
// masked, n-th such row of a launch), never by row position: each says how
// many launches gave it, and keeps the message of the launch where the
// estimated speedup was largest.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/model/findings.h"

namespace llmpo::analysis {

struct KernelFinding {
  model::Finding finding;      // the message and speedup of the launch with the largest speedup (else the first)
  std::string shape;           // the message with every number as '#': what launches share
  std::size_t occurrence = 0;  // the n-th row with this rule, section, type, kind and shape in a launch (from 0)
  std::uint64_t launches = 0;  // launches that gave it
  // Estimated speedup over the launches that gave one: % of run time
  // (global) or unit efficiency (local); see model::SpeedupKind.
  std::uint64_t speedup_values = 0;
  double speedup_sum = 0;
  double speedup_weighted_sum = 0;  // speedup x launch duration (ns)
  double speedup_weight_ns = 0;
  std::uint64_t speedup_unweighted = 0;  // values from launches without a duration

  // The duration-weighted mean speedup when every value had a duration,
  // else the plain mean; nullopt when no launch gave one.
  std::optional<double> MeanSpeedupPct() const;
};

// `message` with each number ("6.334", "1,024", "0.39") replaced by '#'.
std::string MessageShape(std::string_view message);

void AddFindings(std::vector<KernelFinding>& into, const std::vector<model::Finding>& launch_findings,
                 std::optional<double> duration_ns);
void MergeFindings(std::vector<KernelFinding>& into, const std::vector<KernelFinding>& other);

// The largest mean global speedup among `findings` (ncu's speedups of one
// kernel overlap, so they are never added); nullptr when none has one.
const KernelFinding* TopGlobalFinding(const std::vector<KernelFinding>& findings);

}  // namespace llmpo::analysis
