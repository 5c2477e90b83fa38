// What the importers produce: one record per profiled kernel launch (an ncu
// result, an nsys kernel execution), pre-aggregated per-kernel rows (nsys
// stats), and NVTX ranges. Units are already normalised (see core/units.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/core/units.h"
#include "src/model/findings.h"
#include "src/model/process_id.h"

namespace llmpo::model {

// A chart item's metric (ncu --print-details all, "Body Item Label") has the
// section "<section><kChartItemSeparator><item label>".
inline constexpr std::string_view kChartItemSeparator = " / ";
// The section without a chart item label.
inline std::string_view BaseSection(std::string_view section) {
  return section.substr(0, section.find(kChartItemSeparator));
}

// NVTX nesting deeper than this is folded: a launch or range below it counts
// in its ancestor at this depth (docs/regions.md). A program that pushes a
// range every step and never pops would otherwise cost depth^2 memory, time
// and output.
inline constexpr std::size_t kMaxNvtxDepth = 64;

struct Metric {
  std::string name;     // raw metric name where known (gpu__time_duration.sum), else the label (Duration)
  std::string section;  // ncu section name (see kChartItemSeparator), empty if none
  ParsedValue value;
};

// One NVTX range a launch ran inside.
struct NvtxFrame {
  std::string domain;  // empty: the default domain
  std::string name;
  std::optional<std::int64_t> instance;  // which occurrence, where the source says (range id, row id)

  bool operator==(const NvtxFrame&) const = default;
};

// What one launch record measured.
enum class LaunchKind {
  kKernel,  // one kernel execution
  kMemcpy,  // a GPU copy (timelines: nsys SQLite, our trace)
  kMemset,
  kRange,  // an ncu range or app-range replay result: a whole NVTX range measured as one
};

struct LaunchRecord {
  LaunchKind kind = LaunchKind::kKernel;
  std::string result_id;    // ncu "ID", or the row's id in an nsys export
  std::string kernel_name;  // as the tool printed it ("range" for range replay results, "[CUDA memcpy ...]")
  ProcessId process;
  std::string device;      // device index (or name) as text
  std::string block_size;  // "(256, 1, 1)"
  std::string grid_size;
  std::optional<double> duration_ns;
  std::vector<Metric> metrics;
  std::vector<Finding> findings;  // ncu's rule results for this launch
  // Launches with the same nonzero layout list the same metrics (section and
  // name) in the same order, so consumers may match them by position. 0:
  // unknown. Ids come from NewMetricLayout, unique in the process.
  std::uint64_t metric_layout = 0;
  std::vector<NvtxFrame> nvtx_stack;      // push/pop ranges around the launch, outermost first
  std::vector<NvtxFrame> nvtx_start_end;  // start/end ranges the launch ran inside
  bool has_nvtx = false;                  // the source records NVTX state for launches
  std::optional<std::int64_t> start_ns;   // timeline sources only
  std::optional<std::int64_t> end_ns;
  std::optional<std::int64_t> stream;
  std::optional<std::int64_t> correlation_id;
  std::optional<std::int64_t> global_tid;
  // The CPU call that launched it (timelines that pair the operation with its
  // launch call by correlation id: nsys SQLite, our trace, Kineto), on the
  // start_ns clock; null / empty when unknown. ncu results never have one.
  std::optional<std::int64_t> launch_call_start_ns;
  std::optional<std::int64_t> launch_call_end_ns;
  std::string launch_call_name;  // "cudaLaunchKernel" (nsys' version suffix "_v7000" dropped)
  std::string launch_thread;     // the launching thread's id as text (a TID)
  // The CUDA graph and graph node a kernel ran as (nsys SQLite traced with
  // --cuda-graph-trace=node: graphId, graphNodeId); null when unknown.
  std::optional<std::int64_t> graph_id, graph_node_id;
  // A copy's memory kinds, "Pageable -> Device" (source -> destination, as
  // the profiler names them); empty when unknown or not a copy.
  std::string copy_memory;
  // Nonzero: a key the importer gave kernel_name when it interned it (from
  // NewNameKeySpace), so that records with equal keys have equal names and
  // sinks may look the name up by the key. 0: none (the name decides).
  std::uint64_t kernel_name_key = 0;
  // Nonzero: a key the importer gave the launch's context (from
  // NewContextKey), so that records with equal keys have equal process,
  // device, launch_thread, launch_call_name, nvtx_stack and nvtx_start_end
  // (every field of every frame); sinks may then reuse what they found for
  // the record before instead of comparing those fields. 0: none.
  std::uint64_t context_key = 0;
  // The same for the launch's origin alone (process, device, launch_thread
  // and launch_call_name, not the frames): for sinks that do not look at
  // the frames, whose answers then outlive a change of NVTX range. Also from
  // NewContextKey; 0: none.
  std::uint64_t origin_key = 0;
};

// A CPU operation of a timeline long enough to starve the GPU (a PyTorch
// cpu_op of kCpuOpMinNs or more; docs/analysis.md "cpu_op_starving").
inline constexpr std::int64_t kCpuOpMinNs = 1'000'000;
struct CpuOp {
  std::string name;
  ProcessId process;
  std::int64_t start_ns = 0, end_ns = 0;
};

// A GPU as the profiler described it (ncu's device attributes). Each
// number is in the unit its name says; unknown is null.
struct DeviceInfo {
  std::string id;  // device index as text
  std::string name;
  std::optional<std::int64_t> sm_count;
  std::optional<std::int64_t> compute_capability_major, compute_capability_minor;
  std::optional<double> sm_clock_max_khz;      // max_gpu_frequency_khz (else clock_rate)
  std::optional<double> memory_clock_max_khz;  // max_mem_frequency_khz (else memory_clock_rate)
  std::optional<std::int64_t> memory_bus_width_bits;
  std::optional<std::int64_t> l2_cache_bytes;
  std::optional<std::int64_t> total_memory_bytes;
  // Every attribute as the profiler stored it: name, value as text.
  std::vector<std::pair<std::string, std::string>> attributes;
};

// One row of an nsys per-kernel summary (cuda_gpu_kern_sum and friends).
struct KernelSummaryRow {
  std::string kernel_name;
  ProcessId process;
  std::string device;
  std::int64_t calls = 0;
  double total_ns = 0;
  std::optional<double> min_ns;
  std::optional<double> max_ns;
  std::optional<double> median_ns;
  std::optional<double> stddev_ns;
  std::optional<double> time_pct;  // nsys "Time (%)"
};

// An NVTX range as a timeline recorded it (one instance, with start and
// end on the CPU), or one row of a pre-aggregated summary (nsys stats).
struct NvtxRange {
  std::string name;
  std::string domain;    // empty: the default domain
  ProcessId process;     // where the source says
  bool push_pop = true;  // false: start/end
  std::optional<std::int64_t> start_ns;
  std::optional<std::int64_t> end_ns;
  std::optional<std::int64_t> global_tid;
  std::optional<std::int64_t> range_id;
  int depth = 0;  // push/pop nesting level where known
  // Cut at the end of the trace window (a Kineto annotation still open when
  // the profiler stopped): end_ns is where it is taken to end for nesting and
  // attribution, not a measured end, so its CPU time is unknown.
  bool end_unknown = false;
  // start_ns + unix_offset_ns is Unix time in ns, by the source's own clock
  // record (tracer W records, Kineto's Unix timestamps, nsys' session start);
  // unknown: the source's clock has no known relation to Unix time. Only
  // cross-rank start comparisons read it (analysis/rank_stragglers.h).
  std::optional<std::int64_t> unix_offset_ns;
  // Pre-aggregated sources (nvtx_sum, nvtx_gpu_proj_sum) fill these instead.
  std::optional<std::int64_t> instances;
  std::optional<double> total_ns;  // CPU range time over all instances
  std::optional<double> min_ns;    // CPU range time of the shortest / longest instance
  std::optional<double> max_ns;
  std::optional<double> gpu_projected_ns;  // nsys' GPU projection over all instances
  std::optional<double> projected_min_ns;
  std::optional<double> projected_max_ns;
};

// One row of nsys' nvtx_kern_sum: one kernel's launches inside one NVTX
// range (a kernel counts in every range of its stack). An empty range name:
// the kernel's launches outside every range.
struct NvtxKernelRow {
  std::string range;
  std::string domain;
  ProcessId process;
  std::optional<std::int64_t> range_instances;
  KernelSummaryRow kernel;
};

// Time statistics of one row of an nsys summary, in ns; each may be absent.
struct TimeStats {
  std::optional<double> total_ns, mean_ns, median_ns, min_ns, max_ns, stddev_ns;
};

// cuda_api_sum: one CUDA runtime/driver API function.
struct ApiSummaryRow {
  std::string name;
  std::int64_t calls = 0;
  TimeStats time;
  std::optional<double> time_pct;
  // The rank whose calls these are, where the input names one (a PyTorch
  // trace's distributedInfo, a launcher's rank file): rows of different
  // ranks are different processes' calls and both count; rows of one rank
  // (or none) from two inputs are one measurement given twice.
  std::optional<std::int64_t> rank;
};

// cuda_gpu_mem_time_sum / cuda_gpu_mem_size_sum: one kind of GPU memory
// operation ("[CUDA memcpy Host-to-Device]").
struct GpuOpSummaryRow {
  std::string operation;
  std::int64_t count = 0;
  std::optional<TimeStats> time;                             // from the time report
  std::optional<double> total_bytes, mean_bytes, max_bytes;  // from the size report
};

// Where a launch overhead row was measured.
enum class LaunchOverheadFrom {
  kKernExecSum,  // nsys stats' cuda_kern_exec_sum report
  kTimeline,     // computed per launch from a timeline (nsys SQLite, our trace, Kineto)
};
std::string_view ToString(LaunchOverheadFrom from);

// Per (process, thread, device, API function, kernel), nsys'
// cuda_kern_exec_sum definitions: API time = call end - call start; queue
// time = kernel start - call end, only for launches whose kernel started at
// or after the call returned (queue_count of them; the others have no queue
// time and are left out of its statistics); kernel time = kernel end - start;
// total = max(call end, kernel end) - call start. Unknown: null.
struct LaunchOverheadRow {
  ProcessId process;
  std::string thread, device, api_name, kernel_name;
  LaunchOverheadFrom from = LaunchOverheadFrom::kKernExecSum;
  std::int64_t count = 0;                   // launches
  std::optional<std::int64_t> queue_count;  // launches with a queue time (nsys QCount)
  std::optional<double> api_mean_ns, api_median_ns, api_max_ns;
  std::optional<double> queue_mean_ns, queue_median_ns, queue_max_ns;
  std::optional<double> kernel_mean_ns, total_mean_ns;
};

// A metric layout id no other launch list has used.
std::uint64_t NewMetricLayout();

// A number no other caller has had, for keys of interned names:
// (NewNameKeySpace() << 32) | (name index + 1) is unique in the process.
std::uint64_t NewNameKeySpace();

// A context key (LaunchRecord::context_key) no other record has had.
std::uint64_t NewContextKey();

}  // namespace llmpo::model
