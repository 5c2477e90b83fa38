// NVTX regions built from one input's launches and ranges. Parent and child
// come from the NVTX stack (A::A1 pushed inside A is a child of A; the "::"
// in its name means nothing). Push/pop ranges nest; start/end ranges are
// flat, top-level regions of their own, and so are nsys summary rows.
//
// Each region carries quantities named for what they measure (docs/regions.md);
// one the input cannot tell stays unknown (nullopt), never 0:
//   total / exclusive    GPU kernel time: kernels anywhere inside / whose
//                        innermost push/pop region this is; for ncu range
//                        replay, the measured GPU time of the range
//   gpu_ops / exclusive  GPU memcpy and memset time, attributed the same way
//   projected            nsys' GPU projection: per instance, first start to
//                        last end of the GPU work launched inside, summed
//   cpu / exclusive      the range's wall time on the CPU
//
// A RegionBuilder reads one input. CombineRegions (region_combine.h) joins
// the inputs without adding what two of them measured twice.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/analysis/instance_spans.h"
#include "src/analysis/instance_suffix.h"
#include "src/analysis/instance_values.h"
#include "src/analysis/kernel_aggregator.h"
#include "src/analysis/kernel_filter.h"
#include "src/analysis/timed_range_log.h"
#include "src/core/hash.h"
#include "src/core/key_cache.h"
#include "src/model/diagnostics.h"
#include "src/model/records.h"
#include "src/model/sink.h"

namespace llmpo::analysis {

enum class RegionKind { kPushPop, kStartEnd, kSummary };
std::string_view ToString(RegionKind k);

// "LLM@prefill" for a named domain, "prefill" for the default one.
std::string RegionLabel(const model::NvtxFrame& frame);

struct InstanceStats {
  std::uint64_t count = 0;
  double min_ns = 0, max_ns = 0, total_ns = 0;
  bool has_extremes = true;  // false: a summary gave count and total only
  void Add(double ns);
  void Merge(const InstanceStats& other);
};

// What an input can tell about its regions. A quantity the input cannot
// tell is unknown in every region it makes.
struct RegionCapabilities {
  bool kernels = false;    // kernel durations per launch, with NVTX state (or range-replay results)
  bool gpu_ops = false;    // memcpy/memset durations (timelines)
  bool projected = false;  // GPU projection (timelines, nvtx_gpu_proj_sum)
  bool cpu = false;        // CPU range times (timelines, nvtx_sum)
  // The CPU range times cover only the instances with GPU work
  // (nvtx_gpu_proj_sum's "Total Range Time"), not every instance.
  bool cpu_of_gpu_instances_only = false;
  void Add(const RegionCapabilities& o) {
    kernels |= o.kernels, gpu_ops |= o.gpu_ops, projected |= o.projected, cpu |= o.cpu;
    cpu_of_gpu_instances_only |= o.cpu_of_gpu_instances_only;
  }
};

// The region quantities, in the order reports list them.
enum class Quantity { kTotal, kGpuOps, kProjected, kCpu };
inline constexpr Quantity kQuantities[] = {Quantity::kTotal, Quantity::kGpuOps, Quantity::kProjected, Quantity::kCpu};
std::string_view JsonKey(Quantity q);  // "total_ms", "gpu_ops_ms", "projected_ms", "cpu_ms"

// A value another input measured for a region, not used (region_combine.h).
struct AlsoMeasured {
  Quantity quantity;
  std::string input;
  double ns = 0;
};

struct Region {
  std::string label;
  std::string name;
  std::string domain;
  RegionKind kind = RegionKind::kPushPop;
  std::vector<std::string> path;  // labels from the top region down to this one
  std::optional<std::size_t> parent;
  std::vector<std::size_t> children;
  int depth = 0;

  // Quantities in ns (see the file comment); nullopt: unknown.
  std::optional<double> total_ns, exclusive_ns;
  std::optional<double> gpu_ops_ns, gpu_ops_exclusive_ns;
  std::optional<double> projected_ns;
  std::optional<double> cpu_ns, cpu_exclusive_ns;
  bool derived_total = false;  // total is the sum of children (no own measurement)

  std::uint64_t launches = 0;                      // selected kernel launches (inclusive)
  std::uint64_t excluded = 0;                      // launches the kernel filter left out
  std::uint64_t gpu_ops = 0;                       // memcpy/memset operations (inclusive)
  std::map<std::string, KernelAggregate> kernels;  // selected kernels, inclusive
  std::set<std::string> inputs;                    // the inputs whose numbers this region shows
  std::vector<AlsoMeasured> also_measured;         // after combining: values of inputs not used

  // Building state: kernel and copy time as launches arrive, range-replay
  // measurements, per-instance GPU time and spans, per-instance CPU times.
  double kernel_ns = 0, kernel_exclusive_ns = 0;
  double copy_ns = 0, copy_exclusive_ns = 0;
  InstanceValues instance_ns;
  InstanceSpans instance_span;  // GPU work per instance
  // The instance the last launch added to, and its entries: launches come in
  // runs of one instance, so most need no map lookup. Building only (map
  // nodes do not move; RegionTree::Finish clears them).
  std::optional<std::int64_t> last_instance;
  double* last_instance_ns = nullptr;
  InstanceSpans::Span* last_instance_span = nullptr;
  // The builder's kernel aggregates of `kernels` by its kernel number (null:
  // not looked up yet); building only, like the pointers above.
  std::vector<KernelAggregate*> kernel_by_slot;
  // Top-level regions of folded numbered names ("step N") only: per number
  // its name carried, the GPU kernel time and CPU range time of that
  // instance (stragglers compare ranks step by step).
  // Sorted arrays (16 bytes a number): a many-rank import keeps them per rank.
  InstanceValues number_gpu_ns, number_cpu_ns;
  // Top-level regions whose input's clock converts to Unix time
  // (model::NvtxRange::unix_offset_ns) only: the earliest start of any of
  // its instances, and per number of a folded numbered region its instance's
  // start, in Unix ns (stragglers compare when ranks began a step).
  std::optional<std::int64_t> start_unix_ns;
  InstanceStarts number_start_unix_ns;
  InstanceStats measured;         // range-replay results
  InstanceStats cpu_instances;    // CPU time per instance (timeline ranges, nvtx_sum)
  InstanceStats projected_stats;  // projection per instance (nvtx_gpu_proj_sum)
  KernelAggregate range_metrics;  // metrics of range-replay results

  double TotalNs() const { return total_ns.value_or(0); }
  std::optional<double> Value(Quantity q) const;
  // Kernel launches inside, where known: inputs without per-kernel data
  // (nvtx_sum, an nsys export without CUDA tables), range replay (one result
  // per range) and totals summed from measured children know no count.
  std::optional<std::uint64_t> KnownLaunches() const {
    if (launches > 0) return launches;
    if (total_ns && measured.count == 0 && !derived_total) return launches;
    return std::nullopt;
  }
  // Memory operations inside, where the input traced them.
  std::optional<std::uint64_t> KnownGpuOps() const {
    if (gpu_ops > 0 || gpu_ops_ns) return gpu_ops;
    return std::nullopt;
  }
  // Instances: count, and min/mean/max of one quantity, named in `of`
  // ("total_ms" for range replay or numbered ranges, "cpu_ms", "projected_ms").
  std::optional<InstanceStats> Instances(std::string* of) const;
};

// One scope's regions (a process on a device), or an aggregate.
class RegionTree {
 public:
  // The region of each level, outermost first, and the level's counter: the
  // number of a name the instance suffix rule folded ("decode step 12" in
  // "decode step N"), nullopt elsewhere.
  struct StackRegions {
    std::vector<std::size_t> ids;
    std::vector<std::optional<std::int64_t>> counters;
  };
  // The region of frames[0..depth], made (with its parents) if absent;
  // `levels` gets every level's.
  std::size_t Find(const std::vector<model::NvtxFrame>& frames, std::size_t depth, RegionKind kind,
                   StackRegions* levels = nullptr);
  // Find's levels for a whole push/pop stack. Launches come in runs with
  // the same stack, so answers are kept. `context_key`: the launch's
  // (model::LaunchRecord::context_key); equal to the last call's, that
  // call's answer is given without looking at the frames.
  const StackRegions& StackIds(const std::vector<model::NvtxFrame>& stack, std::uint64_t context_key = 0);
  // The region of `frame` under region `parent` (none: at the top), made if
  // absent, and its counter: Find's last level for a stack whose levels
  // above are `parent`'s (a region's id never changes, folded or not).
  std::size_t Under(std::optional<std::size_t> parent, RegionKind kind, const model::NvtxFrame& frame,
                    std::optional<std::int64_t>* counter) {
    return Child(parent.value_or(kTop), kind, frame, counter);
  }
  std::vector<Region>& regions() { return regions_; }
  const std::vector<Region>& regions() const { return regions_; }
  std::optional<std::size_t> FindPath(RegionKind kind, const std::vector<std::string>& path) const;
  // The region at `other`'s kind and path, made (with its identity) if absent;
  // parents must exist before their children.
  Region& Ensure(const Region& other);

  // Adds another tree's region (same kind and path) into this one: the two
  // describe different processes, so every quantity adds.
  void Merge(const Region& other);

  // Turns building state into the quantities the capabilities allow:
  // exclusive values, sums of measured children, unknowns.
  void Finish(const RegionCapabilities& caps);

  // The rule Find folds numbered names by (instance_suffix.h); none: no folding.
  void set_instance_suffix(const InstanceSuffix& rule) { suffix_ = rule; }

  RegionCapabilities caps;

 private:
  static constexpr std::size_t kTop = SIZE_MAX;  // the parent of top-level regions
  std::size_t Child(std::size_t parent, RegionKind kind, const model::NvtxFrame& frame,
                    std::optional<std::int64_t>* counter);
  std::size_t Add(Region r);  // its parent, kind and path set; indexes it
  bool FoldInto(std::size_t id, const std::string& folded_name, std::int64_t first_number);
  void Repath(std::size_t id, std::size_t level, const std::string& label);

  std::vector<Region> regions_;
  std::map<std::pair<RegionKind, std::vector<std::string>>, std::size_t> index_;
  struct ChildKey {
    std::size_t parent;
    RegionKind kind;
    std::string label;
    auto operator<=>(const ChildKey&) const = default;
  };
  std::map<ChildKey, std::size_t> children_;  // regions by parent and label
  // Numbered names by parent and folded label: the first one's region and
  // number, and whether a second number has folded them.
  struct Numbered {
    std::size_t id;
    std::int64_t first;
    bool folded = false;
    bool blocked = false;  // the folded label is another region's: no folding
  };
  std::map<ChildKey, Numbered> numbered_;
  InstanceSuffix suffix_;
  // StackIds' answers by a hash of the stack's domains and names (checked
  // against the stack kept with them: a collision is only a miss). Cleared
  // when a fold changes counters, and when it holds too many stacks (with
  // numbered names each instance is a stack of its own).
  struct KnownStack {
    std::vector<model::NvtxFrame> stack;
    StackRegions regions;
  };
  const StackRegions& LookUpStack(const std::vector<model::NvtxFrame>& stack);  // StackIds by the frames
  std::unordered_map<std::size_t, KnownStack> known_stacks_;
  const KnownStack* last_known_ = nullptr;  // StackIds' last answer from known_stacks_
  // StackIds' last answer it looked up: the levels a new stack shares with
  // it (same frames under the same parent region) keep their regions, so a
  // numbered outer range ("decode step 13" after 12) costs one lookup, not
  // one per level. Invalid after a fold (its counters are stale).
  KnownStack looked_up_;
  bool looked_up_valid_ = false;
  StackRegions answer_;                     // the answer when the stack is not kept
  // StackIds' last answer and its context key (0: none, or stale).
  const StackRegions* last_answer_ = nullptr;
  std::uint64_t last_answer_key_ = 0;
};

struct Scope {
  model::ProcessId process;
  std::string device;
  bool operator<(const Scope& o) const { return std::tie(process, device) < std::tie(o.process, o.device); }
  bool operator==(const Scope& o) const = default;
};

// One input's regions, scope by scope.
class RegionBuilder : public model::RecordSink {
 public:
  RegionBuilder(std::string source, const KernelFilter& filter, model::Diagnostics& diagnostics,
                InstanceSuffix suffix = {});

  void OnLaunch(const model::LaunchRecord& launch) override;
  void OnKernelSummary(const model::KernelSummaryRow&) override {}
  void OnNvtxRange(const model::NvtxRange& range) override;
  void OnNvtxKernelRow(const model::NvtxKernelRow& row) override;

  void Finish();

  const std::string& source() const { return source_; }
  bool saw_nvtx() const { return saw_nvtx_; }
  std::uint64_t launches_outside() const { return outside_; }
  std::uint64_t launches_seen() const { return launches_; }
  // nvtx_kern_sum counts a launch once in every range of its stack: the
  // counts above are then (launch, range) pairs, not launches.
  bool launches_per_range() const { return launches_per_range_; }
  std::uint64_t folded() const { return folded_; }  // launches and ranges deeper than kMaxNvtxDepth
  const RegionCapabilities& caps() const { return caps_; }
  std::map<Scope, RegionTree>& scopes() { return scopes_; }
  const std::map<Scope, RegionTree>& scopes() const { return scopes_; }
  // A finished builder read back from a partial result (report/partial_set.h):
  // its counts and capabilities; its trees go in through scopes().
  void Restore(const RegionCapabilities& caps, bool saw_nvtx, std::uint64_t launches, std::uint64_t outside,
               bool per_range, std::uint64_t folded) {
    caps_ = caps, saw_nvtx_ = saw_nvtx, launches_ = launches, outside_ = outside;
    launches_per_range_ = per_range, folded_ = folded;
  }

 private:
  std::uint32_t TimedName(const std::string& domain, const std::string& name);
  void AddKernelLaunch(RegionTree& tree, const model::LaunchRecord& launch);
  void AddRangeResult(RegionTree& tree, const model::LaunchRecord& launch);
  void Account(RegionTree& tree, std::size_t region_index, const model::LaunchRecord& launch, bool innermost);
  KernelAggregate& KernelOf(const RegionTree& tree, std::size_t region_index, Region& region,
                            const model::LaunchRecord& launch);
  void AddSummaryRange(const model::NvtxRange& range);
  void AddTimedRanges();
  RegionTree& TreeFor(const model::ProcessId& process, const std::string& device);

  std::string source_;
  const KernelFilter& filter_;
  model::Diagnostics& diagnostics_;
  InstanceSuffix suffix_;
  std::map<Scope, RegionTree> scopes_;
  RegionTree* last_tree_ = nullptr;  // TreeFor's last answer and its scope
  Scope last_scope_;
  TimedRangeLog timed_;  // processes index timed_processes_, names timed_names_
  std::vector<model::ProcessId> timed_processes_;  // the processes of timed_, each once
  // By the same index: each process's offset to Unix time, from its first
  // range that gives one (model::NvtxRange::unix_offset_ns).
  std::vector<std::optional<std::int64_t>> timed_unix_offsets_;
  std::map<model::ProcessId, std::uint32_t> timed_process_index_;
  std::uint32_t last_timed_process_ = 0;
  std::vector<model::NvtxFrame> timed_names_;  // each (domain, name) once
  std::unordered_map<std::string, std::uint32_t, StringHash, std::equal_to<>> timed_name_index_;
  std::string timed_name_key_;  // TimedName's lookup key, reused
  std::uint32_t last_timed_name_ = 0;
  std::uint32_t TimedProcess(const model::ProcessId& process);
  // KernelOf's cache: kernel names to small numbers, and (tree, region,
  // number) to the region's aggregate of that kernel.
  struct CacheKey {
    const RegionTree* tree;
    std::size_t region;
    std::size_t slot;
    bool operator==(const CacheKey&) const = default;
  };
  struct CacheKeyHash {
    std::size_t operator()(const CacheKey& k) const {
      return std::hash<const void*>()(k.tree) ^ (k.region * 0x9E3779B97F4A7C15ull) ^ (k.slot * 0xC2B2AE3D27D4EB4Full);
    }
  };
  std::unordered_map<std::string, std::size_t, StringHash, std::equal_to<>> kernel_slots_;
  std::string kernel_slot_name_;
  std::uint64_t kernel_slot_key_ = 0;  // kernel_slot_name_'s kernel_name_key (0: none)
  KeyCache<std::size_t> slot_by_key_;  // kernel_name_key -> its slot in kernel_slots_
  std::size_t kernel_slot_ = 0;
  std::unordered_map<CacheKey, KernelAggregate*, CacheKeyHash> kernel_cache_;
  // Region::kernel_by_slot's bounds: slots per region, and entries in all.
  static constexpr std::size_t kMaxSlotsPerRegion = 4096;
  static constexpr std::size_t kMaxDenseSlots = std::size_t{1} << 21;
  std::size_t dense_slots_ = 0;
  RegionCapabilities caps_;
  bool saw_nvtx_ = false;
  std::uint64_t outside_ = 0;
  std::uint64_t launches_ = 0;
  bool launches_per_range_ = false;
  std::uint64_t folded_ = 0;
};

}  // namespace llmpo::analysis
