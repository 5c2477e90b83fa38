// Serving metrics from NVTX regions: TTFT as the mean instance time of the
// prefill region, TPOT as the mean instance time of a decode step, and
// tokens/s from TPOT and the tokens one step makes (docs/analysis.md).
// Instance times are CPU range times or GPU projections, from timelines
// only: a time measured under ncu (serialised, clocks fixed) is never a
// serving time. Pure: the run model calls it with the regions it found.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "src/analysis/region_tree.h"

namespace llmpo::analysis {

struct ServingMetrics {
  std::optional<double> ttft_ns;  // mean prefill instance time
  std::optional<double> tpot_ns;  // mean decode step time
  std::optional<double> tokens_per_s;
  std::uint64_t prefill_instances = 0, decode_steps = 0;
  std::string ttft_from, tpot_from;  // "cpu_ms" or "projected_ms": which time
  std::string ttft_missing, tpot_missing;
};

// `prefill` and `decode`: the regions found for them (null: not in this run).
ServingMetrics ServingFromRegions(const Region* prefill, const Region* decode, double tokens_per_step);

}  // namespace llmpo::analysis
