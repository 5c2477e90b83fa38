// What a timeline with host calls, CPU ops and GPU work tells beyond the
// kernel table: per process (a rank) and device, how the GPU's time splits
// (HTA's temporal and kernel-type breakdowns, exactly, from integer
// nanoseconds), launch statistics, and per CPU op the GPU time of the
// kernels it launched. Produced by the Kineto importer; all times in ns.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/model/process_id.h"

namespace llmpo::model {

// Kernel classes by HTA's name rules (docs/import.md).
struct KernelClassTimes {
  double computation_ns = 0;                    // union of computation kernels' intervals
  double communication_ns = 0;                  // union of communication kernels (NCCL, ...)
  double memory_ns = 0;                         // union of memcpy/memset operations
  std::optional<double> comm_comp_overlap_pct;  // |comm ∩ comp| / |comm| x 100; none without communication
};

struct LaunchStats {
  std::int64_t launches = 0;                   // GPU ops with a launch call in the trace
  double cpu_mean_ns = 0, cpu_max_ns = 0;      // duration of the launch call
  double gpu_mean_ns = 0, gpu_max_ns = 0;      // duration of the GPU op
  double delay_mean_ns = 0, delay_max_ns = 0;  // GPU start - call end, clipped at 0
  std::int64_t gpu_shorter_than_call = 0;      // GPU op shorter than its launch call
};

// One ProfilerStep#N instance on one rank.
struct StepTimes {
  std::int64_t step = 0;
  std::optional<double> cpu_ns;  // the annotation's wall time; unknown for a step cut at the trace's end
  double gpu_kernel_ns = 0;      // kernels whose launch call started inside it, on any thread of the process
  // Of those kernels, the communication ones (NCCL and the like, HTA's rule):
  // the sum of their durations. Unknown (null) in a partial written before
  // the field existed.
  std::optional<double> communication_kernel_ns = 0.0;
  // When the step's annotation began, in Unix ns (the trace's timestamps are
  // Unix time, or relative to baseTimeNanoseconds); unknown where they are
  // not, and in a partial written before the field existed.
  std::optional<std::int64_t> start_unix_ns;
};

// One device's GPU work launched in one ProfilerStep#N: its GPU ops
// (kernels, copies, sets) whose launch call started while the step ran, on
// any thread of the process (the step's GPU time rule, StepTimes), split as
// the device's whole timeline is (DeviceBreakdown).
struct StepBreakdown {
  std::int64_t step = 0;
  std::int64_t gpu_ops = 0;
  double span_ns = 0;  // the first of those ops' start to the last one's end
  double busy_ns = 0;  // union of their intervals
  double idle_ns = 0;  // span - busy
  KernelClassTimes classes;
};

struct DeviceBreakdown {
  std::string source;
  ProcessId process;
  std::string device;
  std::optional<std::int64_t> rank, world_size;
  std::int64_t kernels = 0, memory_ops = 0;
  double kernel_ns = 0;  // sum of kernel durations
  double span_ns = 0;    // first GPU op start to last end
  double busy_ns = 0;    // union of kernels, copies and sets
  double idle_ns = 0;    // span - busy
  KernelClassTimes classes;
  LaunchStats launch;
  std::vector<StepTimes> steps;  // per rank, repeated on each of its devices
  // This device's own, in the order of `steps` (steps without GPU ops on it left
  // out). Empty in a partial or report set written before the field existed.
  std::vector<StepBreakdown> step_breakdowns;
};

// One CPU op name (aten::mm) in one process: what the PyTorch profiler's
// table shows as CPU and CUDA time.
struct CpuOpTimes {
  std::string source;
  ProcessId process;
  std::string name;
  std::int64_t calls = 0;
  double cpu_ns = 0;         // sum of the op's wall times (nested calls of the same op counted each)
  double gpu_self_ns = 0;    // kernels whose innermost op it is
  double gpu_total_ns = 0;   // kernels launched anywhere inside it
  std::int64_t kernels = 0;  // launches whose innermost op it is
};

struct GpuBreakdown {
  std::vector<DeviceBreakdown> devices;
  std::vector<CpuOpTimes> cpu_ops;
};

}  // namespace llmpo::model
