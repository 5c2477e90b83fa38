// The profiling settings of a composed config (pipeline.trace, .nsys, .ncu,
// .step_timeout_s, .workload.cuda_profiler_api), read and checked once into
// typed options: the command builders (commands.h), the plan and the step
// runner read these, never the config's keys. A value of the wrong type or
// outside its choices is a usage error naming the key, with the fix.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/config/node.h"
#include "src/core/result.h"

namespace llmpo::pipeline {

// pipeline.ncu and its ncu_cli options. Texts are passed to ncu as given;
// unset (null) leaves ncu's own default.
struct NcuOptions {
  bool enable = false;
  bool gating_nvtx = true;  // --nvtx and the NVTX filters
  int top_kernels = 0;      // 0: every kernel
  std::optional<std::string> target_processes, replay_mode, set, kernel_name, kernel_name_base, launch_skip,
      launch_count, range_filter, cache_control, clock_control, graph_profiling;
  std::vector<std::string> sections, metrics;
  std::vector<std::string> nvtx_include, nvtx_exclude;  // ncu expressions (NvtxExpressions)
  bool force_overwrite = true;
  // pipeline.ncu.ranks: under a launcher, the ranks ncu profiles (the others
  // run unprofiled); nullopt: every rank ("all").
  std::optional<std::vector<std::int64_t>> ranks = std::vector<std::int64_t>{0};
  // pipeline.ncu.lockstep: under a launcher, every profiled rank's ncu joins
  // ncu's TCP communicator and launches kernels in lockstep, so collectives
  // (NCCL) cannot hang on a rank that ncu holds back; nullopt ("auto"): on
  // when more than one rank is profiled.
  std::optional<bool> lockstep;
  std::optional<std::string> communicator_host;  // pipeline.ncu.communicator_host (several nodes)
};

// Whether the ncu command under a launcher gets the lockstep options.
bool NcuLockstep(const NcuOptions& ncu);

// pipeline.nsys.
struct NsysOptions {
  bool enable = false;
  bool gating_nvtx = true;
  std::optional<std::string> trace, sample, cpuctxsw, nvtx_capture, capture_range_end, cuda_graph_trace;
  std::string capture_range = "none";  // after gating: nvtx becomes none without gating_nvtx
};

struct ProfileOptions {
  bool trace = false;  // pipeline.trace.enable: the tracer first
  NsysOptions nsys;
  NcuOptions ncu;
  double step_timeout_s = 0;       // 0: no limit
  bool cuda_profiler_api = false;  // pipeline.workload.cuda_profiler_api
  std::string launcher = "auto";   // pipeline.launcher: auto, none, torchrun, mpirun, srun
};

Result<ProfileOptions> ReadProfileOptions(const config::Node& config);

// ncu's NVTX include/exclude expressions from the config value (a string,
// a ';'-separated string as in the seeds, or a list): one expression each;
// a plain range name gets the trailing '/' that push/pop matching needs
// (names with '/', '[', ']' or ',' are kept as written).
std::vector<std::string> NvtxExpressions(const config::Node* value);

}  // namespace llmpo::pipeline
