#include "src/analysis/phase_utilization.h"

#include <fmt/format.h>

namespace llmpo::analysis {
namespace {

std::optional<double> Missing(std::string& why, const char* text) {
  why = text;
  return std::nullopt;
}

// Model FLOPs of one step; null with `why` set when a count or figure is unknown.
std::optional<double> StepFlops(const PhaseStep& s, const PhaseOptions& o, std::string& why) {
  const bool prefill = s.phase == Phase::kPrefill || s.phase == Phase::kMixed;
  const bool decode = s.phase == Phase::kDecode || s.phase == Phase::kMixed;
  double flops = 0;
  if (prefill) {
    if (!o.prefill_flops_per_token) return Missing(why, "model.flops_per_token.prefill is not set");
    if (!s.prefill_tokens) return Missing(why, "a counted step has no prefill token count");
    flops += static_cast<double>(*s.prefill_tokens) * *o.prefill_flops_per_token;
  }
  if (decode) {
    if (!o.decode_flops_per_token) return Missing(why, "model.flops_per_token.decode is not set");
    if (!s.decode_tokens) return Missing(why, "a counted step has no decode token count");
    flops += static_cast<double>(*s.decode_tokens) * *o.decode_flops_per_token;
  }
  return flops;
}

std::optional<double> BytesPerStep(Phase phase, const PhaseOptions& o) {
  switch (phase) {
    case Phase::kPrefill:
      return o.prefill_bytes_per_step;
    case Phase::kDecode:
      return o.decode_bytes_per_step;
    case Phase::kMixed:
      return o.mixed_bytes_per_step;
    case Phase::kUnknown:
      break;
  }
  return std::nullopt;
}

// Rate of `amount` over `ns` in units of `per_ns` (FLOP/ns = 1e-3 TFLOP/s;
// B/ns = GB/s) and its share of `peak`.
void Rate(double amount, double ns, double unit_per_ns, const std::optional<double>& peak, const char* peak_key,
          std::optional<double>& achieved, std::optional<double>& pct, std::string& missing) {
  achieved = amount / ns * unit_per_ns;
  if (peak) {
    pct = 100.0 * *achieved / *peak;
  } else {
    missing = fmt::format("{} is not set", peak_key);
  }
}

void OnePhase(const std::vector<PhaseStep>& steps, const PhaseOptions& o, PhaseSummary& sum) {
  PhaseUtilization& u = sum.utilization;
  if (sum.phase == Phase::kUnknown) {
    u.mfu_missing = u.mbu_missing = "the steps' phase is unknown";
    return;
  }
  if (sum.steps == 0 || sum.gpu_kernel_ns <= 0) {
    u.mfu_missing = u.mbu_missing = "no GPU kernel time in the phase's counted steps";
    return;
  }
  std::optional<double> flops = 0.0;
  for (const PhaseStep& s : steps) {
    if (s.phase != sum.phase || (o.steady_state && s.warmup)) continue;
    const std::optional<double> f = StepFlops(s, o, u.mfu_missing);
    if (!f) {
      flops.reset();
      break;
    }
    *flops += *f;
  }
  if (flops) {
    u.model_flops = flops;
    Rate(*flops, sum.gpu_kernel_ns, 1e-3, o.peak_tflops, "pipeline.mfu.peak_tflops", u.achieved_tflops, u.mfu_pct,
         u.mfu_missing);
  }
  if (const std::optional<double> per_step = BytesPerStep(sum.phase, o)) {
    u.model_bytes = *per_step * static_cast<double>(sum.steps);
    Rate(*u.model_bytes, sum.gpu_kernel_ns, 1.0, o.peak_gbps, "pipeline.mfu.peak_bandwidth_gbps", u.achieved_gbps,
         u.mbu_pct, u.mbu_missing);
  } else {
    u.mbu_missing = fmt::format("model.bytes_per_step.{} is not set", ToString(sum.phase));
  }
}

}  // namespace

void AddPhaseUtilization(const std::vector<PhaseStep>& steps, const PhaseOptions& options,
                         std::vector<PhaseSummary>& phases) {
  for (PhaseSummary& sum : phases) OnePhase(steps, options, sum);
}

}  // namespace llmpo::analysis
