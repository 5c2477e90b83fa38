#include "src/report/findings_markdown.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "src/report/text_format.h"

namespace llmpo::report {
namespace {

// "(1 of 2 launches) " where the kernel's launches did not all give the finding.
std::string LaunchesOf(const analysis::KernelFinding& f, const analysis::KernelAggregate& k) {
  if (f.launches >= k.calls) return "";
  return fmt::format("({} of {} launches) ", f.launches, k.calls);
}

// A kernel's OPT findings: global estimates (of the kernel's run time) before
// local ones (of one unit's efficiency: not comparable), each the largest
// mean estimated speedup first; none last.
std::vector<const analysis::KernelFinding*> OptFindings(const analysis::KernelAggregate& k) {
  std::vector<const analysis::KernelFinding*> out;
  for (const auto& f : k.findings) {
    if (f.finding.type == model::FindingType::kOptimization) out.push_back(&f);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto* a, const auto* b) {
    const bool ga = a->finding.speedup_kind == model::SpeedupKind::kGlobal;
    const bool gb = b->finding.speedup_kind == model::SpeedupKind::kGlobal;
    if (ga != gb) return ga;
    const auto x = a->MeanSpeedupPct(), y = b->MeanSpeedupPct();
    if (x.has_value() != y.has_value()) return x.has_value();
    return x && *x > *y;
  });
  return out;
}

struct Text {
  std::size_t id = 0;
  std::string rule;
  std::vector<std::size_t> kernels;  // row numbers (#) that gave it
};

std::string KernelsOf(const Text& t) {
  constexpr std::size_t kShown = 3;
  std::vector<std::string> shown;
  for (std::size_t i = 0; i < t.kernels.size() && i < kShown; ++i) shown.push_back(fmt::format("#{}", t.kernels[i]));
  std::string out = fmt::format("{}", fmt::join(shown, ", "));
  if (t.kernels.size() > kShown) out += fmt::format(" and {} more kernels", t.kernels.size() - kShown);
  return out;
}

}  // namespace

void FindingsTable(std::string& out, const std::vector<const analysis::KernelAggregate*>& kernels, std::size_t top_k) {
  std::string rows;
  std::map<std::string, Text> texts;  // by message
  std::vector<const std::string*> order;
  std::size_t cut = 0;
  for (std::size_t i = 0; i < kernels.size() && i < top_k; ++i) {
    const auto findings = OptFindings(*kernels[i]);
    if (findings.size() > kMaxOptRowsPerKernel) cut += findings.size() - kMaxOptRowsPerKernel;
    for (std::size_t n = 0; n < findings.size() && n < kMaxOptRowsPerKernel; ++n) {
      const analysis::KernelFinding& f = *findings[n];
      auto [it, added] = texts.try_emplace(f.finding.message, Text{texts.size() + 1, f.finding.rule, {}});
      if (added) order.push_back(&it->first);
      if (it->second.kernels.empty() || it->second.kernels.back() != i + 1) it->second.kernels.push_back(i + 1);
      const auto pct = f.MeanSpeedupPct();
      rows += fmt::format("| {} | {} | {} | {} | {} | {}[T{}] |\n", i + 1, MdCell(kernels[i]->name, 60), f.finding.rule,
                          pct ? fmt::format("{:.3g}", *pct) : "n/a",
                          f.finding.speedup_kind ? model::ToString(*f.finding.speedup_kind) : "",
                          LaunchesOf(f, *kernels[i]), it->second.id);
    }
  }
  if (rows.empty()) return;
  out += fmt::format(
      "\n### ncu findings (OPT)\n\nncu's rule results, at most {} per kernel (global estimates first, the largest "
      "first; kernels.json lists them all); estimated speedup in %: global = of the kernel's run time, local = of one "
      "unit's efficiency. Speedups of one kernel overlap: never add them. Each rule text is printed once, below.\n\n"
      "| # | Kernel | Rule | Speedup % | Kind | Text |\n|---:|---|---|---:|---|---|\n",
      kMaxOptRowsPerKernel);
  out += rows;
  if (cut > 0) out += fmt::format("\n{} more OPT finding(s) of these kernels are in kernels.json.\n", cut);
  out += "\n";
  for (const std::string* message : order) {
    const Text& t = texts.at(*message);
    out += fmt::format("- **T{}** ({}; {}): {}\n", t.id, t.rule, KernelsOf(t), MdCell(*message, 2000));
  }
}

}  // namespace llmpo::report
