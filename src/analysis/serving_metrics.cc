#include "src/analysis/serving_metrics.h"

namespace llmpo::analysis {
namespace {

// Mean instance time of `r`, with the time it is taken from; or why none.
std::optional<double> MeanInstance(const Region* r, std::uint64_t& count, std::string& from, std::string& missing) {
  if (r == nullptr) {
    missing = "region not in this run";
    return std::nullopt;
  }
  std::string of;
  const auto stats = r->Instances(&of);
  if (!stats || stats->count == 0 || (of != "cpu_ms" && of != "projected_ms")) {
    missing = "no per-instance range times (needs nsys or the tracer; ncu times are not serving times)";
    return std::nullopt;
  }
  count = stats->count;
  from = of;
  return stats->total_ns / static_cast<double>(stats->count);
}

}  // namespace

ServingMetrics ServingFromRegions(const Region* prefill, const Region* decode, double tokens_per_step) {
  ServingMetrics s;
  s.ttft_ns = MeanInstance(prefill, s.prefill_instances, s.ttft_from, s.ttft_missing);
  s.tpot_ns = MeanInstance(decode, s.decode_steps, s.tpot_from, s.tpot_missing);
  if (s.tpot_ns && *s.tpot_ns > 0) s.tokens_per_s = tokens_per_step / (*s.tpot_ns * 1e-9);
  return s;
}

}  // namespace llmpo::analysis
