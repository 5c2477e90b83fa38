// The GPU breakdown of timeline inputs with CPU ops (Kineto traces): per
// rank and device, HTA's temporal and kernel-type breakdowns, launch
// statistics, per-step times, a comparison across ranks, and per CPU op its
// GPU time. gpu_breakdown.md / gpu_breakdown.json (docs/import.md).
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "src/analysis/rank_comparison.h"
#include "src/model/gpu_breakdown.h"

namespace llmpo::report {

// The breakdown as the reports show it (built by BuildReportSet).
struct GpuBreakdownReport {
  model::GpuBreakdown breakdown;  // devices in rank order
  analysis::RankComparison ranks;
  // The CPU ops gpu_breakdown.md lists (indices into breakdown.cpu_ops, most
  // GPU time first) and how many have GPU time; the JSON lists every op.
  std::vector<std::size_t> top_cpu_ops;
  std::size_t cpu_ops_with_gpu = 0;
  // Kernels whose kernels.md category (pattern rules) and breakdown class
  // (HTA's name rule) tell different stories, with why; at most
  // kMaxClassDifferences, of class_differences_total (breakdown_classes.cc).
  struct ClassDifference {
    std::string name;
    std::string category;  // kernels.md
    std::string klass;     // this breakdown
    std::string why;
  };
  std::vector<ClassDifference> class_differences;
  std::size_t class_differences_total = 0;
};

inline constexpr std::size_t kMaxClassDifferences = 10;
struct KernelsReport;
// Fills class_differences from the kernels of the PyTorch (Kineto) inputs.
void FindClassDifferences(GpuBreakdownReport& report, const KernelsReport& kernels);

std::string GpuBreakdownMarkdown(const GpuBreakdownReport& report);
// gpu_breakdown.json, written to `out` as it goes (per rank and step).
void WriteGpuBreakdownJson(const GpuBreakdownReport& report, std::ostream& out);

}  // namespace llmpo::report
