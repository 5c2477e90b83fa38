#include "src/report/compare_text.h"

#include <fmt/format.h>

#include <cmath>

#include "src/report/text_format.h"

namespace llmpo::report {

std::string SignedMs(double ns) { return (ns >= 0 ? "+" : "-") + MsText(std::fabs(ns)); }

std::string PctText(const std::optional<double>& pct) {
  return pct ? fmt::format("{:+.1f} %", *pct) : std::string("n/a");
}

std::string VerdictText(const analysis::ChangeTest& t) {
  if (t.tested) return std::string(analysis::ToString(t.verdict));
  if (t.verdict == analysis::Verdict::kWithinNoise) return "below threshold (no noise data)";
  return fmt::format("{} (threshold only: no noise data)", analysis::ToString(t.verdict));
}

std::string PText(const analysis::ChangeTest& t) {
  if (!t.p_value) return "n/a";
  return *t.p_value < 1e-15 ? std::string("< 1e-15") : fmt::format("{:.2g}", *t.p_value);
}

std::string BoundText(const KernelDelta& k) {
  const std::string bound = k.base_bound == k.new_bound || k.match != "name"
                                ? (k.match == "gone" ? k.base_bound : k.new_bound)
                                : fmt::format("{} → {}", k.base_bound, k.new_bound);
  return bound.empty() ? "unknown" : bound;
}

}  // namespace llmpo::report
