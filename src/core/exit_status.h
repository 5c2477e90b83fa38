// The process exit codes, in one table. docs/exit-codes.md mirrors it and a
// unit test keeps the two in step.
#pragma once

#include <span>
#include <string_view>

namespace llmpo {

enum class ExitStatus : int {
  kOk = 0,
  kFailure = 1,        // a run or analysis failed (internal error, unusable data)
  kUsage = 2,          // bad command line: unknown subcommand/option, bad override, bad config key
  kInput = 3,          // unreadable or malformed input: config file, profiler output, run folder
  kToolMissing = 4,    // an external tool (ncu, nsys, nvcc, a GPU) is not available
  kToolFailed = 5,     // an external tool or the workload ran and failed
  kPartial = 6,        // the run finished but some enabled steps did not complete
  kNotBuilt = 7,       // the subcommand or step exists but is not implemented yet
  kSlower = 8,         // compare --fail-if-slower: a change slower than allowed, beyond noise
  kInterrupted = 130,  // stopped by Ctrl-C / SIGTERM; artifacts so far are kept
};

struct ExitStatusInfo {
  ExitStatus status;
  std::string_view name;
  std::string_view meaning;
};

std::span<const ExitStatusInfo> AllExitStatuses();
int ToInt(ExitStatus s);
std::string_view Name(ExitStatus s);

}  // namespace llmpo
