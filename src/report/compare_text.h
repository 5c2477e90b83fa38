// Texts compare.md and compare.html share: signed times, percentages,
// verdicts and p-values, written the same way on both pages.
#pragma once

#include <optional>
#include <string>

#include "src/analysis/significance.h"
#include "src/report/compare_model.h"

namespace llmpo::report {

std::string SignedMs(double ns);                        // "+1.2345" / "-0.0012" (ms)
std::string PctText(const std::optional<double>& pct);  // "+20.1 %", "n/a"
// The verdict, saying when it rests on the threshold alone.
std::string VerdictText(const analysis::ChangeTest& t);
// p below what a double tells from 0 after the test's arithmetic: "< 1e-15".
std::string PText(const analysis::ChangeTest& t);
// A kernel's bound class: "a → b" when it changed, "unknown" when not known.
std::string BoundText(const KernelDelta& k);

}  // namespace llmpo::report
