// Every data-quality check the tool reports, declared once: its code, its
// severity and what it means. Diagnostics::Add takes the severity from here;
// docs/diagnostics.md lists the table (a test keeps the two in step).
#pragma once

#include <span>
#include <string_view>

#include "src/model/diagnostics.h"

namespace llmpo::model {

struct DiagnosticCode {
  std::string_view code;
  Severity severity;
  std::string_view meaning;
};

std::span<const DiagnosticCode> AllDiagnosticCodes();
// nullptr for a code nobody declared.
const DiagnosticCode* FindDiagnosticCode(std::string_view code);

}  // namespace llmpo::model
