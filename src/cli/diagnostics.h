// How the CLI prints errors: "llm-perf-opt: error: ..." on stderr, and the
// exit code that goes with the error's kind. And how much else it prints:
// --quiet (errors only) and --verbose (more progress), global flags.
#pragma once

#include <cstdio>
#include <ostream>

#include "src/core/result.h"

namespace llmpo::cli {

int ReportError(const Error& error);
// "llm-perf-opt: warning: ..." and its notes on stderr; nothing with --quiet.
// The exit code is not changed.
void ReportWarning(const Error& warning);

enum class Verbosity { kQuiet, kNormal, kVerbose };
void SetVerbosity(Verbosity v);
Verbosity GetVerbosity();

// Progress and summaries (what was written, the run folder): stdout, or
// nowhere with --quiet. A command's answer (config's YAML, doctor's report)
// goes to std::cout directly.
std::ostream& Out();
// Extra progress on stderr with --verbose; nowhere otherwise.
std::ostream& Verbose();
// Live tool progress (ncu's ==PROF== lines): stderr, or nullptr with --quiet.
std::FILE* ProgressFile();

}  // namespace llmpo::cli
