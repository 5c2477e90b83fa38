// report.html's Phases section: the split bar, the per-token cost table,
// the per-step series (warm-up steps drawn apart) and the graph table.
#include <fmt/format.h>

#include <algorithm>

#include "src/report/html_text.h"
#include "src/report/phases_report.h"
#include "src/report/text_format.h"

namespace llmpo::report {
namespace {

constexpr int kWidth = 800;
constexpr std::size_t kMaxSeriesSteps = 400;
constexpr std::size_t kMaxGraphRows = 50;

std::string_view Colour(analysis::Phase p) {
  switch (p) {
    case analysis::Phase::kPrefill:
      return "#4e79a7";
    case analysis::Phase::kDecode:
      return "#f28e2b";
    case analysis::Phase::kMixed:
      return "#76b7b2";
    case analysis::Phase::kUnknown:
      break;
  }
  return "#bab0ac";
}

std::string SplitBar(const analysis::PhaseReport& p) {
  std::string out = fmt::format(
      "<svg class=\"phase-split\" data-chart=\"phase-split\" viewBox=\"0 0 {} 40\" width=\"100%\" role=\"img\" "
      "aria-label=\"GPU kernel time of the steps by phase\">\n",
      kWidth);
  double x = 0;
  for (const auto& s : p.phases) {
    const double w = kWidth * s.share_pct / 100.0;
    out += fmt::format(
        "<rect class=\"phase\" data-phase=\"{0}\" x=\"{1:.2f}\" y=\"0\" width=\"{2:.2f}\" height=\"24\" fill=\"{3}\">"
        "<title>{0}: {4:.1f} % ({5} ms over {6} steps)</title></rect>\n",
        analysis::ToString(s.phase), x, w, Colour(s.phase), s.share_pct, MsText(s.gpu_kernel_ns), s.steps);
    if (w > 60) {
      out += fmt::format("<text x=\"{:.2f}\" y=\"16\" font-size=\"12\">{} {:.1f} %</text>\n", x + 4,
                         analysis::ToString(s.phase), s.share_pct);
    }
    x += w;
  }
  return out + "</svg>\n";
}

std::string CostTable(const analysis::PhaseReport& p) {
  std::string out =
      "<table class=\"plain\" id=\"phase-costs\"><thead><tr><th>Phase</th><th>Steps</th><th>Warm-up steps</th>"
      "<th>GPU kernel time (ms)</th><th>Share</th><th>Idle in steps (ms)</th><th>Mean step GPU time (ms)</th>"
      "<th>Tokens</th><th>GPU time per token (us)</th><th>Tokens from</th></tr></thead><tbody>\n";
  for (const auto& s : p.phases) {
    out += fmt::format(
        "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{:.1f} %</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td>{}</td></tr>\n",
        analysis::ToString(s.phase), s.steps, WarmupText(s, p.steady_state), MsText(s.gpu_kernel_ns), s.share_pct,
        MsText(s.gpu_idle_ns), MsText(s.mean_step_gpu_ns), s.tokens ? std::to_string(*s.tokens) : "n/a",
        s.gpu_ns_per_token ? fmt::format("{:.3f}", *s.gpu_ns_per_token / 1e3) : "n/a",
        HtmlText(s.tokens_from.empty() ? "unknown" : s.tokens_from));
  }
  return out + "</tbody></table>\n";
}

std::string UtilizationTable(const analysis::PhaseReport& p) {
  auto num = [](const std::optional<double>& v, double scale) {
    return v ? fmt::format("{:.4g}", *v / scale) : std::string("n/a");
  };
  auto pct = [](const std::optional<double>& v, const std::string& missing) {
    return v ? fmt::format("{:.2f} %", *v) : "n/a (" + HtmlText(missing) + ")";
  };
  std::string out =
      "<table class=\"plain\" id=\"phase-utilization\"><thead><tr><th>Phase</th><th>Model GFLOP</th>"
      "<th>Achieved TFLOP/s</th><th>MFU</th><th>Model GB read</th><th>Achieved GB/s</th><th>MBU</th></tr></thead>"
      "<tbody>\n";
  for (const auto& s : p.phases) {
    const auto& u = s.utilization;
    out += fmt::format(
        "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td>{}</td></tr>\n",
        analysis::ToString(s.phase), num(u.model_flops, 1e9), num(u.achieved_tflops, 1), pct(u.mfu_pct, u.mfu_missing),
        num(u.model_bytes, 1e9), num(u.achieved_gbps, 1), pct(u.mbu_pct, u.mbu_missing));
  }
  return out +
         "</tbody></table>\n<p class=\"note\">MFU: tokens x model.flops_per_token / GPU kernel time / "
         "pipeline.mfu.peak_tflops. MBU: model.bytes_per_step x steps / GPU kernel time / "
         "pipeline.mfu.peak_bandwidth_gbps. Counted steps only.</p>\n";
}

std::string StepSeries(const analysis::PhaseReport& p) {
  const std::size_t n = std::min(p.steps.size(), kMaxSeriesSteps);
  double top = 0;
  for (std::size_t i = 0; i < n; ++i) top = std::max(top, p.steps[i].gpu_kernel_ns);
  if (n == 0 || top <= 0) return "<p class=\"note\">No step has GPU kernel time.</p>\n";
  const double w = static_cast<double>(kWidth) / static_cast<double>(n);
  std::string out = fmt::format(
      "<svg class=\"phase-steps\" data-chart=\"phase-steps\" viewBox=\"0 0 {} 120\" width=\"100%\" role=\"img\" "
      "aria-label=\"GPU kernel time per step, in order; warm-up steps hollow\">\n",
      kWidth);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& s = p.steps[i];
    const double h = 110.0 * s.gpu_kernel_ns / top;
    out += fmt::format(
        "<rect class=\"step{}\" data-phase=\"{}\" x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" "
        "fill=\"{}\" stroke=\"{}\"><title>step {}: {} ({}), {} ms GPU kernel time{}</title></rect>\n",
        s.warmup ? " warmup" : "", analysis::ToString(s.phase), i * w, 115.0 - h, std::max(w - 1, 0.5), h,
        s.warmup ? "none" : Colour(s.phase), Colour(s.phase), i, HtmlText(s.name), analysis::ToString(s.phase),
        MsText(s.gpu_kernel_ns), s.warmup ? "; warm-up: " + HtmlText(s.warmup_reason) : "");
  }
  out += "</svg>\n";
  if (p.steps.size() > n) {
    out += fmt::format("<p class=\"note\">The first {} of {} steps.</p>\n", n, p.steps.size());
  }
  return out;
}

std::string GraphTable(const analysis::PhaseReport& p) {
  std::string out =
      "<table class=\"plain\" id=\"phase-graphs\"><thead><tr><th>Graph (first kernel)</th><th>Input</th>"
      "<th>Launches</th><th>Kernels per launch</th><th>GPU kernel time (ms)</th><th>Launch calls (ms)</th>"
      "<th>Ranges of the launches</th></tr></thead><tbody>\n";
  for (std::size_t i = 0; i < p.graphs.size() && i < kMaxGraphRows; ++i) {
    const auto& g = p.graphs[i];
    std::string ranges;
    for (const auto& r : g.ranges) {
      ranges += fmt::format(
          "{}{} ({} launches, {} kernels)", ranges.empty() ? "" : "; ",
          r.range.empty() ? std::string(r.in_step ? "(no range on its thread; in a step)" : "(none)") : r.range,
          r.launches, r.kernels);
    }
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}-{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td>{}</td></tr>\n",
        HtmlShort(g.graph_id ? fmt::format("graph {}: {}", *g.graph_id, g.first_kernel) : g.first_kernel, 80),
        HtmlText(g.scope), g.launches, g.kernels_per_launch_min,
        g.kernels_per_launch_max, MsText(g.gpu_kernel_ns), MsText(g.launch_call_ns), HtmlText(ranges));
  }
  return out + "</tbody></table>\n";
}

}  // namespace

std::string PhasesHtml(const analysis::PhaseReport& p) {
  std::string out = "<section id=\"phases\"><h2>Phases</h2>\n";
  for (const auto& s : p.schemes) out += "<p class=\"note\">Steps from " + HtmlText(s) + ".</p>\n";
  if (!p.steps.empty()) {
    out += "<p class=\"note\">" + HtmlText(p.warmup_rule) + ".</p>\n";
    out += "<h3>GPU kernel time by phase</h3>\n" + SplitBar(p);
    out += "<h3>Cost per token</h3>\n" + CostTable(p);
    if (PhaseUtilizationConfigured(p)) out += "<h3>MFU and MBU per phase</h3>\n" + UtilizationTable(p);
    out += "<h3>GPU kernel time per step</h3>\n" + StepSeries(p);
  }
  if (!p.graphs.empty()) out += "<h3>CUDA graphs</h3>\n" + GraphTable(p);
  for (const auto& n : p.notes) out += "<p class=\"note\">" + HtmlText(n) + "</p>\n";
  return out + "</section>\n";
}

}  // namespace llmpo::report
