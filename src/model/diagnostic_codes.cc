#include "src/model/diagnostic_codes.h"

namespace llmpo::model {
namespace {

constexpr Severity kInfo = Severity::kInfo;
constexpr Severity kWarning = Severity::kWarning;
constexpr Severity kDataLoss = Severity::kDataLoss;

constexpr DiagnosticCode kCodes[] = {
#define LLMPO_DIAGNOSTIC(code, severity, meaning) {#code, severity, meaning},
#include "src/model/diagnostic_codes.def"
#undef LLMPO_DIAGNOSTIC
};

}  // namespace

std::span<const DiagnosticCode> AllDiagnosticCodes() { return kCodes; }

const DiagnosticCode& Describe(Diag diag) { return kCodes[static_cast<std::size_t>(diag)]; }

std::optional<Diag> DiagFromName(std::string_view code) {
  for (std::size_t i = 0; i < std::size(kCodes); ++i) {
    if (kCodes[i].code == code) return static_cast<Diag>(i);
  }
  return std::nullopt;
}

const DiagnosticCode* FindDiagnosticCode(std::string_view code) {
  const auto diag = DiagFromName(code);
  return diag ? &Describe(*diag) : nullptr;
}

}  // namespace llmpo::model
