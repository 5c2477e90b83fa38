// Launch overhead from timelines (nsys SQLite, our trace, Kineto): per
// (process, launching thread, device, API function, kernel), the statistics
// nsys' cuda_kern_exec_sum reports, computed from each kernel launch and its
// launch call (model::LaunchOverheadRow says what each number measures).
// Only launches with a known call and start/end count: ncu results never
// have them (ncu serialises kernels), nor do summaries.
//
// Memory: two numbers (API and queue time) per counted launch, for the
// medians; everything else is a sum per key.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "src/analysis/counted_samples.h"
#include "src/core/key_cache.h"
#include "src/model/records.h"

namespace llmpo::analysis {

class LaunchOverheadBuilder {
 public:
  // Counts a kernel launch that has its launch call; ignores anything else.
  void Add(const model::LaunchRecord& launch);
  bool empty() const { return keys_.empty(); }
  // One row per key (from = kTimeline), by mean total time, longest first
  // (nsys' order), ties by kernel name.
  std::vector<model::LaunchOverheadRow> Rows() const;

 private:
  struct Samples {
    CountedSamples api_ns;    // every launch
    CountedSamples queue_ns;  // launches whose kernel started at or after the call returned
    double kernel_sum_ns = 0;
    double total_sum_ns = 0;
  };
  using Key = std::tuple<model::ProcessId, std::string, std::string, std::string, std::string>;
  std::map<Key, Samples, std::less<>> keys_;
  // Add's shortcut to keys_: by a hash of the key's fields, checked for
  // equality (a collision is only a miss), instead of an ordered walk of
  // five-field keys per launch. Map nodes do not move.
  using Entry = std::map<Key, Samples, std::less<>>::iterator;
  std::unordered_map<std::size_t, Entry> by_hash_;
  // Before that, by the launch's kernel_name_key: the entry the name had
  // last, taken when the other four fields match too, which they do without
  // a compare when the launch has the origin key they were matched for.
  struct KeyedEntry {
    Entry entry;
    std::uint64_t origin_key = 0;
  };
  KeyCache<KeyedEntry> by_name_key_;
  Entry Find(const model::LaunchRecord& launch);
};

// The process a row names, for matching rows of one run: its pid where
// known (nsys stats give only the pid, a timeline also the executable),
// else its label.
std::string ProcessMatchKey(const model::ProcessId& process);

// What a row measured: (process by ProcessMatchKey, thread, device, API,
// kernel). Two rows with one path are the same launches.
using LaunchPath = std::tuple<std::string, std::string, std::string, std::string, std::string>;
LaunchPath PathOf(const model::LaunchOverheadRow& row);

}  // namespace llmpo::analysis
