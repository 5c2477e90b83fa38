// The sweep report (docs/sweeps.md): one row per point of a multirun sweep
// with its swept values and its quantities, each point compared with the
// baseline point through the compare engine, scaling efficiency, the Pareto
// front of two quantities and the bottleneck's changes in words. Built once
// by BuildSweepReport (pure); sweep_markdown.cc, sweep_json.cc and
// sweep_html.cc only render it. Unknown values are null, never 0.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/analysis/significance.h"
#include "src/report/report_set.h"

namespace llmpo::report {

inline constexpr const char* kSweepSchemaVersion = "1.0.0";

struct SweepPointInput {
  std::size_t num = 0;
  std::vector<std::string> values;  // one per key
  std::string dir;                  // its run folder, relative to the sweep folder
  std::string status;               // "ok", "failed", "interrupted", "not run", "partial", ...
  std::string reason;
  std::optional<int> exit_code;
  const ReportSet* set = nullptr;  // null: no report set (the point did not finish)
};

struct SweepInput {
  std::string command;  // profile or trace
  std::vector<std::string> keys;
  std::vector<SweepPointInput> points;  // in point order
  std::vector<std::string> pareto;      // two quantity ids or aliases (latency, throughput)
  std::size_t top_kernels = 5;
  analysis::SignificanceOptions significance;
};

struct SweepQuantity {
  std::string id;     // "gpu_kernel_ms", "region_cpu_ms:work", "kernel_ms:gemm"
  std::string label;  // for tables and charts
  std::string unit;   // "ms", "%", "tokens/s"
  bool higher_is_better = false;
};

struct SweepVsBase {
  double base_ms = 0, point_ms = 0;  // total GPU kernel time of each timing input
  analysis::ChangeTest test;         // compare's verdict on the total
};

struct SweepPoint {
  SweepPointInput in;
  std::map<std::string, std::optional<double>> q;  // by quantity id; absent or null: unknown
  std::optional<double> scaling_efficiency_pct;
  bool pareto = false;
  std::string top_kernel, top_kernel_bound;  // the kernel with the most GPU time and its bound class
  std::optional<SweepVsBase> vs_base;        // null for the baseline and unmeasured points
};

struct SweepReport {
  std::string command;
  std::vector<std::string> keys;
  std::vector<SweepQuantity> quantities;  // the columns, in order
  std::vector<SweepPoint> points;
  std::optional<std::size_t> base;          // index into points of the baseline (first measured point)
  std::vector<std::string> pareto;          // the two quantity ids used; empty: none
  std::vector<std::string> bottleneck_changes;  // in words
  std::vector<std::string> notes;               // what could not be computed, and why
};

SweepReport BuildSweepReport(const SweepInput& input);

// The quantities with a value at some point: the tables' columns (sweep.json
// has them all, null where unknown).
std::vector<const SweepQuantity*> ShownQuantities(const SweepReport& report);

// A swept value's text as a number (decimal int or float), or null.
std::optional<double> SweepNumber(const std::string& text);

// The value of quantity `id` at a point, or null.
std::optional<double> SweepValue(const SweepPoint& p, const std::string& id);

std::string SweepMarkdown(const SweepReport& report);
std::string SweepJson(const SweepReport& report);
// One self-contained page: inline SVG charts, no script, nothing loaded.
std::string SweepHtml(const SweepReport& report);

}  // namespace llmpo::report
