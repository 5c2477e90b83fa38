#include "src/cli/diagnostics.h"

#include <iostream>

#include "src/core/version.h"

namespace llmpo::cli {
namespace {

Verbosity g_verbosity = Verbosity::kNormal;

std::ostream& Discard() {
  static std::ostream null_stream(nullptr);  // no buffer: writes are dropped
  return null_stream;
}

}  // namespace

int ReportError(const Error& error) {
  std::cerr << kToolName << ": error: " << error.Render() << "\n";
  return ToInt(error.kind);
}

void ReportWarning(const Error& warning) {
  if (g_verbosity == Verbosity::kQuiet) return;
  std::cerr << kToolName << ": warning: " << warning.Render() << "\n";
}

void SetVerbosity(Verbosity v) { g_verbosity = v; }
Verbosity GetVerbosity() { return g_verbosity; }

std::ostream& Out() { return g_verbosity == Verbosity::kQuiet ? Discard() : std::cout; }
std::ostream& Verbose() { return g_verbosity == Verbosity::kVerbose ? std::cerr : Discard(); }
std::FILE* ProgressFile() { return g_verbosity == Verbosity::kQuiet ? nullptr : stderr; }

}  // namespace llmpo::cli
