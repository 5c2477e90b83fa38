#include "src/core/exit_status.h"

#include <array>

namespace llmpo {
namespace {

constexpr std::array kTable = {
    ExitStatusInfo{ExitStatus::kOk, "ok", "success"},
    ExitStatusInfo{ExitStatus::kFailure, "failure", "the run or analysis failed"},
    ExitStatusInfo{ExitStatus::kUsage, "usage", "bad command line, override or configuration key"},
    ExitStatusInfo{ExitStatus::kInput, "input",
                   "unreadable or malformed input file (config, profiler output, run folder)"},
    ExitStatusInfo{ExitStatus::kToolMissing, "tool-missing", "a required external tool or device is not available"},
    ExitStatusInfo{ExitStatus::kToolFailed, "tool-failed", "an external tool or the workload ran and failed"},
    ExitStatusInfo{ExitStatus::kPartial, "partial", "the run finished but some enabled steps did not complete"},
    ExitStatusInfo{ExitStatus::kNotBuilt, "not-built", "a part this build lacks: the tracer library, or a bundled workload"},
    ExitStatusInfo{ExitStatus::kSlower, "slower",
                   "compare --fail-if-slower: the total, a region or a kernel is slower than allowed"},
    ExitStatusInfo{ExitStatus::kInterrupted, "interrupted", "interrupted by SIGINT/SIGTERM; artifacts so far are kept"},
};

}  // namespace

std::span<const ExitStatusInfo> AllExitStatuses() { return kTable; }

int ToInt(ExitStatus s) { return static_cast<int>(s); }

std::string_view Name(ExitStatus s) {
  for (const auto& info : kTable) {
    if (info.status == s) return info.name;
  }
  return "unknown";
}

}  // namespace llmpo
