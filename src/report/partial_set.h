// A partial result: what an import collected from some of a job's inputs
// (rank files), before any report is built, in a form that merges. Merging
// is concatenation in the order the partials are given, so partials of
// partials merge too, and the merge of the partials of N files, given in
// the files' order, is what one import of the N files collects
// (src/pipeline/partial_merge.h; docs/multirank.md).
//
// Serialised as JSON (schema "llm-perf-opt.partial"), every time in ns as
// the structs hold them, unknown as null.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "src/analysis/gpu_timeline.h"
#include "src/analysis/kernel_aggregator.h"
#include "src/analysis/launch_sequence.h"
#include "src/analysis/phases.h"
#include "src/analysis/region_tree.h"
#include "src/core/result.h"
#include "src/model/diagnostics.h"
#include "src/model/gpu_breakdown.h"
#include "src/model/source.h"
#include "src/report/kernels_report.h"
#include "src/report/timeline_model.h"

namespace llmpo::report {

inline constexpr const char* kPartialSchema = "llm-perf-opt.partial";
// Major.minor.patch: a reader reads its own major version only.
inline constexpr const char* kPartialSchemaVersion = "1.5.0";
inline constexpr int kPartialSchemaMajor = 1;

// One scope's finished region tree (a process on a device).
struct RegionTreePart {
  analysis::Scope scope;
  analysis::RegionCapabilities caps;
  std::vector<analysis::Region> regions;  // parents before their children
};

// One input's finished region builder, not yet combined with the others.
struct RegionInputPart {
  std::string source;
  model::SourceFamily family = model::SourceFamily::kTimeline;
  analysis::RegionCapabilities caps;
  bool saw_nvtx = false;
  std::uint64_t launches = 0, outside = 0, folded = 0;
  bool per_range = false;
  std::vector<RegionTreePart> scopes;
};

struct PartialSet {
  std::string job;                       // the job it belongs to (import --job); "" when none was named
  std::vector<std::string> merged_from;  // the partial files merged into it, in order; empty for an import's
  std::vector<SourceInfo> sources;       // the inputs, in order
  std::vector<analysis::KernelAggregate> kernels;
  analysis::RuntimeSummaries runtime;
  std::vector<analysis::DeviceBusy> gpu_busy;
  model::GpuBreakdown gpu_breakdown;
  std::optional<TimelineOverview> timeline;  // from the first input with timed launches
  std::vector<std::string> unused_kernel_patterns;
  model::Diagnostics diagnostics;                           // the importers'
  model::Diagnostics region_diagnostics;                    // the region builders'
  std::vector<RegionInputPart> regions;                     // one per input
  std::vector<analysis::SourceSequences> launch_sequences;  // one per input (compare's launch order)
  analysis::PhaseInput phases;  // steps and timed kernels; merged with its names and scopes re-numbered
};

// The partial as JSON (dump(2)'s layout), into `out` a member at a time and
// its per-rank arrays an element at a time, or as one string.
void WritePartialSetJson(const PartialSet& set, std::ostream& out);
std::string PartialSetJson(const PartialSet& set);

// Invalid JSON, another schema, another major version, a missing or
// mistyped member: an input error (exit 3) naming `origin` and the member.
// The per-rank arrays are read an element at a time, the rest as one document.
Result<PartialSet> ReadPartialSetJson(std::string_view text, const std::string& origin);
// The same from an open file, read as it is parsed.
Result<PartialSet> ReadPartialSetJsonFile(std::FILE* file, const std::string& origin);

}  // namespace llmpo::report
