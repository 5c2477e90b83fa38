// Subcommands whose work arrives with later issues. They parse nothing and
// say so plainly, with their own exit code, rather than pretend.
#include <fmt/format.h>

#include "src/cli/diagnostics.h"
#include "src/cli/subcommands.h"

namespace llmpo::cli {
namespace {

int NotBuilt(std::string_view name, std::string_view what) {
  return ReportError(MakeError(ExitStatus::kNotBuilt, fmt::format("'{}' is not built yet: {}", name, what)));
}

}  // namespace

int RunReport(const Invocation&) {
  return NotBuilt(
      "report",
      "regenerating a run's reports arrives with the profiling orchestration; for profiler files use 'import'");
}
int RunTrace(const Invocation&) { return NotBuilt("trace", "the NVTX/CUPTI tracer is a later piece of work"); }

}  // namespace llmpo::cli
