// The kernel report: one model, written as Markdown (kernels.md, for people)
// and JSON (kernels.json, for programs). Writers read only this model.
// All times in the output are milliseconds, all byte counts bytes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "src/analysis/gpu_timeline.h"
#include "src/analysis/kernel_aggregator.h"
#include "src/analysis/launch_pairing.h"
#include "src/analysis/phases.h"
#include "src/analysis/timeline_rules.h"
#include "src/model/diagnostics.h"
#include "src/model/records.h"
#include "src/model/source.h"
#include "src/report/analysis_model.h"
#include "src/report/ranked_actions.h"

namespace llmpo::report {

inline constexpr const char* kKernelsSchemaVersion = "1.5.0";

struct SourceInfo {
  std::string path;
  std::string format;                  // the importer's name (ingest::Importers)
  std::optional<std::string> failure;  // why it could not be imported; none when it was
  model::SourceFamily family = model::SourceFamily::kNcu;
  std::vector<model::DeviceInfo> devices;  // the GPUs the input describes (.ncu-rep); empty when it names none

  bool ok() const { return !failure.has_value(); }
  // As the reports write it: "ok", or "failed: <reason>".
  std::string StatusText() const { return ok() ? "ok" : "failed: " + *failure; }
};

class JsonWriter;

// The members every report.json and kernels.json open with, in an object
// just begun: schema_version, tool {name, version}, sources.
void WriteJsonHeader(JsonWriter& w, std::string_view schema_version, const std::vector<SourceInfo>& sources);

struct KernelsReport {
  std::vector<SourceInfo> sources;
  std::vector<KernelRow> kernels;                // sorted per source, largest total first
  analysis::RuntimeSummaries runtime;            // nsys' API, memory-operation and launch-overhead summaries
  std::string times_from;                        // TimingChoice::label: the input(s) the run's kernel times come from
  std::vector<Action> actions;                   // ranked, largest saving first
  std::string why_no_actions;                    // when `actions` is empty and there are kernels
  analysis::TimelineRulesResult timeline_rules;  // what the timeline says to do (analysis/timeline_rules.h)
  RankedActions ranked;                          // actions and timeline findings in one list (ranked_actions.h)
  // Said in place of "no kernel records" for a source without kernels here
  // (kernels_combined: the ncu inputs, whose kernels lend their metrics).
  std::map<std::string, std::string> source_notes;
  std::vector<analysis::DeviceBusy> gpu_busy;  // per timeline input and device
  // kernels_combined only: per region, the timeline's kernels with the ncu
  // metrics of the launches paired with them (analysis/launch_pairing.h).
  std::vector<analysis::RegionKernel> region_kernels;
  model::Diagnostics diagnostics;
};

// `report` copied without its two per-scope tables, the kernel rows and
// the launch-overhead rows (at many ranks the bulk of it), for a caller
// that writes or narrows them itself.
KernelsReport KernelsReportHead(const KernelsReport& report);

// The input whose kernel durations are the run's GPU time: the last timeline
// with kernels (nsys, our tracer, Kineto: unserialised), else the first nsys
// summary with kernels, else the first ncu input; "" when there are none.
std::string TimingSource(const KernelsReport& report);
// The same rule among the inputs in `with_kernels` (`fallback` when none of
// `sources` is usable).
std::string TimingSourceAmong(const std::vector<SourceInfo>& sources, const std::set<std::string>& with_kernels,
                              const std::string& fallback);

// Which input times each kernel, so that no kernel is counted twice and
// every rank is. Ranks are different processes: each rank's kernels come
// from that rank's own timing input (TimingSourceAmong over the inputs
// holding its kernels), and a kernel without a rank counts where its input
// times some rank (never from an input that times none: an ncu capture of
// a rank already timed). Where that comes to one input for the whole run
// (one input, a tar of ranks, no ranks at all) it is TimingSource's input.
class TimingChoice {
 public:
  static TimingChoice Of(const KernelsReport& report);
  // The input's path, or "N inputs of M ranks"; "" without kernels.
  const std::string& label() const { return label_; }
  // Whether a kernel (or launch sequence, device) of `source` and `rank` is timed.
  bool Times(const std::string& source, const std::optional<std::int64_t>& rank) const;
  // Whether some of `source`'s kernels are timed.
  bool Uses(const std::string& source) const { return inputs_.contains(source); }
  const std::set<std::string>& inputs() const { return inputs_; }

 private:
  std::string label_;
  std::set<std::string> inputs_;
  std::map<std::int64_t, std::string> by_rank_;  // empty: inputs_ (at most one) times every kernel
};

// Fills each row's insight, times_from, actions, why_no_actions, timeline_rules and ranked.
void AnalyzeKernels(KernelsReport& report, const analysis::KernelCategorizer& categorizer);

std::string KernelsMarkdown(const KernelsReport& report, std::size_t top_k);
// `phases`: the LLM phases section (analysis/phases.h), written when given.
std::string KernelsJson(const KernelsReport& report, const analysis::PhaseReport* phases = nullptr);
// The same, written to `out` as it goes (a many-rank kernels.json is large).
void WriteKernelsJson(const KernelsReport& report, const analysis::PhaseReport* phases, std::ostream& out);

}  // namespace llmpo::report
