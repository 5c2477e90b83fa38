// What the Kineto importer keeps of a trace while reading it: compact
// fixed-size records of the events attribution needs (GPU operations, launch
// calls, CPU ops, annotations), with names interned. Everything else
// (python_function events, flows, metadata rows, args beyond the few read)
// is counted and dropped as it streams past.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "src/core/hash.h"

namespace llmpo::ingest::kineto {

// Interned strings: a trace names a few thousand kernels over millions of
// events.
class Names {
 public:
  std::uint32_t Intern(std::string_view text);
  const std::string& operator[](std::uint32_t id) const { return *by_id_[id]; }
  std::size_t size() const { return by_id_.size(); }
  // Replaces each byte of a name that is not UTF-8 with U+FFFD (once per
  // distinct name) and returns how many it replaced.
  std::size_t ReplaceInvalidUtf8();

 private:
  // Event names come back in short cycles (a launch's cpu_op, call and
  // kernel): a small cache by a few of the name's bytes answers most lookups
  // with one comparison, without hashing a kernel name of 100 bytes and more.
  static constexpr std::size_t kRecent = 256;
  static std::size_t RecentSlot(std::string_view text);

  std::deque<std::string> storage_;
  std::vector<const std::string*> by_id_;
  std::unordered_map<std::string_view, std::uint32_t, StringHash> ids_;
  std::uint32_t recent_[kRecent] = {};  // id + 1; 0: empty
};

enum class GpuOpKind : std::uint8_t { kKernel, kMemcpy, kMemset, kSync };

// Where a GPU op ran: its device (-1: unknown) and stream (-1: unknown).
struct Lane {
  std::int32_t device = -1;
  std::int64_t stream = -1;
  bool operator==(const Lane&) const = default;
};

// The distinct lanes of a trace, numbered in order of first appearance: a
// trace has a few dozen over millions of GPU ops, so an op keeps a number.
class Lanes {
 public:
  // At most 2^30 lanes (GpuOp::lane's width); a trace would need more than
  // 2^30 GPU ops, some 100 GB of JSON, to reach it: past it the last lane is
  // reused.
  static constexpr std::uint32_t kMax = std::uint32_t{1} << 30;
  std::uint32_t Intern(const Lane& lane);
  const Lane& operator[](std::uint32_t id) const { return by_id_[id]; }
  std::size_t size() const { return by_id_.size(); }

 private:
  std::vector<Lane> by_id_;
  std::map<std::pair<std::int32_t, std::int64_t>, std::uint32_t> ids_;
  std::uint32_t last_ = 0;  // the last lane interned: ops come in runs of one lane
};

// Times are integer nanoseconds on the file's own time base (see
// TraceStore::base_ns). 40 bytes: stored times lie within ±2^62 ns
// (TimeInRange), so 63 bits hold each and the flags take the last bits.
struct GpuOp {
  std::int64_t start : 63 = 0;
  bool has_correlation : 1 = false;
  std::int64_t end : 63 = 0;
  bool has_external_id : 1 = false;
  std::uint64_t correlation = 0;
  std::uint64_t external_id = 0;
  std::uint32_t name = 0;
  std::uint32_t lane : 30 = 0;  // index into TraceStore::lanes
  GpuOpKind kind : 2 = GpuOpKind::kKernel;
};
static_assert(sizeof(GpuOp) == 40);

// A cuda_runtime / cuda_driver (old: Runtime) call. 32 bytes: a trace holds
// one per launch. Stored times lie within ±2^62 ns (TimeInRange), so 63
// bits hold `end` and its flag takes the last one.
struct HostCall {
  std::int64_t start = 0;
  std::int64_t end : 63 = 0;
  bool has_correlation : 1 = false;
  std::uint64_t correlation = 0;
  std::uint32_t name = 0;
  std::uint32_t thread = 0;
};
static_assert(sizeof(HostCall) == 32);

// A cpu_op on a CPU thread. 32 bytes: a trace holds one per launch.
struct CpuOp {
  std::int64_t start : 63 = 0;
  bool has_external_id : 1 = false;
  std::int64_t end = 0;
  std::uint64_t external_id = 0;
  std::uint32_t name = 0;
  std::uint32_t thread = 0;
};
static_assert(sizeof(CpuOp) == 32);

// A user_annotation (or an old trace's record_function Operator event) on a
// CPU thread. 40 bytes: a byte offset fits in 62 bits, the flags take the
// other two.
struct CpuSpan {
  std::int64_t start = 0, end = 0;
  std::uint64_t external_id = 0;
  std::uint64_t position : 62 = 0;  // byte offset of the event in the JSON text, for messages
  bool has_external_id : 1 = false;
  // An annotation with a readable ts but no `dur` key: kept with end = start
  // until attribution decides whether it was cut at the trace's end (else it
  // is dropped as kineto_bad_time, as any event without a dur).
  bool dur_missing : 1 = false;
  std::uint32_t name = 0;
  std::uint32_t thread = 0;
};
static_assert(sizeof(CpuSpan) == 40);

struct TraceStore {
  Names names;
  Names threads;  // "pid/tid" of CPU threads
  Lanes lanes;
  std::vector<GpuOp> gpu_ops;
  std::vector<HostCall> calls;
  std::vector<CpuOp> cpu_ops;
  std::vector<CpuSpan> annotations;
  std::uint64_t gpu_user_annotations = 0;  // display spans: counted, never summed
  std::optional<std::int64_t> base_ns;     // baseTimeNanoseconds: times are relative to it
  std::optional<std::int64_t> rank;
  std::optional<std::int64_t> world_size;
  std::string os_pid;  // the process id of the first CPU event
  bool array_form = false;
  bool cut_short = false;  // reading stopped at a syntax error or the end of a cut file
  std::uint64_t events = 0;
};

}  // namespace llmpo::ingest::kineto
