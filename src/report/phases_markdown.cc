#include <fmt/format.h>

#include "src/report/phases_report.h"
#include "src/report/text_format.h"

namespace llmpo::report {
namespace {

constexpr std::size_t kMaxStepRows = 200;
constexpr std::size_t kMaxGraphRows = 50;

std::string Opt(const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : "n/a"; }
std::string UsPerToken(const std::optional<double>& ns) { return ns ? fmt::format("{:.3f}", *ns / 1e3) : "n/a"; }

std::string Counts(const std::optional<std::int64_t>& requests, const std::optional<std::int64_t>& tokens) {
  if (!requests && !tokens) return "n/a";
  return fmt::format("{} ({})", requests ? std::to_string(*requests) : "n/a", Opt(tokens));
}

void PhaseTable(std::string& out, const analysis::PhaseReport& p) {
  out +=
      "| phase | steps counted | warm-up steps | GPU kernel time (ms) | share of step GPU time | idle inside "
      "steps (ms) | mean step GPU time (ms) | tokens | GPU time per token (us) | tokens from |\n";
  out += "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (const auto& s : p.phases) {
    out += fmt::format("| {} | {} | {} | {} | {:.1f} % | {} | {} | {} | {} | {} |\n", analysis::ToString(s.phase),
                       s.steps, WarmupText(s, p.steady_state), MsText(s.gpu_kernel_ns), s.share_pct,
                       MsText(s.gpu_idle_ns), MsText(s.mean_step_gpu_ns),
                       s.tokens ? fmt::format("{} ({} of {} steps)", *s.tokens, s.steps_with_tokens, s.steps) : "n/a",
                       UsPerToken(s.gpu_ns_per_token), s.tokens_from.empty() ? "unknown" : s.tokens_from);
  }
}

std::string Pct(const std::optional<double>& pct, const std::string& missing) {
  return pct ? fmt::format("{:.2f} %", *pct) : fmt::format("n/a ({})", missing);
}

// MFU / MBU per phase (analysis/phase_utilization.h): only when the config
// gives the model's work for some phase.
void UtilizationTable(std::string& out, const analysis::PhaseReport& p) {
  if (!PhaseUtilizationConfigured(p)) return;
  out +=
      "\n### MFU and MBU per phase\n\nMFU = model FLOPs of the counted steps (tokens x model.flops_per_token) / "
      "the phase's GPU kernel time / pipeline.mfu.peak_tflops. MBU = model.bytes_per_step x counted steps / the "
      "phase's GPU kernel time / pipeline.mfu.peak_bandwidth_gbps. Kernel time leaves out the gaps between "
      "kernels, so both are upper bounds of wall-clock utilisation.\n\n";
  out +=
      "| phase | model GFLOP | achieved TFLOP/s | MFU | model GB read | achieved GB/s | MBU |\n"
      "|---|---:|---:|---|---:|---:|---|\n";
  auto num = [](const std::optional<double>& v, double scale) {
    return v ? fmt::format("{:.4g}", *v / scale) : std::string("n/a");
  };
  for (const auto& s : p.phases) {
    const auto& u = s.utilization;
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", analysis::ToString(s.phase), num(u.model_flops, 1e9),
                       num(u.achieved_tflops, 1), MdCell(Pct(u.mfu_pct, u.mfu_missing)), num(u.model_bytes, 1e9),
                       num(u.achieved_gbps, 1), MdCell(Pct(u.mbu_pct, u.mbu_missing)));
  }
}

void TopKernels(std::string& out, const analysis::PhaseReport& p) {
  for (const auto& s : p.phases) {
    if (s.top_kernels.empty()) continue;
    out += fmt::format("\n### {}: top kernels\n\n", analysis::ToString(s.phase));
    out += "| kernel | category | bound (ncu) | GPU time (ms) | launches |\n|---|---|---|---:|---:|\n";
    for (const auto& k : s.top_kernels) {
      out += fmt::format("| {} | {} | {} | {} | {} |\n", MdCell(k.name), MdCell(k.category), k.bound, MsText(k.gpu_ns),
                         k.launches);
    }
    out += "\nCategories: ";
    for (std::size_t i = 0; i < s.categories.size(); ++i) {
      out += fmt::format("{}{} {} ms", i ? ", " : "", s.categories[i].first, MsText(s.categories[i].second));
    }
    out += "\n";
  }
}

void DecodeBatches(std::string& out, const analysis::PhaseReport& p) {
  if (p.decode_batches.empty()) return;
  out += "\n### Decode by batch (decode tokens per step)\n\n";
  out +=
      "| decode tokens per step | steps | mean step GPU time (ms): TPOT as the GPU sees it | GPU time per token "
      "(us) |\n|---:|---:|---:|---:|\n";
  for (const auto& b : p.decode_batches) {
    out += fmt::format("| {} | {} | {} | {:.3f} |\n", b.tokens_per_step, b.steps, MsText(b.mean_step_gpu_ns),
                       b.gpu_ns_per_token / 1e3);
  }
}

void StepTable(std::string& out, const analysis::PhaseReport& p) {
  out += "\n### Steps\n\n";
  out +=
      "| # | input | step | phase | prefill requests (tokens) | decode requests (tokens) | GPU kernel time (ms) | "
      "GPU span (ms) | idle (ms) | kernels | graph launches | warm-up |\n";
  out += "|---:|---|---|---|---|---|---:|---:|---:|---:|---:|---|\n";
  for (std::size_t i = 0; i < p.steps.size() && i < kMaxStepRows; ++i) {
    const auto& s = p.steps[i];
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", i, MdCell(analysis::ShortScope(s.scope), 60),
                       MdCell(s.name, 60), analysis::ToString(s.phase), Counts(s.prefill_requests, s.prefill_tokens),
                       Counts(s.decode_requests, s.decode_tokens), MsText(s.gpu_kernel_ns), MsText(s.gpu_span_ns),
                       MsText(s.gpu_idle_ns), s.kernels, s.graph_launches,
                       s.warmup ? MdCell(s.warmup_reason) : std::string("no"));
  }
  if (p.steps.size() > kMaxStepRows) {
    out += fmt::format("\n{} more step(s) in kernels.json.\n", p.steps.size() - kMaxStepRows);
  }
}

void GraphTable(std::string& out, const analysis::PhaseReport& p) {
  if (p.graphs.empty()) return;
  out +=
      "\n### CUDA graphs\n\nKernels of a graph launch count in the NVTX range and step of the launch call. "
      "A graph: one input's launches with the same graph id where the input records one (nsys SQLite), else of "
      "the same kernel sequence.\n\n";
  out +=
      "| graph (first kernel) | input | launches | kernels per launch | GPU kernel time (ms) | launch calls (ms, "
      "once per launch) | ranges of the launches (launches, kernels) |\n|---|---|---:|---:|---:|---:|---|\n";
  for (std::size_t i = 0; i < p.graphs.size() && i < kMaxGraphRows; ++i) {
    const auto& g = p.graphs[i];
    std::string ranges;
    for (const auto& r : g.ranges) {
      ranges += fmt::format(
          "{}{} ({}, {})", ranges.empty() ? "" : "; ",
          r.range.empty() ? std::string(r.in_step ? "(no range on its thread; in a step)" : "(none)") : r.range,
          r.launches, r.kernels);
    }
    const std::string per = g.kernels_per_launch_min == g.kernels_per_launch_max
                                ? std::to_string(g.kernels_per_launch_min)
                                : fmt::format("{}-{}", g.kernels_per_launch_min, g.kernels_per_launch_max);
    const std::string graph = g.graph_id ? fmt::format("graph {}: {}", *g.graph_id, g.first_kernel) : g.first_kernel;
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", MdCell(graph, 60), MdCell(analysis::ShortScope(g.scope), 60),
                       g.launches, per, MsText(g.gpu_kernel_ns), MsText(g.launch_call_ns), MdCell(ranges, 200));
  }
}

}  // namespace

bool PhaseUtilizationConfigured(const analysis::PhaseReport& p) {
  for (const auto& s : p.phases) {
    if (s.utilization.model_flops || s.utilization.model_bytes) return true;
  }
  return false;
}

std::string WarmupText(const analysis::PhaseSummary& s, bool steady) {
  if (s.warmup_steps == 0) return "0";
  return fmt::format("{} ({})", s.warmup_steps, steady ? "left out" : "kept");
}

std::string PhasesMarkdown(const analysis::PhaseReport& p) {
  std::string out = "\n## Phases\n\n";
  for (const auto& s : p.schemes) out += fmt::format("- Steps from {}\n", OneLine(s));
  if (!p.steps.empty()) {
    out += fmt::format("- {}\n", p.warmup_rule);
    out += fmt::format("- Kernels outside every step: {} ({} ms)\n\n", p.kernels_outside_steps,
                       MsText(p.gpu_ns_outside_steps));
    out +=
        "GPU kernel time is the sum of the kernels launched inside a step (by the launch call's time); idle is a "
        "step's GPU span (first kernel start to last kernel end) minus the union of its kernels. Tokens come from "
        "the step's annotation or model.tokens.*; unknown stays n/a.\n\n";
    PhaseTable(out, p);
    UtilizationTable(out, p);
    TopKernels(out, p);
    DecodeBatches(out, p);
    StepTable(out, p);
  }
  GraphTable(out, p);
  if (!p.notes.empty()) out += "\n";
  for (const auto& n : p.notes) out += fmt::format("- Note: {}\n", OneLine(n));
  return out;
}

std::string PhasesSummaryMarkdown(const analysis::PhaseReport& p) {
  std::string out = "\n## Phases\n\n";
  for (const auto& s : p.phases) {
    out += fmt::format(
        "- {}: {:.1f} % of step GPU time over {} step(s){}", analysis::ToString(s.phase), s.share_pct, s.steps,
        s.warmup_steps > 0 && p.steady_state ? fmt::format(" ({} warm-up step(s) left out)", s.warmup_steps) : "");
    if (s.gpu_ns_per_token) out += fmt::format("; {:.3f} us of GPU time per token", *s.gpu_ns_per_token / 1e3);
    if (s.utilization.mfu_pct) out += fmt::format("; MFU {:.2f} %", *s.utilization.mfu_pct);
    if (s.utilization.mbu_pct) out += fmt::format("; MBU {:.2f} %", *s.utilization.mbu_pct);
    out += "\n";
  }
  if (!p.graphs.empty()) {
    std::uint64_t launches = 0;
    for (const auto& g : p.graphs) launches += g.launches;
    out += fmt::format("- CUDA graphs: {} graph(s), {} launch(es); report.md lists them\n", p.graphs.size(), launches);
  }
  for (const auto& n : p.notes) out += fmt::format("- Note: {}\n", OneLine(n));
  return out;
}

}  // namespace llmpo::report
