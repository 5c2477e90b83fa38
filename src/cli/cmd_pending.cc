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

int RunTrace(const Invocation&) { return NotBuilt("trace", "the NVTX/CUPTI tracer is a later piece of work"); }

}  // namespace llmpo::cli
