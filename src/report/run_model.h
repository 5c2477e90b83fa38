// The run-level model behind stakeholder_summary.md and the run's report.md:
// every decision (which input the kernel times come from, how kernels of
// several inputs merge, the top kernels, stage shares, MFU, advice) is made
// here, once; summary_report.cc only renders it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "src/analysis/serving_metrics.h"
#include "src/report/kernels_report.h"
#include "src/report/regions_report.h"
#include "src/report/summary_report.h"

namespace llmpo::report {

struct StageRow {
  std::string label;
  std::optional<double> gpu_kernel_ns;  // null: its input has no kernel durations
  double share_pct = 0;                 // of the top-level regions' GPU kernel time
  // false: the regions come from a flat nsys summary, whose nesting is not
  // known: nested ranges are all "top-level" and the shares would count them twice.
  bool share_known = true;
  std::optional<std::uint64_t> launches;  // null: not known (Region::KnownLaunches)
  std::string from;                       // the input(s) its numbers come from (not always the run's kernel-time input)
};

struct MfuRow {
  std::string region_path;
  double flops = 0;
  std::optional<double> gpu_kernel_ns;  // null: region absent or without GPU time
  std::string missing;                  // why there is no value ("region not in this run", "no GPU time")
  std::optional<double> achieved_tflops;
  std::optional<double> mfu_pct;  // needs pipeline.mfu.peak_tflops
};

// Model bandwidth utilisation per configured region: bytes / time / peak.
struct MbuRow {
  std::string region_path;
  double bytes = 0;
  std::optional<double> gpu_kernel_ns;
  std::string missing;
  std::optional<double> achieved_gbps;
  std::optional<double> mbu_pct;  // needs pipeline.mfu.peak_bandwidth_gbps
};

struct TopKernel {
  analysis::KernelAggregate kernel;  // merged over processes and devices of the timing input
  double share_pct = 0;              // of the run's GPU kernel time
  std::string bound;                 // analysis::BoundClass as text ("memory", "latency", ...), "unknown"
  std::string category;              // kernel category ("gemm", "attention", ...); "" when not analysed
};

// One kernel at one precision on the DRAM roofline (docs/analysis.md).
struct RooflinePoint {
  std::string kernel;
  std::string precision;             // "fp32", "tensor", ...
  double intensity = 0;              // FLOP/byte (DRAM)
  double achieved_per_s = 0;         // FLOP/s (tensor: op/s)
  std::optional<double> peak_per_s;  // the precision's peak
  std::optional<double> dram_peak_bytes_per_s;
  std::optional<double> time_ns;  // the kernel's GPU kernel time in its input (sizes the point); null: untimed
};

struct RunModel {
  RunContext run;
  std::string times_from;  // TimingChoice::label: the input, or "N inputs of M ranks" ("" without kernels)
  double gpu_kernel_ns = 0;
  std::uint64_t launches = 0;
  std::size_t distinct_kernels = 0;
  std::vector<TopKernel> top_kernels;
  // GPU kernel time per kernel category over the timing input's kernels,
  // largest first; empty when the kernels were not categorised.
  std::vector<std::pair<std::string, double>> category_ns;
  std::vector<RooflinePoint> roofline;      // every kernel and precision with DRAM intensity and achieved work
  bool has_regions = false;                 // an aggregate region list with regions
  std::optional<std::size_t> region_count;  // regions in the aggregate, when there is one
  std::vector<StageRow> stages;
  bool mfu_configured = false;
  bool mfu_without_regions = false;
  std::vector<MfuRow> mfu;
  std::vector<MbuRow> mbu;
  analysis::ServingMetrics serving;          // TTFT, TPOT, tokens/s (analysis/serving_metrics.h)
  std::vector<Action> actions;               // ranked: what to do first
  std::string why_no_actions;                // KernelsReport::why_no_actions
  analysis::TimelineRulesResult timeline_rules;  // KernelsReport::timeline_rules
  RankedActions ranked;                          // KernelsReport::ranked: what to do first
  std::vector<std::string> recommendations;  // notes around the actions
};

RunModel BuildRunModel(const RunContext& run, const KernelsReport& kernels, const RegionsReport* regions);

// The kernels of one input, without counting any kernel twice: a timeline's
// (nsys, our tracer, a Kineto trace) when there is one, else the first
// input's; each borrows the metrics it lacks from same-named kernels of the
// other inputs (ncu). `source` is set to the input whose times are used.
std::vector<analysis::KernelAggregate> TimesFromOneSource(const KernelsReport& all, std::string* source);
// The kernels TimingChoice times (over rank files, each rank's from its own
// timing input; else TimesFromOneSource's), each borrowing the metrics it
// lacks as there. `source` is set to the choice's label: the input's path,
// or "N inputs of M ranks".
std::vector<analysis::KernelAggregate> TimesFromEachRank(const KernelsReport& all, std::string* source);

// Kernels by name over processes and devices (MergeKernel), largest total first.
std::vector<analysis::KernelAggregate> ByName(const std::vector<analysis::KernelAggregate>& kernels);

// The insights of a kernel table by name, indexed once: a lookup per kernel
// stays linear in the table (a trace of 40,000 distinct kernel names).
class InsightsByName {
 public:
  explicit InsightsByName(const KernelsReport& all);
  // The bound class ncu's metrics give the kernel of that name (any input); "unknown".
  std::string Bound(const std::string& name) const;
  // The category the analysis gave the kernel of that name; "" when none.
  std::string Category(const std::string& name) const;

 private:
  const KernelsReport& all_;
  std::unordered_map<std::string_view, std::size_t> first_, first_bound_;  // name -> first row
};

}  // namespace llmpo::report
