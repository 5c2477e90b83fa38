// LLM phases from a timeline: the steps of a run (analysis/phase_steps.h),
// each step's GPU kernel time, the split into prefill, decode, mixed and
// unknown, the GPU cost per token where token counts are known, warm-up
// steps left out of the per-phase numbers (steady state), and CUDA graph
// launches with their kernels attributed to the range and step of the
// launch call (docs/analysis.md, "Phases"). Pure: the collector below
// keeps what the analysis needs while an import runs; AnalyzePhases turns
// it into a PhaseReport.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "src/analysis/kernel_category.h"
#include "src/analysis/phase_kernels.h"
#include "src/analysis/phase_steps.h"
#include "src/analysis/step_names.h"
#include "src/core/hash.h"
#include "src/core/key_cache.h"
#include "src/model/diagnostics.h"
#include "src/model/sink.h"

namespace llmpo::analysis {

// analysis.phases.{prefill,decode}, analysis.steady_state,
// model.tokens.{prefill,decode} (tokens one prefill / decode step
// processes, used when the step's name gives none), and the model work for
// MFU / MBU per phase (analysis/phase_utilization.h).
struct PhaseOptions {
  std::vector<std::string> prefill_patterns, decode_patterns;
  bool steady_state = true;
  std::optional<double> prefill_tokens_per_step, decode_tokens_per_step;
  // model.flops_per_token.{prefill,decode}: model FLOPs per token the phase
  // processes; model.bytes_per_step.{prefill,decode,mixed}: bytes one step
  // reads from GPU memory (weights + KV cache).
  std::optional<double> prefill_flops_per_token, decode_flops_per_token;
  std::optional<double> prefill_bytes_per_step, decode_bytes_per_step, mixed_bytes_per_step;
  std::optional<double> peak_tflops, peak_gbps;  // pipeline.mfu.peak_tflops, pipeline.mfu.peak_bandwidth_gbps
};

// A scope label ("/path/to/input (process)") with the input's folders left
// out, for tables: a full path would be cut at a width that depends on where
// the input lies.
std::string ShortScope(const std::string& scope);

// What the collector kept: each timed kernel and each step range.
struct PhaseInput {
  using Kernel = TimedKernel;
  struct Range {
    std::string name;
    std::int64_t start = 0, end = 0;
    std::uint32_t scope = 0;
    StepName step;
  };
  // Kernels already reduced per step (DigestPhaseKernels): what the
  // analysis needs of them, without one entry per launch.
  struct StepKernels {
    using Name = StepNames::Name;  // a step keeps one per kernel name it ran
    std::uint32_t scope = 0;
    std::uint32_t step = 0;  // its index among its scope's steps, by start
    double gpu_ns = 0;
    std::uint64_t kernels = 0;
    std::int64_t first_start = 0, last_end = 0;
    std::optional<double> busy_ns = 0;  // the union of its kernels; null: unknown (phase_stream.h)
    std::uint32_t autotune = 0;  // the first autotuning kernel's name (0: none)
    StepNames names;             // GPU time and launches per kernel name (packed once complete)
  };
  struct Digest {
    std::vector<StepKernels> steps;
    std::uint64_t outside = 0, without_call = 0;  // kernels in no step; of them, without a launch call
    double outside_ns = 0;
  };
  std::vector<std::string> names{""};  // names[0]: no name
  std::vector<std::string> scopes;     // an input, and its process where it has several
  TimedKernelList kernels;
  std::vector<Range> ranges;
  Digest digest;
};

// `in` with its kernels reduced per step (PhaseInput::Digest): AnalyzePhases
// reports the same from it, and it no longer grows with the launches (a
// pooled import keeps one per rank). An input with CUDA graph launches is
// returned as it is: graphs need each kernel.
PhaseInput DigestPhaseKernels(PhaseInput in);

class PhaseStream;

// Keeps each timed kernel, or, after an input said its ranges are all in
// (OnNvtxRangesDone), reduces that input's kernels per step as they come
// (phase_stream.h).
class PhaseCollector : public model::RecordSink {
 public:
  explicit PhaseCollector(StepNamer namer);
  ~PhaseCollector() override;
  void SetSource(std::string label);
  void OnLaunch(const model::LaunchRecord& launch) override;
  void OnKernelSummary(const model::KernelSummaryRow&) override {}
  void OnNvtxRange(const model::NvtxRange& range) override;
  void OnNvtxRangesDone() override;
  PhaseInput Finish();

 private:
  std::uint32_t Name(const std::string& name);
  std::uint32_t KernelName(const model::LaunchRecord& launch);  // Name, by the record's key when it has one
  std::uint32_t RangeName(const std::string& name);             // Name, the last one remembered
  std::uint32_t Scope(const model::ProcessId& process);
  void EndStream();

  StepNamer namer_;
  // namer_'s answers by AssignPairKey(domain, name): range names repeat (layers,
  // attention, MLP) and each answer runs a few regular expressions. Cleared
  // when it holds kMaxClassified, so numbered names cannot grow it.
  static constexpr std::size_t kMaxClassified = 4096;
  std::unordered_map<std::string, std::optional<StepName>, StringHash, std::equal_to<>> classified_;
  std::string classify_key_;  // reused for lookups
  const std::optional<StepName>& Classify(const std::string& domain, const std::string& name);
  std::string source_;
  PhaseInput in_;
  std::unordered_map<std::string, std::uint32_t, StringHash, std::equal_to<>> name_ids_, scope_ids_;
  KeyCache<std::uint32_t> name_by_key_;  // kernel_name_key -> Name(kernel_name)
  std::unique_ptr<PhaseStream> stream_;  // while the current input's kernels are reduced as they come
  std::optional<model::ProcessId> last_process_;  // the scope of the last launch, looked up once per run
  std::uint32_t last_scope_ = 0;
  // The last launch's context key (0: none) and its range; its origin key and its scope.
  std::uint64_t last_context_key_ = 0, last_origin_key_ = 0;
  std::uint32_t last_context_range_ = 0, last_origin_scope_ = 0;
  std::string last_range_;  // RangeName's last name and its id (launches come in runs of one range)
  std::uint32_t last_range_id_ = 0;
};

struct PhaseStep {
  std::string scope, name;
  Phase phase = Phase::kUnknown;
  StepScheme scheme = StepScheme::kProfiler;
  std::optional<std::int64_t> prefill_requests, prefill_tokens, decode_requests, decode_tokens;
  std::string tokens_from;                        // "annotation", "config (model.tokens.*)", "" when unknown
  std::int64_t cpu_start_ns = 0, cpu_end_ns = 0;  // the range on the CPU
  double gpu_kernel_ns = 0;                       // kernels launched inside it
  std::uint64_t kernels = 0, graph_launches = 0;
  std::optional<double> gpu_span_ns;  // first kernel start to last kernel end; null without kernels
  std::optional<double> gpu_idle_ns;  // span minus the union of its kernels
  // A prefill step of one request (its count known): its GPU span, the GPU
  // part of that request's time to first token; null otherwise.
  std::optional<double> ttft_gpu_ns;
  bool warmup = false;
  std::string warmup_reason;
};

struct PhaseKernel {
  std::string name, category, bound;  // bound: ncu's class by kernel name ("unknown" without ncu)
  double gpu_ns = 0;
  std::uint64_t launches = 0;
};

// MFU and MBU of a phase: the model's work in its counted steps over the
// phase's GPU kernel time, as a share of the GPU's peak. Null with the reason
// in *_missing when an input is unknown.
struct PhaseUtilization {
  std::optional<double> model_flops, achieved_tflops, mfu_pct;
  std::optional<double> model_bytes, achieved_gbps, mbu_pct;
  std::string mfu_missing, mbu_missing;
};

struct PhaseSummary {
  Phase phase = Phase::kUnknown;
  std::size_t steps = 0, warmup_steps = 0;  // steps counted / found to be warm-up (left out unless steady_state is off)
  double gpu_kernel_ns = 0;
  double gpu_idle_ns = 0;
  double share_pct = 0;  // of the steps' GPU kernel time over all phases
  std::optional<double> mean_step_gpu_ns;
  std::vector<PhaseKernel> top_kernels;
  std::vector<std::pair<std::string, double>> categories;  // GPU ns, largest first
  // Cost per token: prefill tokens for prefill, decode tokens for decode,
  // both for mixed; over the steps whose count is known.
  std::optional<std::int64_t> tokens;
  std::size_t steps_with_tokens = 0;
  std::optional<double> gpu_ns_per_token;
  std::string tokens_from;
  PhaseUtilization utilization;
};

// Decode steps grouped by their decode tokens (the batch size).
struct DecodeBatch {
  std::int64_t tokens_per_step = 0;
  std::size_t steps = 0;
  double mean_step_gpu_ns = 0;  // TPOT as the GPU sees it at this batch size
  double gpu_ns_per_token = 0;
};

struct GraphRange {
  std::string range;  // innermost NVTX range of the launch call ("" outside every range)
  Phase phase = Phase::kUnknown;
  bool in_step = false;
  std::uint64_t launches = 0, kernels = 0;
  double gpu_kernel_ns = 0;
};

// Launches of one graph: same input and the same graph id where the input
// records one (nsys SQLite), else the same kernel sequence (Kineto and our
// traces record no graph id).
struct GraphRow {
  std::string scope, first_kernel;
  std::optional<std::int64_t> graph_id;
  std::uint64_t launches = 0, kernels = 0;
  std::uint64_t kernels_per_launch_min = 0, kernels_per_launch_max = 0;
  double gpu_kernel_ns = 0;
  std::optional<double> launch_call_ns;  // CPU time of the launch calls, once per launch; null when unknown
  std::vector<GraphRange> ranges;
};

struct PhaseReport {
  std::vector<std::string> schemes;  // per scope: "input: vllm (execute_context_...)"
  std::vector<PhaseStep> steps;      // per scope, in time order
  std::vector<PhaseSummary> phases;  // prefill, decode, mixed, unknown: those with steps
  std::vector<DecodeBatch> decode_batches;
  bool steady_state = true;
  std::string warmup_rule;
  std::uint64_t kernels_outside_steps = 0;
  double gpu_ns_outside_steps = 0;
  std::vector<GraphRow> graphs;
  std::vector<std::string> notes;
  bool empty() const { return steps.empty() && graphs.empty(); }
};

// `bound_of`: ncu's bound class of a kernel name ("unknown" when none).
PhaseReport AnalyzePhases(const PhaseInput& in, const PhaseOptions& options, const KernelCategorizer& categorizer,
                          const std::function<std::string(const std::string&)>& bound_of,
                          model::Diagnostics& diagnostics);

}  // namespace llmpo::analysis
