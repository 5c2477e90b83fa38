// Every data-quality check the tool reports, declared once in
// diagnostic_codes.def: its code, its severity and what it means. Call sites
// name a check by its enumerator (model::Diag::ragged_row), so a check that
// is not declared does not compile; Diagnostics::Add takes the severity from
// the table. docs/diagnostics.md lists the table
// (scripts/diagnostics_table.py prints it; a test compares the two).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace llmpo::model {

enum class Severity { kInfo, kWarning, kDataLoss };
std::string_view ToString(Severity s);

enum class Diag : std::uint16_t {
#define LLMPO_DIAGNOSTIC(code, severity, meaning) code,
#include "src/model/diagnostic_codes.def"
#undef LLMPO_DIAGNOSTIC
};

struct DiagnosticCode {
  std::string_view code;
  Severity severity;
  std::string_view meaning;
};

std::span<const DiagnosticCode> AllDiagnosticCodes();
const DiagnosticCode& Describe(Diag diag);
// The check a code names (a code read from a file: our tracer's warnings).
std::optional<Diag> DiagFromName(std::string_view code);
// nullptr for a code nobody declared.
const DiagnosticCode* FindDiagnosticCode(std::string_view code);

}  // namespace llmpo::model
