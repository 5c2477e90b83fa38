// Compare: what changed between report sets, where, and whether it is real
// (docs/compare.md). Every side after the first is compared with the first.
// Built once by BuildCompareReport from the sides' report sets (pure); the
// writers (compare_markdown.cc, compare_json.cc, compare_html.cc) only render it.
//
// Matching, each row naming the rule that matched it: kernels by name
// (merged over processes and devices of the side's timing input, the input
// its GPU kernel time comes from); regions by path, with numbered instances
// (`ProfilerStep#12`) as one region. Times in ns; unknown is null.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/analysis/significance.h"
#include "src/report/report_set.h"

namespace llmpo::report {

struct CompareSide {
  std::string label;  // as the user gave it (a folder, a file, a list)
  const ReportSet* set = nullptr;
};

struct CompareOptions {
  analysis::SignificanceOptions significance;
  // Rows of the attribution, compare.md's tables and compare.html's kernel bars and region table (the JSON
  // and compare.html's kernel table have every row).
  std::size_t top = 20;
};

// One kernel name on both sides (or one of them).
struct KernelDelta {
  std::string name;
  std::string match;  // "name"; "new" (only in the new side), "gone" (only in the base)
  std::string category;
  std::optional<double> base_ns, new_ns;  // GPU kernel time; null: not on that side
  std::uint64_t base_calls = 0, new_calls = 0;
  std::optional<double> base_mean_ns, new_mean_ns;
  double delta_ns = 0;                                // new - base (an absent side counts 0)
  std::optional<analysis::ChangeTest> mean_test;      // of the mean launch duration; null unless on both sides
  std::string base_bound, new_bound;                  // bound class ("unknown" without ncu metrics)
  std::optional<double> base_sm_pct, new_sm_pct;      // SM throughput, % of peak (ncu)
  std::optional<double> base_dram_pct, new_dram_pct;  // DRAM throughput, % of peak (ncu)
  std::optional<double> base_occupancy_pct, new_occupancy_pct;
};

// A line of the delta attribution: rows add up to the total change.
struct AttributionRow {
  std::string what;  // a kernel name, "3 new kernels", "2 gone kernels", "12 other kernels"
  double delta_ns = 0;
};

// One region path on both sides (or one of them).
struct RegionDelta {
  std::string path;                                 // labels joined by " / ", numbered instances as #N
  std::string match;                                // "path", "path (numbered instances as one)", "new", "gone"
  std::uint64_t base_regions = 0, new_regions = 0;  // regions merged into this row per side
  std::optional<double> base_ns, new_ns;            // GPU kernel time
  std::optional<double> base_copy_ns, new_copy_ns;  // memcpy/memset time
  std::optional<double> base_projected_ns, new_projected_ns;
  std::optional<double> base_cpu_ns, new_cpu_ns;  // CPU range time
  std::optional<std::uint64_t> base_launches, new_launches;
  std::optional<double> delta_ns;            // of GPU kernel time; null when a side does not know it
  std::optional<analysis::ChangeTest> test;  // of its GPU kernel time
  std::vector<AttributionRow> contributors;  // its kernels' largest changes (inclusive), largest first
};

// One position of two aligned launch sequences.
struct SequenceRow {
  std::string op;  // "same" (aligned), "new" (only in the new sequence), "gone" (only in the base)
  std::optional<std::size_t> base_position, new_position;  // 0-based, in each instance's launch order
  std::string name;
  std::optional<double> base_mean_ns, new_mean_ns;  // mean launch duration at the position over instances
  std::optional<double> delta_ns;                   // new - base (an absent side counts 0); null: not timed
  std::optional<analysis::ChangeTest> test;         // "same" rows timed on both sides
};

// One region's launch order on both sides, aligned (docs/compare.md, "Launch order").
struct SequenceDelta {
  std::string path;       // labels joined by " / ", numbered instances as #N; "(outside NVTX regions)"
  std::string scope;      // the scope both sequences ran in: "rank 3", "device 0", or the base's process
  std::string signature;  // what aligned launches share: "name" or "name, grid, block"
  std::uint64_t base_instances = 0, new_instances = 0;
  std::size_t base_length = 0, new_length = 0;  // launches per instance (the first instance's)
  std::size_t same = 0, inserted = 0, removed = 0;
  std::size_t slower = 0, faster = 0;       // aligned positions by verdict
  std::optional<double> base_instance_ns;   // GPU kernel time of one instance: the positions' means summed
  std::optional<double> new_instance_ns;
  std::optional<double> delta_instance_ns;  // the rows' deltas summed (= new - base per instance)
  std::vector<SequenceRow> rows;            // every position, in diff order
};

// One scope (a rank, else a device, else a process) on both sides, matched by that role.
struct ScopeDelta {
  std::string scope;                      // "rank 3", "device 0", or a process label
  std::optional<double> base_ns, new_ns;  // GPU kernel time in the scope; null: not on that side
  std::uint64_t base_launches = 0, new_launches = 0;
  double delta_ns = 0;                      // new - base (an absent side counts 0)
  std::optional<analysis::ChangeTest> test;  // on both sides only
};

struct Comparison {
  std::string base_label, new_label;
  std::string base_times_from, new_times_from;   // each side's timing input(s) (TimingChoice::label)
  double base_kernel_ns = 0, new_kernel_ns = 0;  // total GPU kernel time of the timing input
  std::uint64_t base_launches = 0, new_launches = 0;
  double delta_ns = 0;
  analysis::ChangeTest total_test;          // of the total GPU kernel time
  std::vector<AttributionRow> attribution;  // adds up to delta_ns
  std::vector<KernelDelta> kernels;         // largest |delta| first
  std::vector<RegionDelta> regions;         // largest |delta| first, then unknown deltas in path order
  std::vector<SequenceDelta> sequences;     // launch order per region and scope, largest |change| first
  std::vector<ScopeDelta> scopes;           // per rank/device/process; empty when each side has one scope
  std::vector<std::string> guardrails;      // differences that make the comparison doubtful (GPU, command, format)
  std::vector<std::string> notes;           // what could not be compared, and why
};

struct CompareReport {
  std::vector<std::string> sides;  // labels, the base first
  CompareOptions options;
  std::vector<Comparison> comparisons;  // sides[i + 1] against sides[0]
};

// Needs at least two sides.
CompareReport BuildCompareReport(const std::vector<CompareSide>& sides, const CompareOptions& options);

// The region path compare matches on: labels joined by " / ", a label's
// "#<digits>" ending as "#N" (ProfilerStep#12 -> ProfilerStep#N).
std::string ComparePath(const std::vector<std::string>& labels, bool* numbered);

// The launch sequences of the two sides' timing inputs (TimingChoice: over
// rank files, each rank's own), aligned region by region and scope by scope
// (compare_sequences.cc); what could not be aligned, and why, goes to `notes`.
std::vector<SequenceDelta> SequenceDeltas(const ReportSet& base, const ReportSet& next, const CompareOptions& options,
                                          std::vector<std::string>& notes);

// Per-scope GPU kernel time of the two sides' timing inputs (compare_scope.cc).
std::vector<ScopeDelta> ScopeDeltas(const ReportSet& base, const ReportSet& next, const CompareOptions& options);

// A side restricted to one scope: `SIDE@rank=3`, `SIDE@device=0`.
struct ScopeFilter {
  std::string key;  // "rank" or "device"
  std::string value;
};
// Keeps the kernels, regions and launch sequences of that scope only; an
// error text naming the scopes there are when none matches.
std::optional<std::string> SelectScope(ReportSet& set, const ScopeFilter& filter);
// What compare reads of `set` (kernels, regions, launch order, the run),
// narrowed as SelectScope narrows it, copying that scope's rows only (a
// whole copy of many ranks holds every rank's); null when no kernel ran
// there. The tables compare never reads (GPU breakdown, LLM phases,
// stragglers, timeline, page) are left out.
std::optional<ReportSet> ScopeCopy(const ReportSet& set, const ScopeFilter& filter);

// Slower beyond threshold and noise: the total or any matched kernel or
// region; each as a line for the gate's message (--fail-if-slower).
std::vector<std::string> SlowerThan(const CompareReport& report, double pct);

std::string CompareMarkdown(const CompareReport& report);
std::string CompareJson(const CompareReport& report);
// One self-contained page (compare_html.cc): no file or address is loaded.
std::string CompareHtml(const CompareReport& report);

inline constexpr const char* kCompareSchemaVersion = "1.1.0";

}  // namespace llmpo::report
