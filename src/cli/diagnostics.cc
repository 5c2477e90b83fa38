#include "src/cli/diagnostics.h"

#include <iostream>

#include "src/core/version.h"

namespace llmpo::cli {

int ReportError(const Error& error) {
  std::cerr << kToolName << ": error: " << error.Render() << "\n";
  return ToInt(error.kind);
}

}  // namespace llmpo::cli
