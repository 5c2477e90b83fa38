// How the CLI prints errors: "llm-perf-opt: error: ..." on stderr, and the
// exit code that goes with the error's kind.
#pragma once

#include "src/core/result.h"

namespace llmpo::cli {

int ReportError(const Error& error);

}  // namespace llmpo::cli
