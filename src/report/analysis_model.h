// The analysis results the kernel and run reports render (docs/analysis.md):
// per kernel its category, bound class and roofline; for the run one ranked
// list of actions. Plain structs: every writer (Markdown, JSON, HTML) reads
// them and decides nothing.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/analysis/bound_class.h"
#include "src/analysis/kernel_aggregator.h"
#include "src/analysis/kernel_category.h"
#include "src/analysis/roofline.h"

namespace llmpo::report {

struct KernelInsight {
  std::string category;
  analysis::Bound bound;
  analysis::Roofline roofline;
};

// One thing to do, ranked by the share of GPU time it can save.
struct Action {
  std::string kernel;
  std::string category;
  double share_pct = 0;           // the kernel's share of the run's GPU kernel time
  std::optional<double> time_ns;  // its GPU time in the timing input
  double speedup_pct = 0;         // the % of its time ncu (or the headroom) says can go
  std::string basis;              // "ncu global estimate", "roofline headroom", "throughput headroom"
  double saving_pct_of_gpu = 0;   // share x speedup / 100: % of all GPU kernel time
  std::string rule;               // ncu rule id ("" when none)
  std::string section;            // its section id
  std::string message;            // ncu's rule text, or what the bound class says to do
  std::string evidence;           // the metrics behind it
};

inline constexpr std::size_t kMaxActions = 10;

// One kernel of a kernel table: what was aggregated, and what the analysis
// says of it (set by AnalyzeKernels; none before), kept together so a row
// can never be read with another row's insight.
struct KernelRow : analysis::KernelAggregate {
  std::optional<KernelInsight> insight;
};

// Rows without insights, in order.
std::vector<KernelRow> KernelRows(std::vector<analysis::KernelAggregate> kernels);

// The insight of one kernel: its category, bound class and roofline.
KernelInsight InsightFor(const analysis::KernelAggregate& kernel, const analysis::KernelCategorizer& categorizer);

// Times from `timed` (one input, the run's kernel time), findings and
// metrics from whichever row of the same name in `all` carries them (ncu),
// so no time measured under ncu is mixed into a share.
std::vector<Action> RankActions(const std::vector<analysis::KernelAggregate>& timed, const std::vector<KernelRow>& all);

}  // namespace llmpo::report
