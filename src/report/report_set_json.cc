// Errors name the member they are about (/kernels/kernels/3/calls). This
// build of nlohmann::json lives in its own ABI namespace (json_abi_diag_*),
// so it never meets the other translation units' json type.
#define JSON_DIAGNOSTICS 1

#include "src/report/report_set_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/core/version.h"
#include "src/report/json_writer.h"

// std::optional: null when unknown (Debian's 3.11.2 has no built-in support).
NLOHMANN_JSON_NAMESPACE_BEGIN
template <typename T>
struct adl_serializer<std::optional<T>> {
  template <typename BasicJsonType>
  static void to_json(BasicJsonType& j, const std::optional<T>& value) {
    if (value) {
      j = *value;
    } else {
      j = nullptr;
    }
  }
  template <typename BasicJsonType>
  static void from_json(const BasicJsonType& j, std::optional<T>& value) {
    if (j.is_null()) {
      value.reset();
    } else {
      value = j.template get<T>();
    }
  }
};
NLOHMANN_JSON_NAMESPACE_END

namespace llmpo {
namespace {
// Members in the order the structs declare them (ordered_json), so the file
// reads like the headers.
using Json = nlohmann::ordered_json;
}  // namespace

#include "src/report/json_stream.inc"

// to_json / from_json for a struct's members, by name, each member required
// when read (unknown ones are ignored). Internal linkage: only this file
// serialises the model, and argument-dependent lookup still finds them.
#define LLMPO_JSON_TO(...) NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_TO, __VA_ARGS__))
#define LLMPO_JSON_FROM(...) NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_FROM, __VA_ARGS__))
// to_stream (Stream's twin of to_json) for the same members in the same order.
#define LLMPO_STREAM_ONE(field) nlohmann_json_o(#field, nlohmann_json_t.field);
#define LLMPO_JSON_STREAM(...) NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(LLMPO_STREAM_ONE, __VA_ARGS__))
#define LLMPO_JSON_STREAM_FN(Type, after, ...)                                                             \
  [[maybe_unused]] static void to_stream(std::string& out, const Type& nlohmann_json_t, unsigned indent) { \
    ObjectStream nlohmann_json_o(out, indent);                                                             \
    LLMPO_JSON_STREAM(__VA_ARGS__)                                                                         \
    after nlohmann_json_o.Close();                                                                         \
  }
#define LLMPO_JSON_FIELDS(Type, ...)                                                           \
  LLMPO_JSON_STREAM_FN(Type, , __VA_ARGS__)                                                    \
  [[maybe_unused]] static void to_json(Json& nlohmann_json_j, const Type& nlohmann_json_t) {   \
    LLMPO_JSON_TO(__VA_ARGS__)                                                                 \
  }                                                                                            \
  [[maybe_unused]] static void from_json(const Json& nlohmann_json_j, Type& nlohmann_json_t) { \
    LLMPO_JSON_FROM(__VA_ARGS__)                                                               \
  }

// The same, with one member added by a later minor version (1.1): written
// last, and read as its empty value (null, []) from a file that lacks it.
#define LLMPO_JSON_FIELDS_ADDED(Type, added, ...)                                              \
  LLMPO_JSON_STREAM_FN(Type, nlohmann_json_o(#added, nlohmann_json_t.added);, __VA_ARGS__)     \
  [[maybe_unused]] static void to_json(Json& nlohmann_json_j, const Type& nlohmann_json_t) {   \
    LLMPO_JSON_TO(__VA_ARGS__)                                                                 \
    nlohmann_json_j[#added] = nlohmann_json_t.added;                                           \
  }                                                                                            \
  [[maybe_unused]] static void from_json(const Json& nlohmann_json_j, Type& nlohmann_json_t) { \
    LLMPO_JSON_FROM(__VA_ARGS__)                                                               \
    const auto it = nlohmann_json_j.find(#added);                                              \
    if (it == nlohmann_json_j.end()) {                                                         \
      nlohmann_json_t.added = {};                                                              \
    } else {                                                                                   \
      it->get_to(nlohmann_json_t.added);                                                       \
    }                                                                                          \
  }

// The same with two members added by later minor versions.
#define LLMPO_JSON_FIELDS_ADDED2(Type, added1, added2, ...)                                    \
  LLMPO_JSON_STREAM_FN(Type, nlohmann_json_o(#added1, nlohmann_json_t.added1);                 \
                       nlohmann_json_o(#added2, nlohmann_json_t.added2);, __VA_ARGS__)         \
  [[maybe_unused]] static void to_json(Json& nlohmann_json_j, const Type& nlohmann_json_t) {   \
    LLMPO_JSON_TO(__VA_ARGS__)                                                                 \
    nlohmann_json_j[#added1] = nlohmann_json_t.added1;                                         \
    nlohmann_json_j[#added2] = nlohmann_json_t.added2;                                         \
  }                                                                                            \
  [[maybe_unused]] static void from_json(const Json& nlohmann_json_j, Type& nlohmann_json_t) { \
    LLMPO_JSON_FROM(__VA_ARGS__)                                                               \
    for (const auto& [key, member] : {std::pair{#added1, 0}, std::pair{#added2, 1}}) {         \
      const auto it = nlohmann_json_j.find(key);                                               \
      if (member == 0) {                                                                       \
        nlohmann_json_t.added1 = {};                                                           \
        if (it != nlohmann_json_j.end()) it->get_to(nlohmann_json_t.added1);                   \
      } else {                                                                                 \
        nlohmann_json_t.added2 = {};                                                           \
        if (it != nlohmann_json_j.end()) it->get_to(nlohmann_json_t.added2);                   \
      }                                                                                        \
    }                                                                                          \
  }

// An enum as one of its names; any other value is an error naming them.
template <typename E, std::size_t N>
void EnumToJson(Json& j, E e, const std::pair<E, std::string_view> (&names)[N]) {
  for (const auto& [value, name] : names) {
    if (value == e) {
      j = std::string(name);
      return;
    }
  }
  j = nullptr;  // not reached: every value has a name
}

template <typename E, std::size_t N>
void EnumToStream(std::string& out, E e, const std::pair<E, std::string_view> (&names)[N], unsigned indent) {
  for (const auto& [value, name] : names) {
    if (value == e) return Stream(out, name, indent);
  }
  out += "null";  // as EnumToJson
}

template <typename E, std::size_t N>
void EnumFromJson(const Json& j, E& e, const std::pair<E, std::string_view> (&names)[N]) {
  if (j.is_string()) {
    for (const auto& [value, name] : names) {
      if (name == j.get_ref<const std::string&>()) {
        e = value;
        return;
      }
    }
  }
  std::string known;
  for (const auto& [value, name] : names) known += fmt::format("{}\"{}\"", known.empty() ? "" : ", ", name);
  throw Json::type_error::create(302, fmt::format("{} is not one of {}", j.dump(), known), &j);
}

#define LLMPO_JSON_ENUM(E, ...)                                                                \
  static constexpr std::pair<E, std::string_view> k##E##Names[] = __VA_ARGS__;                 \
  [[maybe_unused]] static void to_stream(std::string& out, const E& e, unsigned indent) {      \
    EnumToStream(out, e, k##E##Names, indent);                                                 \
  }                                                                                            \
  [[maybe_unused]] static void to_json(Json& j, const E& e) { EnumToJson(j, e, k##E##Names); } \
  [[maybe_unused]] static void from_json(const Json& j, E& e) { EnumFromJson(j, e, k##E##Names); }

LLMPO_JSON_ENUM(Dimension, {{Dimension::kNone, "none"},
                            {Dimension::kTime, "time"},
                            {Dimension::kBytes, "bytes"},
                            {Dimension::kByteRate, "byte_rate"},
                            {Dimension::kFrequency, "frequency"},
                            {Dimension::kPercent, "percent"},
                            {Dimension::kOther, "other"}})

namespace model {
LLMPO_JSON_ENUM(SourceFamily, {{SourceFamily::kTimeline, "timeline"},
                               {SourceFamily::kNcu, "ncu"},
                               {SourceFamily::kSummary, "summary"}})
LLMPO_JSON_ENUM(FindingType, {{FindingType::kOptimization, "OPT"},
                              {FindingType::kWarning, "WRN"},
                              {FindingType::kInfo, "INF"},
                              {FindingType::kError, "ERR"}})
LLMPO_JSON_ENUM(SpeedupKind, {{SpeedupKind::kLocal, "local"}, {SpeedupKind::kGlobal, "global"}})
LLMPO_JSON_ENUM(LaunchOverheadFrom,
                {{LaunchOverheadFrom::kKernExecSum, "cuda_kern_exec_sum"}, {LaunchOverheadFrom::kTimeline, "timeline"}})
LLMPO_JSON_ENUM(Severity,
                {{Severity::kInfo, "info"}, {Severity::kWarning, "warning"}, {Severity::kDataLoss, "data_loss"}})

LLMPO_JSON_FIELDS(ProcessId, host, name, pid, rank)
LLMPO_JSON_FIELDS(DeviceInfo, id, name, sm_count, compute_capability_major, compute_capability_minor, sm_clock_max_khz,
                  memory_clock_max_khz, memory_bus_width_bits, l2_cache_bytes, total_memory_bytes, attributes)
LLMPO_JSON_FIELDS(Finding, rule, section, type, message, speedup_pct, speedup_kind, title)
LLMPO_JSON_FIELDS(TimeStats, total_ns, mean_ns, median_ns, min_ns, max_ns, stddev_ns)
LLMPO_JSON_FIELDS_ADDED(ApiSummaryRow, rank, name, calls, time, time_pct)
LLMPO_JSON_FIELDS(GpuOpSummaryRow, operation, count, time, total_bytes, mean_bytes, max_bytes)
LLMPO_JSON_FIELDS(LaunchOverheadRow, process, thread, device, api_name, kernel_name, from, count, queue_count,
                  api_mean_ns, api_median_ns, api_max_ns, queue_mean_ns, queue_median_ns, queue_max_ns, kernel_mean_ns,
                  total_mean_ns)
LLMPO_JSON_FIELDS(DiagnosticEntry, severity, count, first_example)

[[maybe_unused]] static void to_stream(std::string& out, const Diagnostics& d, unsigned indent) {
  ObjectStream o(out, indent);
  o("rows_read", d.rows_read());
  o("entries", d.entries());
  o("notes", d.notes());
  o.Close();
}
[[maybe_unused]] static void to_json(Json& j, const Diagnostics& d) {
  j["rows_read"] = d.rows_read();
  j["entries"] = d.entries();
  j["notes"] = d.notes();
}
[[maybe_unused]] static void from_json(const Json& j, Diagnostics& d) {
  d = Diagnostics::Restore(j.at("rows_read").get<std::uint64_t>(),
                           j.at("entries").get<std::map<std::string, DiagnosticEntry, std::less<>>>(),
                           j.at("notes").get<std::vector<std::string>>());
}

LLMPO_JSON_FIELDS(KernelClassTimes, computation_ns, communication_ns, memory_ns, comm_comp_overlap_pct)
LLMPO_JSON_FIELDS(LaunchStats, launches, cpu_mean_ns, cpu_max_ns, gpu_mean_ns, gpu_max_ns, delay_mean_ns, delay_max_ns,
                  gpu_shorter_than_call)
// communication_kernel_ns: 1.5.0; start_unix_ns: 1.7.0
LLMPO_JSON_FIELDS_ADDED2(StepTimes, communication_kernel_ns, start_unix_ns, step, cpu_ns, gpu_kernel_ns)
LLMPO_JSON_FIELDS(StepBreakdown, step, gpu_ops, span_ns, busy_ns, idle_ns, classes)
// step_breakdowns: 1.7.0
LLMPO_JSON_FIELDS_ADDED(DeviceBreakdown, step_breakdowns, source, process, device, rank, world_size, kernels,
                        memory_ops, kernel_ns, span_ns, busy_ns, idle_ns, classes, launch, steps)
LLMPO_JSON_FIELDS(CpuOpTimes, source, process, name, calls, cpu_ns, gpu_self_ns, gpu_total_ns, kernels)
LLMPO_JSON_FIELDS(GpuBreakdown, devices, cpu_ops)
}  // namespace model

namespace analysis {
LLMPO_JSON_ENUM(Aggregation, {{Aggregation::kSum, "sum"},
                              {Aggregation::kMean, "mean"},
                              {Aggregation::kDurationWeightedMean, "duration_weighted_mean"},
                              {Aggregation::kMin, "min"},
                              {Aggregation::kMax, "max"}})
LLMPO_JSON_ENUM(BoundClass, {{BoundClass::kHighThroughput, "high-throughput"},
                             {BoundClass::kCompute, "compute"},
                             {BoundClass::kMemory, "memory"},
                             {BoundClass::kBalanced, "balanced"},
                             {BoundClass::kLatency, "latency"},
                             {BoundClass::kSmallGrid, "small-grid"},
                             {BoundClass::kUnknown, "unknown"}})
LLMPO_JSON_ENUM(RegionKind, {{RegionKind::kPushPop, "push_pop"},
                             {RegionKind::kStartEnd, "start_end"},
                             {RegionKind::kSummary, "summary"}})
LLMPO_JSON_ENUM(Quantity, {{Quantity::kTotal, "total"},
                           {Quantity::kGpuOps, "gpu_ops"},
                           {Quantity::kProjected, "projected"},
                           {Quantity::kCpu, "cpu"}})

// metric_layout is building state (an id unique in the importing process): not kept.
LLMPO_JSON_FIELDS(MetricAggregate, name, section, unit, dimension, rule, rule_known, sum, min, max, weighted_sum,
                  weight_ns, unweighted, values, missing, unit_conflicts)
LLMPO_JSON_FIELDS(KernelFinding, finding, shape, occurrence, launches, speedup_values, speedup_sum,
                  speedup_weighted_sum, speedup_weight_ns, speedup_unweighted)
LLMPO_JSON_FIELDS_ADDED(KernelAggregate, sum_sq_dev_ns2, source, process, device, name, calls, timed_calls, total_ns,
                        min_ns, max_ns, median_ns, stddev_ns, time_pct, metrics, findings)

// Launch sequences (1.2.0). A step is an array [signature, samples, mean_ns,
// sum_sq_dev_ns2]: thousands of them per sequence.
LLMPO_JSON_FIELDS(KernelSignature, name, grid, block)
[[maybe_unused]] static void to_stream(std::string& out, const SequenceStep& s, unsigned indent) {
  ArrayStream a(out, indent);
  a(s.signature);
  a(s.samples);
  a(s.mean_ns);
  a(s.sum_sq_dev_ns2);
  a.Close();
}
[[maybe_unused]] static void to_json(Json& j, const SequenceStep& s) {
  j = Json::array({s.signature, s.samples, s.mean_ns, s.sum_sq_dev_ns2});
}
[[maybe_unused]] static void from_json(const Json& j, SequenceStep& s) {
  if (!j.is_array() || j.size() != 4) {
    throw Json::type_error::create(302, "a sequence step must be [signature, samples, mean_ns, sum_sq_dev_ns2]", &j);
  }
  j.at(0).get_to(s.signature);
  j.at(1).get_to(s.samples);
  j.at(2).get_to(s.mean_ns);
  j.at(3).get_to(s.sum_sq_dev_ns2);
}
LLMPO_JSON_FIELDS(LaunchSequence, path, process, device, instances, diverged, beyond_cap, ordered, steps)
LLMPO_JSON_FIELDS(SourceSequences, source, signatures, sequences, launches_not_recorded)

template <typename Row>
[[maybe_unused]] static void to_stream(std::string& out, const FromInput<Row>& f, unsigned indent) {
  ObjectStream o(out, indent);
  o("source", f.source);
  o("row", f.row);
  o.Close();
}
template <typename Row>
[[maybe_unused]] static void to_json(Json& j, const FromInput<Row>& f) {
  j["source"] = f.source;
  j["row"] = f.row;
}
template <typename Row>
[[maybe_unused]] static void from_json(const Json& j, FromInput<Row>& f) {
  j.at("source").get_to(f.source);
  j.at("row").get_to(f.row);
}

LLMPO_JSON_FIELDS(RuntimeSummaries, api_calls, gpu_ops, launch_overhead, repeated_rows, repeated_launch_paths)
// The timeline rules' device facts (1.3.0).
LLMPO_JSON_FIELDS(TimelineFacts, gaps, host_wait_ns, kernel_wait_ns, other_wait_ns, unclassified_wait_ns,
                  with_launch_call, kernel_busy_ns, copy_only_ns, copy_ns, copies_with_memory, pageable_copies,
                  pageable_copy_ns, cpu_ranges, starving_op, starving_op_ns, starving_idle_ns, missing)
LLMPO_JSON_FIELDS_ADDED(DeviceBusy, facts, source, device, kernels, copies, span_ns, busy_ns, idle_ns, idle_pct,
                        missing)
LLMPO_JSON_FIELDS(RegionKernel, region, kernel, by_launch)
LLMPO_JSON_FIELDS(Bound, cls, unit, sm_pct, memory_pct, waves_per_sm, reason)
LLMPO_JSON_FIELDS(RooflineLevel, level, achieved_bytes_per_s, peak_bytes_per_s, intensity, ridge, pct_of_roof, missing)
LLMPO_JSON_FIELDS(RooflinePrecision, precision, path, instruction, sparse, achieved_per_s, peak_per_s, missing, levels)
LLMPO_JSON_FIELDS(Roofline, precisions, missing)
LLMPO_JSON_FIELDS(RooflineSummary, precision, level, kernels, time_ns, achieved_per_s, intensity, pct_of_roof)
LLMPO_JSON_FIELDS(RankSpread, quantity, min, median, max, min_process, max_process)
LLMPO_JSON_FIELDS(StepSpread, step, ranks, min_cpu_ms, median_cpu_ms, max_cpu_ms, slowest_process)
LLMPO_JSON_FIELDS(RankComparison, processes, quantities, steps)
LLMPO_JSON_FIELDS(RankCollectives, rank, communication_ns, beyond_least_ns)
LLMPO_JSON_FIELDS(RankWho, rank, hosts, processes, devices, world_size, inputs, local_rank, node, visible_devices,
                  ended)
LLMPO_JSON_FIELDS(LateStart, step, ranks, first_rank, latest_rank, latest_after_first_ns, after_first_ns)
// per_rank_ns: 1.3; collectives: 1.5
LLMPO_JSON_FIELDS_ADDED2(StragglerRow, per_rank_ns, collectives, region, quantity, ranks, slowest_rank, fastest_rank,
                         slowest_ns, median_ns, fastest_ns, excess_ns, excess_pct)
[[maybe_unused]] static void to_stream(std::string& out, const Stragglers& s, unsigned indent) {
  ObjectStream o(out, indent);
  o("ranks", s.ranks);
  o("steps", s.steps);
  o("regions", s.regions);
  o("steps_omitted", s.steps_omitted);
  o("collectives", s.collectives);
  o("late_starts", s.late_starts);
  o("start_clock", ToString(s.start_clock));
  o("who", s.who);
  o.Close();
}
[[maybe_unused]] static void to_json(Json& j, const Stragglers& s) {
  j["ranks"] = s.ranks;
  j["steps"] = s.steps;
  j["regions"] = s.regions;
  j["steps_omitted"] = s.steps_omitted;        // 1.3
  j["collectives"] = s.collectives;            // 1.3
  j["late_starts"] = s.late_starts;            // 1.7
  j["start_clock"] = ToString(s.start_clock);  // 1.7
  j["who"] = s.who;                            // 1.8
}
[[maybe_unused]] static void from_json(const Json& j, Stragglers& s) {
  j.at("ranks").get_to(s.ranks);
  j.at("steps").get_to(s.steps);
  j.at("regions").get_to(s.regions);
  s.steps_omitted = j.value("steps_omitted", std::size_t{0});
  if (const auto it = j.find("collectives"); it != j.end()) it->get_to(s.collectives);
  if (const auto it = j.find("late_starts"); it != j.end()) it->get_to(s.late_starts);
  const bool one_host = j.value("start_clock", std::string()) == ToString(StartClock::kOneHost);
  s.start_clock = one_host ? StartClock::kOneHost : StartClock::kHostClocks;
  if (const auto it = j.find("who"); it != j.end()) it->get_to(s.who);
}
LLMPO_JSON_FIELDS(MetricSelection, sections, metrics)
LLMPO_JSON_FIELDS(InstanceStats, count, min_ns, max_ns, total_ns, has_extremes)
LLMPO_JSON_FIELDS(AlsoMeasured, quantity, input, ns)

// As std::map<std::int64_t, double> is written: [[id, value], ...] in id order.
[[maybe_unused]] static void to_stream(std::string& out, const InstanceValues& values, unsigned indent) {
  ArrayStream a(out, indent);
  values.ForEach([&](std::int64_t id, double v) { a(std::pair{id, v}); });
  a.Close();
}
[[maybe_unused]] static void to_json(Json& j, const InstanceValues& values) {
  j = Json::array();
  values.ForEach([&](std::int64_t id, double v) { j.push_back(Json::array({id, v})); });
}
[[maybe_unused]] static void from_json(const Json& j, InstanceValues& values) {
  values.clear();
  for (const auto& [id, v] : j.get<std::map<std::int64_t, double>>()) values[id] = v;
  values.ShrinkToFit();
}

// Starts per instance, as InstanceValues are written (integer ns).
[[maybe_unused]] static void to_stream(std::string& out, const InstanceStarts& starts, unsigned indent) {
  ArrayStream a(out, indent);
  starts.ForEach([&](std::int64_t id, std::int64_t t) { a(std::pair{id, t}); });
  a.Close();
}
[[maybe_unused]] static void to_json(Json& j, const InstanceStarts& starts) {
  j = Json::array();
  starts.ForEach([&](std::int64_t id, std::int64_t t) { j.push_back(Json::array({id, t})); });
}
[[maybe_unused]] static void from_json(const Json& j, InstanceStarts& starts) {
  starts.clear();
  for (const auto& [id, t] : j.get<std::map<std::int64_t, std::int64_t>>()) starts.Earliest(id, t);
  starts.ShrinkToFit();
}

// What the writers and Region's methods read; not the building state
// (kernel_ns, instance spans, ...). Per-instance GPU times (instance_ns)
// are kept only where Instances() reads them: no measured, CPU or projected
// instances.
#define LLMPO_REGION_MEMBERS                                                                                          \
  label, name, domain, kind, path, parent, children, depth, total_ns, exclusive_ns, gpu_ops_ns, gpu_ops_exclusive_ns, \
      projected_ns, cpu_ns, cpu_exclusive_ns, derived_total, launches, excluded, gpu_ops, kernels, inputs,            \
      also_measured, measured, cpu_instances, projected_stats, range_metrics
// The instance times written: none where Instances() does not read them.
static const InstanceValues& WrittenInstances(const Region& r) {
  static const InstanceValues kNone;
  const bool read = r.measured.count == 0 && r.cpu_instances.count == 0 && r.projected_stats.count == 0;
  return read ? r.instance_ns : kNone;
}
[[maybe_unused]] static void to_stream(std::string& out, const Region& nlohmann_json_t, unsigned indent) {
  ObjectStream nlohmann_json_o(out, indent);
  LLMPO_JSON_STREAM(LLMPO_REGION_MEMBERS)
  nlohmann_json_o("instance_ns", WrittenInstances(nlohmann_json_t));
  nlohmann_json_o.Close();
}
[[maybe_unused]] static void to_json(Json& nlohmann_json_j, const Region& nlohmann_json_t) {
  LLMPO_JSON_TO(LLMPO_REGION_MEMBERS)
  nlohmann_json_j["instance_ns"] = WrittenInstances(nlohmann_json_t);
}
// clang-format off: it reads the macros below as one statement continued.
[[maybe_unused]] static void from_json(const Json& nlohmann_json_j, Region& nlohmann_json_t){
    LLMPO_JSON_FROM(LLMPO_REGION_MEMBERS, instance_ns)} LLMPO_JSON_FIELDS(TimelineFinding, rule, scope, saving_ns,
                                                                          span_ns, saving_pct, message, evidence)
    LLMPO_JSON_FIELDS(TimelineRulesResult, findings, not_evaluated)
        LLMPO_JSON_FIELDS(ServingMetrics, ttft_ns, tpot_ns, tokens_per_s, prefill_instances, decode_steps, ttft_from,
                          tpot_from, ttft_missing, tpot_missing)
    // The LLM phases (analysis/phases.h; 1.2.0), in ns as the structs keep them.
    LLMPO_JSON_ENUM(Phase, {{Phase::kPrefill, "prefill"},
                            {Phase::kDecode, "decode"},
                            {Phase::kMixed, "mixed"},
                            {Phase::kUnknown, "unknown"}})
        LLMPO_JSON_ENUM(StepScheme, {{StepScheme::kConfig, "config"},
                                     {StepScheme::kVllm, "vllm"},
                                     {StepScheme::kSglang, "sglang"},
                                     {StepScheme::kWorkload, "workload"},
                                     {StepScheme::kVllmStep, "vllm_step"},
                                     {StepScheme::kProfiler, "profiler"}})
            LLMPO_JSON_FIELDS(PhaseStep, scope, name, phase, scheme, prefill_requests, prefill_tokens, decode_requests,
                              decode_tokens, tokens_from, cpu_start_ns, cpu_end_ns, gpu_kernel_ns, kernels,
                              graph_launches, gpu_span_ns, gpu_idle_ns, ttft_gpu_ns, warmup, warmup_reason)
                LLMPO_JSON_FIELDS(PhaseKernel, name, category, bound, gpu_ns, launches)
                    LLMPO_JSON_FIELDS(PhaseUtilization, model_flops, achieved_tflops, mfu_pct, model_bytes,
                                      achieved_gbps, mbu_pct, mfu_missing, mbu_missing)
    // utilization: 1.3.0
    LLMPO_JSON_FIELDS_ADDED(PhaseSummary, utilization, phase, steps, warmup_steps, gpu_kernel_ns, gpu_idle_ns,
                            share_pct, mean_step_gpu_ns, top_kernels, categories, tokens, steps_with_tokens,
                            gpu_ns_per_token, tokens_from)
        LLMPO_JSON_FIELDS(DecodeBatch, tokens_per_step, steps, mean_step_gpu_ns, gpu_ns_per_token)
            LLMPO_JSON_FIELDS(GraphRange, range, phase, in_step, launches, kernels, gpu_kernel_ns)
    // graph_id: 1.3.0
    LLMPO_JSON_FIELDS_ADDED(GraphRow, graph_id, scope, first_kernel, launches, kernels, kernels_per_launch_min,
                            kernels_per_launch_max, gpu_kernel_ns, launch_call_ns, ranges)
        LLMPO_JSON_FIELDS(PhaseReport, schemes, steps, phases, decode_batches, steady_state, warmup_rule,
                          kernels_outside_steps, gpu_ns_outside_steps, graphs, notes)
// clang-format on

}  // namespace analysis

namespace report {
LLMPO_JSON_FIELDS_ADDED(SourceInfo, devices, path, format, failure, family)
LLMPO_JSON_FIELDS(KernelInsight, category, bound, roofline)
LLMPO_JSON_FIELDS(Action, kernel, category, share_pct, time_ns, speedup_pct, basis, saving_pct_of_gpu, rule, section,
                  message, evidence)
// Every member of KernelAggregate, then the row's own (a test checks the
// two lists name the same members).
LLMPO_JSON_FIELDS_ADDED(KernelRow, sum_sq_dev_ns2, source, process, device, name, calls, timed_calls, total_ns, min_ns,
                        max_ns, median_ns, stddev_ns, time_pct, metrics, findings, insight)
LLMPO_JSON_ENUM(RankBase, {{RankBase::kNone, "none"},
                           {RankBase::kDeviceSpan, "device_span"},
                           {RankBase::kGpuKernelTime, "gpu_kernel_time"},
                           {RankBase::kNcuKernelTime, "ncu_kernel_time"}})
LLMPO_JSON_FIELDS(RankedAction, kind, what, where, basis, rule, saving_ns, saving_pct, message, evidence)
LLMPO_JSON_FIELDS(RankedActions, times_from, base, base_ns, devices, items, notes, why_no_kernel_actions)
LLMPO_JSON_FIELDS_ADDED2(KernelsReport, timeline_rules, ranked, sources, kernels, runtime, times_from, actions,
                         why_no_actions, source_notes, gpu_busy, region_kernels, diagnostics)
LLMPO_JSON_FIELDS(GpuBreakdownReport::ClassDifference, name, category, klass, why)
LLMPO_JSON_FIELDS_ADDED2(GpuBreakdownReport, class_differences, class_differences_total, breakdown, ranks, top_cpu_ops,
                         cpu_ops_with_gpu)
LLMPO_JSON_FIELDS(TimelineRow, label, busy_ns, busy_total_ns)
// rows_left_out only when rows were left out, so a timeline with every row
// reads and writes as before it existed.
[[maybe_unused]] static void to_json(Json& nlohmann_json_j, const TimelineOverview& nlohmann_json_t) {
  LLMPO_JSON_TO(source, start_ns, end_ns, bins, bin_ns, bins_start_ns, rows, gpu_busy_ns, gpu_idle_ns, devices, gpu_ops)
  if (nlohmann_json_t.rows_left_out > 0) nlohmann_json_j["rows_left_out"] = nlohmann_json_t.rows_left_out;
}
[[maybe_unused]] static void from_json(const Json& nlohmann_json_j, TimelineOverview& nlohmann_json_t) {
  LLMPO_JSON_FROM(source, start_ns, end_ns, bins, bin_ns, bins_start_ns, rows, gpu_busy_ns, gpu_idle_ns, devices,
                  gpu_ops)
  nlohmann_json_t.rows_left_out = nlohmann_json_j.value("rows_left_out", std::size_t{0});
}
LLMPO_JSON_FIELDS(RunContext::Step, name, status, reason, exit_code)
LLMPO_JSON_FIELDS(RunContext, run_name, workload, gpu, steps, files, region_flops, peak_tflops, region_bytes, peak_gbps,
                  prefill_region, decode_region, tokens_per_step)
LLMPO_JSON_FIELDS(StageRow, label, gpu_kernel_ns, share_pct, share_known, launches, from)
LLMPO_JSON_FIELDS(MfuRow, region_path, flops, gpu_kernel_ns, missing, achieved_tflops, mfu_pct)
LLMPO_JSON_FIELDS(MbuRow, region_path, bytes, gpu_kernel_ns, missing, achieved_gbps, mbu_pct)
LLMPO_JSON_FIELDS(TopKernel, kernel, share_pct, bound, category)
LLMPO_JSON_FIELDS(RooflinePoint, kernel, precision, intensity, achieved_per_s, peak_per_s, dram_peak_bytes_per_s,
                  time_ns)
LLMPO_JSON_FIELDS(PageModel, kernel_rows, kernels_omitted, top_stages, other_stages_share_pct, region_rows)
LLMPO_JSON_FIELDS_ADDED2(RunModel, timeline_rules, ranked, run, times_from, gpu_kernel_ns, launches, distinct_kernels,
                         top_kernels, category_ns, roofline, has_regions, region_count, stages, mfu_configured,
                         mfu_without_regions, mfu, mbu, serving, actions, why_no_actions, recommendations)
LLMPO_JSON_FIELDS(RegionFinding, rule, kernels, launches, saving_pct)

namespace {

// Every member of `r` but its steps, which report_set.json writes one at a
// time: the steps are one per rank and step, too many to copy. The members
// are those LLMPO_JSON_FIELDS(PhaseReport, ...) above names.
analysis::PhaseReport WithoutSteps(const analysis::PhaseReport& r) {
  analysis::PhaseReport head;
  head.schemes = r.schemes;
  head.phases = r.phases;
  head.decode_batches = r.decode_batches;
  head.steady_state = r.steady_state;
  head.warmup_rule = r.warmup_rule;
  head.kernels_outside_steps = r.kernels_outside_steps;
  head.gpu_ns_outside_steps = r.gpu_ns_outside_steps;
  head.graphs = r.graphs;
  head.notes = r.notes;
  return head;
}

// A region entry holds its region; read back, the region goes to `store`
// (a deque: the entries' pointers stay valid as it grows).
#define LLMPO_ENTRY_MEMBERS                                                                                   \
  parent_label, folder, tree_index, category_ns, busy_pct, busy_missing, findings, roofline, kernels_by_time, \
      metric_columns, range_metric_columns
void StreamEntry(std::string& out, const RegionEntry& e, unsigned indent) {
  ObjectStream nlohmann_json_o(out, indent);
  nlohmann_json_o("region", *e.region);
  const RegionEntry& nlohmann_json_t = e;
  LLMPO_JSON_STREAM(LLMPO_ENTRY_MEMBERS)
  nlohmann_json_o.Close();
}

RegionEntry ReadEntry(const Json& nlohmann_json_j, std::deque<analysis::Region>& store) {
  RegionEntry nlohmann_json_t{};
  nlohmann_json_t.region = &store.emplace_back();
  nlohmann_json_j.at("region").get_to(store.back());
  LLMPO_JSON_FROM(LLMPO_ENTRY_MEMBERS)
  return nlohmann_json_t;
}

// `j`, which must be an array (the error names its place).
const Json& Array(const Json& j) {
  if (!j.is_array())
    throw Json::type_error::create(302, fmt::format("type must be array, but is {}", j.type_name()), &j);
  return j;
}

std::vector<RegionEntry> ReadEntries(const Json& j, std::deque<analysis::Region>& store) {
  Array(j);
  std::vector<RegionEntry> out;
  out.reserve(j.size());
  for (const auto& e : j) out.push_back(ReadEntry(e, store));
  return out;
}

// Every member but the entries: "scopes" and "aggregate" (unless null) are
// empty, and report_set.json writes them an entry at a time.
Json RegionsHead(const RegionsReport& r) {
  Json j;
  j["sources"] = r.sources;
  j["aggregate"] = !r.aggregate ? Json(nullptr) : Json::array();
  j["scopes"] = Json::array();
  j["selection"] = r.selection;
  j["launches_with_nvtx"] = r.launches_with_nvtx;
  j["launches_outside"] = r.launches_outside;
  j["launches_per_range"] = r.launches_per_range;
  j["notes"] = r.notes;
  j["diagnostics"] = r.diagnostics;
  return j;
}

RegionsReport ReadRegions(const Json& j) {
  auto store = std::make_shared<std::deque<analysis::Region>>();
  RegionsReport r;
  j.at("sources").get_to(r.sources);
  if (const Json& aggregate = j.at("aggregate"); !aggregate.is_null()) r.aggregate = ReadEntries(aggregate, *store);
  for (const Json& s : Array(j.at("scopes"))) {
    ScopeEntry scope;
    s.at("process").get_to(scope.process);
    s.at("device").get_to(scope.device);
    scope.regions = ReadEntries(s.at("regions"), *store);
    r.scopes.push_back(std::move(scope));
  }
  j.at("selection").get_to(r.selection);
  j.at("launches_with_nvtx").get_to(r.launches_with_nvtx);
  j.at("launches_outside").get_to(r.launches_outside);
  j.at("launches_per_range").get_to(r.launches_per_range);
  j.at("notes").get_to(r.notes);
  j.at("diagnostics").get_to(r.diagnostics);
  r.owned_regions = std::move(store);
  return r;
}

// report_set.json one top-level member at a time, each streamed (Stream)
// and handed on before the next, so a report of many ranks never holds the
// whole text (the bytes are dump(2)'s: JsonFileText).
class MemberWriter {
 public:
  // With a sink, what is written goes on to it whenever a megabyte has gathered.
  explicit MemberWriter(std::string& out, std::ostream* sink = nullptr) : out_(out), sink_(sink) {}
  void operator()(std::string_view key, const Json& value) { this->operator()<Json>(key, value); }
  template <typename T>
  void operator()(std::string_view key, const T& value) {
    Key(key);
    Stream(out_, value, 2);
    Flush(false);
  }
  void Flush(bool all) {
    if (sink_ == nullptr || (!all && out_.size() < (1u << 20))) return;
    sink_->write(out_.data(), static_cast<std::streamsize>(out_.size()));
    out_.clear();
  }
  // Writes element i of an array at the indent given.
  using ElementWriter = std::function<void(std::size_t, unsigned)>;
  template <typename T>
  ElementWriter Each(const std::vector<T>& items) {
    return [this, &items](std::size_t i, unsigned indent) { Stream(out_, items[i], indent); };
  }
  // A member that is an array: an element at a time, each handed on.
  template <typename T>
  void Array(std::string_view key, const std::vector<T>& items) {
    if (items.empty()) return (*this)(key, Json::array());
    Key(key);
    Elements({key, 0, items.size(), Each(items)});
  }
  // A member whose `array` (a member of its own at indent 4, per rank and
  // so large) is written one element at a time: `head` is the member with
  // that array empty; write(i, indent) writes the i-th of `n`.
  // `depth`: 1 for a member of the member, 2 for a member of one of those.
  template <typename Head>
  void Spliced(std::string_view key, const Head& head, std::string_view array, std::size_t n, ElementWriter write,
               std::size_t depth = 1) {
    SplicedMany(key, head, {Splice{array, depth, n, std::move(write)}});
  }
  // The same for several arrays of the member, each named once in `head`
  // at its depth.
  struct Splice {
    std::string_view array;
    std::size_t depth = 1;
    std::size_t n = 0;
    ElementWriter write;
  };
  template <typename Head>
  void SplicedMany(std::string_view key, const Head& head, std::vector<Splice> splices) {
    Key(key);
    WriteSpliced(head, 2, splices);
    Flush(false);
  }
  // `head`, written at `indent` (the depth of its members is indent / 2),
  // with each splice's empty array replaced by its elements.
  template <typename Head>
  void WriteSpliced(const Head& head, unsigned indent, const std::vector<Splice>& splices) {
    std::string text;
    Stream(text, head, indent);
    struct Place {
      std::size_t at, length;
      const Splice* splice;
    };
    std::vector<Place> places;
    for (const Splice& s : splices) {
      const std::string empty = fmt::format("\n{}\"{}\": []", std::string(2 * (s.depth + 1), ' '), s.array);
      const std::size_t at = text.find(empty);
      if (s.n > 0 && at != std::string::npos) places.push_back({at, empty.size(), &s});
    }
    std::sort(places.begin(), places.end(), [](const Place& a, const Place& b) { return a.at < b.at; });
    std::size_t done = 0;
    for (const Place& p : places) {
      out_.append(text, done, p.at + p.length - 2 - done);
      Elements(*p.splice);
      done = p.at + p.length;
    }
    out_.append(text, done, std::string::npos);
  }
  // The phases with their steps (one per rank and step) one at a time.
  void Phases(const std::optional<analysis::PhaseReport>& phases) {
    if (!phases || phases->steps.empty()) return (*this)("phases", phases);
    Spliced("phases", WithoutSteps(*phases), "steps", phases->steps.size(), Each(phases->steps));
  }
  // The regions a region entry at a time: the aggregate's, and each
  // scope's (one per rank and device) inside its scope. A scope of a large
  // trace holds megabytes of kernel tables; they are handed on as they go.
  void Regions(const std::optional<RegionsReport>& regions) {
    if (!regions) return (*this)("regions", nullptr);
    const RegionsReport& r = *regions;
    std::vector<Splice> splices;
    if (r.aggregate) {
      splices.push_back({"aggregate", 1, r.aggregate->size(),
                         [&](std::size_t i, unsigned indent) { StreamEntry(out_, (*r.aggregate)[i], indent); }});
    }
    splices.push_back({"scopes", 1, r.scopes.size(), [&](std::size_t i, unsigned indent) {
                         const ScopeEntry& s = r.scopes[i];
                         const Json head = {{"process", s.process}, {"device", s.device}, {"regions", Json::array()}};
                         WriteSpliced(head, indent,
                                      {Splice{"regions", indent / 2, s.regions.size(), [&](std::size_t k, unsigned at) {
                                                StreamEntry(out_, s.regions[k], at);
                                              }}});
                       }});
    SplicedMany("regions", RegionsHead(r), std::move(splices));
  }
  // The GPU breakdown with its devices (one per rank and device) one at a
  // time. The head holds every member GpuBreakdownReport's JSON names but
  // the devices, copied without them.
  void Breakdown(const std::optional<GpuBreakdownReport>& report) {
    if (!report || report->breakdown.devices.empty()) return (*this)("gpu_breakdown", report);
    GpuBreakdownReport head;
    head.breakdown.cpu_ops = report->breakdown.cpu_ops;
    head.ranks = report->ranks;
    head.top_cpu_ops = report->top_cpu_ops;
    head.cpu_ops_with_gpu = report->cpu_ops_with_gpu;
    head.class_differences = report->class_differences;
    head.class_differences_total = report->class_differences_total;
    const auto& devices = report->breakdown.devices;
    Spliced("gpu_breakdown", head, "devices", devices.size(), Each(devices), 2);
  }
  // The kernel table with its rows (one per rank scope and kernel name) and
  // its launch overhead rows one at a time. The head holds every member
  // KernelsReport's JSON names, copied without those two arrays.
  void Kernels(const KernelsReport& report) {
    const KernelsReport head = KernelsReportHead(report);
    const auto& rows = report.kernels;
    const auto& overhead = report.runtime.launch_overhead;
    SplicedMany(
        "kernels", head,
        {Splice{"kernels", 1, rows.size(), Each(rows)}, Splice{"launch_overhead", 2, overhead.size(), Each(overhead)}});
  }
  // The stragglers with their steps (per rank times each), late starts (per
  // rank each) and ranks' identities one at a time.
  void StragglerSteps(const std::optional<analysis::Stragglers>& s) {
    if (!s || s->steps.empty()) return (*this)("stragglers", s);
    analysis::Stragglers head = *s;
    head.steps.clear();
    head.late_starts.clear();
    head.who.clear();
    SplicedMany("stragglers", head,
                {Splice{"steps", 1, s->steps.size(), Each(s->steps)},
                 Splice{"late_starts", 1, s->late_starts.size(), Each(s->late_starts)},
                 Splice{"who", 1, s->who.size(), Each(s->who)}});
  }
  void Finish() { out_ += first_ ? "{}\n" : "\n}\n"; }

 private:
  // An array's elements, from "[" to "]", at its depth's indent (0: a
  // top-level member).
  void Elements(const Splice& s) {
    const std::string pad(2 * (s.depth + 1), ' ');
    const unsigned indent = static_cast<unsigned>(pad.size() + 2);
    out_ += "[\n";
    for (std::size_t i = 0; i < s.n; ++i) {
      out_.append(indent, ' ');
      s.write(i, indent);
      out_ += i + 1 < s.n ? ",\n" : "\n";
      Flush(false);
    }
    out_ += pad;
    out_ += "]";
  }
  void Key(std::string_view key) {
    out_ += first_ ? "{\n  \"" : ",\n  \"";
    first_ = false;
    out_ += key;
    out_ += "\": ";
  }

  std::string& out_;
  std::ostream* sink_;
  bool first_ = true;
};

void WriteSetJson(const ReportSet& set, MemberWriter& member) {
  member("schema_version", kReportSetSchemaVersion);
  member("tool", {{"name", kToolName}, {"version", kToolVersion}});
  member("top_k", set.top_k);
  member("run_folder", set.run_folder);
  member("regions_subdir", set.regions_subdir);
  member("trace_json_link", set.trace_json_link);
  member.Kernels(set.kernels);
  member("combined", set.combined);
  member.Breakdown(set.gpu_breakdown);
  member.Regions(set.regions);
  member("timeline", set.timeline);
  member("run", set.run);
  member("page", set.page);
  member.Array("launch_sequences", set.launch_sequences);  // added in 1.2.0
  member.Phases(set.phases);                               // 1.2.0
  member.StragglerSteps(set.stragglers);                   // 1.2
}

ReportSet ReadSet(const Json& j) {
  ReportSet set;
  j.at("top_k").get_to(set.top_k);
  j.at("run_folder").get_to(set.run_folder);
  j.at("regions_subdir").get_to(set.regions_subdir);
  j.at("trace_json_link").get_to(set.trace_json_link);
  j.at("kernels").get_to(set.kernels);
  j.at("combined").get_to(set.combined);
  j.at("gpu_breakdown").get_to(set.gpu_breakdown);
  if (const Json& regions = j.at("regions"); !regions.is_null()) set.regions = ReadRegions(regions);
  j.at("timeline").get_to(set.timeline);
  j.at("run").get_to(set.run);
  j.at("page").get_to(set.page);
  if (const auto it = j.find("launch_sequences"); it != j.end()) it->get_to(set.launch_sequences);
  if (const auto it = j.find("phases"); it != j.end()) it->get_to(set.phases);  // 1.2.0: older files have none
  if (const auto it = j.find("stragglers"); it != j.end()) it->get_to(set.stragglers);
  return set;
}

// nlohmann's message without its "[json.exception.type_error.302] " tag,
// the member's place ("(/kernels/sources/0) ") turned into words.
std::string Explain(const std::exception& e) {
  std::string_view what = e.what();
  if (const std::size_t tag = what.find("] "); what.starts_with("[json.exception.") && tag != what.npos) {
    what.remove_prefix(tag + 2);
  }
  if (what.starts_with("(/")) {
    const std::size_t close = what.find(") ");
    if (close != std::string_view::npos) {
      return fmt::format("member {}: {}", what.substr(1, close - 1), what.substr(close + 2));
    }
  }
  return std::string(what);
}

Error InputError(const std::string& origin, const std::string& what) {
  return MakeError(ExitStatus::kInput, fmt::format("{}: {}", origin, what));
}

// The major version of "M.m.p"; nullopt when the text is not one.
std::optional<int> MajorOf(std::string_view version) {
  int major = 0;
  const auto [end, ec] = std::from_chars(version.data(), version.data() + version.size(), major);
  if (ec != std::errc() || end == version.data() || end == version.data() + version.size() || *end != '.') {
    return std::nullopt;
  }
  return major;
}

Status CheckVersion(const Json& j, const std::string& origin) {
  const auto it = j.find("schema_version");
  if (it == j.end() || !it->is_string()) {
    return InputError(origin, "not a report set: no schema_version (a string such as \"1.0.0\")");
  }
  const std::string& version = it->get_ref<const std::string&>();
  const std::optional<int> major = MajorOf(version);
  if (!major) return InputError(origin, fmt::format("schema_version \"{}\" is not MAJOR.MINOR.PATCH", version));
  if (*major > kReportSetSchemaMajor) {
    return InputError(origin, fmt::format("schema_version {} is newer than this build reads (major version {}, "
                                          "schema {}); read it with a newer llm-perf-opt",
                                          version, kReportSetSchemaMajor, kReportSetSchemaVersion));
  }
  if (*major != kReportSetSchemaMajor) {
    return InputError(origin, fmt::format("schema_version {} is older than this build reads (major version {})",
                                          version, kReportSetSchemaMajor));
  }
  return OkStatus();
}

}  // namespace

std::string ReportSetJson(const ReportSet& set) {
  // Invalid UTF-8 becomes U+FFFD, as in every other JSON output.
  std::string out;
  MemberWriter member(out);
  WriteSetJson(set, member);
  member.Finish();
  return out;
}

void WriteReportSetJson(const ReportSet& set, std::ostream& out) {
  std::string buffer;
  MemberWriter member(buffer, &out);
  WriteSetJson(set, member);
  member.Finish();
  member.Flush(true);
}

Result<ReportSet> ReadReportSetJson(std::string_view text, const std::string& origin) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::exception& e) {
    return InputError(origin, "not valid JSON: " + Explain(e));
  }
  if (!j.is_object())
    return InputError(origin, fmt::format("not a report set: a JSON {}, not an object", j.type_name()));
  RETURN_IF_ERROR(CheckVersion(j, origin));
  try {
    return ReadSet(j);
  } catch (const Json::exception& e) {
    return InputError(origin, "not a report set this build can read: " + Explain(e));
  }
}

}  // namespace report
}  // namespace llmpo

#include "src/report/partial_set_json.inc"
