// One process's trace from our NVTX + CUPTI tracer (tracer/README.md), as
// the trace importer reads it: NVTX ranges and marks, GPU operations and the
// API calls that launched them. Times are ns on the tracer's clock.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace llmpo::model {

struct TraceRange {
  std::uint64_t domain = 0;
  std::uint32_t tid = 0;      // push/pop: the thread; start/end: the thread that started it
  std::uint32_t end_tid = 0;  // start/end only
  int depth = -1;             // push/pop nesting level; -1 for start/end
  std::uint64_t id = 0;       // start/end range id
  std::uint64_t start = 0, end = 0;
  std::string name;
  bool push_pop = true;
  bool open_at_exit = false;
};

struct TraceGpuOp {
  char kind = 'K';  // trace_format::kKernel, kMemcpy or kMemset
  std::uint32_t device = 0;
  std::uint64_t stream = 0, correlation = 0, start = 0, end = 0, bytes = 0;
  std::string name;     // kernels: demangled; memcpy/memset get a descriptive name
  std::string mangled;  // kernels: the name as CUPTI gave it (what `ncu --kernel-name-base mangled` matches)
  std::string grid, block;
};

struct TraceApiCall {
  std::uint32_t tid = 0;
  std::uint64_t correlation = 0, start = 0, end = 0;
  std::string api;                // "runtime" or "driver"; "" when the trace did not say
  std::uint32_t callback_id = 0;  // CUPTI's callback id of the function (0: not given)
};

// The trace's clock (CLOCK_MONOTONIC) and Unix time read together: at the
// process's start and end (tracer W records, since 2026-12): they put the
// ranks of several hosts on one clock (multirank-reference.md, section 3).
struct WallClockSample {
  std::int64_t monotonic_ns = 0;
  std::int64_t unix_ns = 0;
};

struct TraceData {
  std::int64_t pid = 0;
  std::string process;                           // the executable
  std::string host;                              // "" when the trace does not say (older traces)
  std::optional<std::int64_t> rank;              // the launcher's rank (RANK, OMPI_COMM_WORLD_RANK, ...)
  std::map<std::uint64_t, std::string> domains;  // 0: the default domain ("")
  std::map<std::uint32_t, std::string> thread_names;
  std::vector<TraceRange> ranges;  // push/pop and start/end, in file order
  std::vector<TraceRange> marks;   // start == end
  std::vector<TraceGpuOp> gpu_ops;
  std::vector<TraceApiCall> api_calls;
  bool gpu_traced = false;              // CUPTI was active
  std::int64_t cupti_clock_offset = 0;  // CUPTI's clock minus ours when it kept its own (applied on import)
  bool complete = false;                // the end marker was found
  std::vector<WallClockSample> wall_clock;  // start and end samples (none in older traces)
  // What turns the trace's times into Unix ns: the first clock pair's
  // difference (the tracer's check that the pairs agree: tracer.nvtx_cpu);
  // unknown without one.
  std::optional<std::int64_t> UnixOffset() const {
    if (wall_clock.empty()) return std::nullopt;
    return wall_clock.front().unix_ns - wall_clock.front().monotonic_ns;
  }
  std::string DomainName(std::uint64_t id) const {
    auto it = domains.find(id);
    return it == domains.end() ? "" : it->second;
  }
};

}  // namespace llmpo::model
