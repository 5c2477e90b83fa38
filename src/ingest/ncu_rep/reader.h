// A native reader of Nsight Compute reports (.ncu-rep, file format version
// 7, ncu 2020.3 to 2026.2), per ../shared/docs/ncu-rep-format.md. It walks
// the file block by block and entry by entry, bounding every size by what is
// left of the file, and hands each result to a visitor as soon as it is read:
// memory stays flat in the number of results. The protobuf types stay inside
// reader.cc; this header speaks plain C++.
#pragma once

#include <array>
#include <cstdint>
#include <istream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/core/result.h"
#include "src/model/diagnostics.h"
#include "src/model/findings.h"

namespace llmpo::ingest::ncurep {

// The only file format version the reader knows (every ncu 2020.3–2026.2).
inline constexpr std::uint32_t kKnownFormatVersion = 7;

// Memory limits (docs/security.md): a hostile file may declare sizes and
// counts that a real report never reaches; past them the file is refused
// (exit 3) before anything is allocated for them. Real reports hold block
// headers of kilobytes, results of at most a few megabytes, a few thousand
// strings and metric values per result, metric names under 200 bytes.
inline constexpr std::uint64_t kMaxBlockHeaderBytes = 64ull << 20;
inline constexpr std::uint64_t kMaxResultBytes = 256ull << 20;
inline constexpr std::uint64_t kMaxStrings = 1'000'000;          // all string tables together
inline constexpr std::uint64_t kMaxValuesPerResult = 1'000'000;  // metrics and their instances
// A metric name longer than this is skipped and counted (it is copied into
// every launch that has it).
inline constexpr std::size_t kMaxMetricNameBytes = 4096;
// Every launch copies the names of its metrics: the names all results
// name, added up, may come to 64 bytes per byte of the file (at least
// 256 MiB); a real report's come to a few per byte.
inline constexpr std::uint64_t kMaxNameBytesPerFileByte = 64;
inline constexpr std::uint64_t kMinNameBudgetBytes = 256ull << 20;

// One stored value: exactly one member is normally set.
struct Value {
  std::optional<std::string> text;
  std::optional<double> number;          // any numeric member, as a double
  std::optional<std::uint64_t> integer;  // the uint64/uint32 member, exact

  bool empty() const { return !text && !number; }
};

struct MetricInstance {
  Value correlation;  // an index, a PC address, a timestamp, or a word (a SASS opcode)
  Value value;
};

struct MetricEntry {
  // From the string table, shared by every metric that names it (one long
  // name referenced by many metrics is kept once).
  std::shared_ptr<const std::string> interned_name;
  const std::string& name() const { return *interned_name; }
  std::optional<Value> value;
  std::vector<MetricInstance> instances;

  // The value ncu prints: the scalar, unless it is an empty string and a
  // one-element list exists (launch__kernel_name from 2024.3); a list-only
  // metric with one element gives that element. Null: none.
  const Value* Scalar() const;
};

struct NvtxStackFrame {
  std::string domain;  // empty: the default domain
  std::string name;
  std::optional<std::uint64_t> last_api_call_id;
};

// One thread's open push/pop ranges in one domain, outermost first.
struct NvtxThreadStack {
  std::uint64_t thread_id = 0;
  std::string domain;
  std::vector<NvtxStackFrame> frames;
};

struct NvtxStartEnd {
  std::string domain;
  std::string name;
  std::optional<std::uint64_t> id;
  std::optional<std::uint64_t> start_thread_id;
};

// A section as the result defines it; its header metrics are the ones ncu's
// details page lists under the display name.
struct Section {
  std::string identifier;                                   // "SpeedOfLight"
  std::string display_name;                                 // "GPU Speed Of Light Throughput"
  std::vector<std::pair<std::string, std::string>> header;  // metric name, label
};

struct RuleResult {
  std::string identifier;  // "SOLBottleneck"
  std::string display_name;
  std::string section;  // the section identifier
  std::vector<model::Finding> messages;
};

// One profile result: one kernel launch with everything measured on it.
struct ProfileResult {
  std::uint64_t index = 0;  // 0-based, in file order (ncu's "ID")
  bool range = false;       // a range or app-range replay result, named "range"
  std::optional<std::uint64_t> thread_id, api_call_id, context_id, stream_id, creation_time_s;
  std::string mangled_name, function_name, demangled_name;
  std::optional<std::array<std::uint64_t, 3>> grid_size, block_size;
  std::optional<std::uint64_t> process_id;
  std::string process_name;
  std::vector<MetricEntry> metrics;
  std::vector<Section> sections;
  std::vector<RuleResult> rules;
  bool has_nvtx = false;  // ncu ran with --nvtx
  std::vector<NvtxThreadStack> nvtx_push_pop;
  std::vector<NvtxStartEnd> nvtx_start_end;

  const MetricEntry* FindMetric(std::string_view name) const;
  // The push/pop stacks of the launching thread, all domains, outermost first.
  std::vector<NvtxStackFrame> LaunchStack() const;
};

struct DeviceAttribute {
  std::string name;  // without the "device__attribute_" prefix ncu adds in metrics
  Value value;
};

struct Device {
  std::optional<std::uint32_t> id;
  std::string name;
  std::vector<DeviceAttribute> attributes;

  const Value* Find(std::string_view attribute) const;
};

// Session details, merged from the fragments spread over block headers.
struct Session {
  std::optional<std::uint64_t> creation_time_s;
  std::string host_os, target_os, command_line;
  std::vector<std::pair<std::string, std::string>> versions;  // provider, version
  std::vector<Device> devices;

  std::string NcuVersion() const;  // "Nsight Compute Target", else empty
};

struct ReadSummary {
  std::uint64_t bytes = 0, blocks = 0, sources = 0, results = 0, extra_entries = 0;
};

class Visitor {
 public:
  virtual ~Visitor() = default;
  virtual void OnResult(const ProfileResult& result) = 0;
  // Once, after the last block (device attributes arrive after the first result).
  virtual void OnSession(const Session& /*session*/) {}
};

// Reads `in` (`file_size` bytes) to its end. Damage inside one result
// (an entry that does not parse, a metric name out of range) is counted in
// `diagnostics` and the rest is read; damage to the framing (bad magic, an
// unknown version, a size past the end of the file, a truncated file) is an
// input error saying what was read before it. `label` names the file in
// messages.
Result<ReadSummary> Read(std::istream& in, std::uint64_t file_size, const std::string& label, Visitor& visitor,
                         model::Diagnostics& diagnostics);

}  // namespace llmpo::ingest::ncurep
