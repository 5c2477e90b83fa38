// NVTX regions built from launches. Parent and child come from the NVTX
// stack (A::A1 pushed inside A is a child of A; the "::" in its name means
// nothing). Push/pop ranges nest; start/end ranges are flat, top-level
// regions of their own. Every launch counts in every region of its stack
// (inclusive) and in its innermost push/pop region (exclusive).
//
// Range-replay results (kernel name "range") are measurements of a whole
// region: each is one instance of the innermost region on its stack at the
// range start, and its duration is that region's time.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/analysis/kernel_aggregator.h"
#include "src/analysis/kernel_filter.h"
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
  void Add(double ns);
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

  double inclusive_ns = 0;                         // selected launches anywhere inside
  double exclusive_ns = 0;                         // selected launches whose innermost region this is
  std::uint64_t launches = 0;                      // selected launches (inclusive)
  std::uint64_t excluded = 0;                      // launches the kernel filter left out
  std::map<std::string, KernelAggregate> kernels;  // selected kernels, inclusive

  std::map<std::int64_t, double> instance_ns;  // per occurrence, when the source numbers them
  InstanceStats measured;                      // range-replay results or summary totals
  KernelAggregate range_metrics;               // metrics of range-replay results
  bool derived_total = false;                  // total is the sum of children (no own measurement)

  double TotalNs() const { return measured.count ? measured.total_ns : inclusive_ns; }
  // Per-instance statistics where the source numbers instances (measured
  // results, or numbered ranges); summary regions know only count and total,
  // so their min/max are left at 0 and `has_extremes` is false.
  std::optional<InstanceStats> Instances(bool* has_extremes) const;
};

// One scope's regions (a process on a device), or the aggregate.
class RegionTree {
 public:
  std::size_t Find(const std::vector<model::NvtxFrame>& frames, std::size_t depth, RegionKind kind);
  // The ids of every push/pop region of a stack, outermost first. Launches
  // come in runs with the same stack, so the last answer is kept.
  const std::vector<std::size_t>& StackIds(const std::vector<model::NvtxFrame>& stack);
  std::vector<Region>& regions() { return regions_; }
  const std::vector<Region>& regions() const { return regions_; }

  // Adds another tree's region (same kind and path) into this one; parents
  // must be merged before their children.
  void Merge(const Region& other);

  // Parents without their own measurement but with measured children get
  // the children's sum (marked derived).
  void Finish();

 private:
  std::vector<Region> regions_;
  std::map<std::pair<RegionKind, std::vector<std::string>>, std::size_t> index_;
  std::vector<model::NvtxFrame> last_stack_;
  std::vector<std::size_t> last_ids_;
};

struct Scope {
  std::string process;
  std::string device;
  bool operator<(const Scope& o) const { return std::tie(process, device) < std::tie(o.process, o.device); }
};

class RegionBuilder : public model::RecordSink {
 public:
  RegionBuilder(const KernelFilter& filter, model::Diagnostics& diagnostics);

  void OnLaunch(const model::LaunchRecord& launch) override;
  void OnKernelSummary(const model::KernelSummaryRow&) override {}
  void OnNvtxRange(const model::NvtxRange& range) override;

  void Finish();

  bool saw_nvtx() const { return saw_nvtx_; }
  std::uint64_t launches_outside() const { return outside_; }
  std::uint64_t launches_seen() const { return launches_; }
  const std::map<Scope, RegionTree>& scopes() const { return scopes_; }
  // All scopes merged (after Finish); with a single scope, that scope itself.
  const RegionTree& aggregate() const { return scopes_.size() == 1 ? scopes_.begin()->second : aggregate_; }

 private:
  void AddToTree(RegionTree& tree, const model::LaunchRecord& launch);  // a scope's tree
  void AddKernelLaunch(RegionTree& tree, const model::LaunchRecord& launch);
  void AddRangeResult(RegionTree& tree, const model::LaunchRecord& launch);
  void Account(Region& region, const model::LaunchRecord& launch, bool innermost);

  const KernelFilter& filter_;
  model::Diagnostics& diagnostics_;
  std::map<Scope, RegionTree> scopes_;
  RegionTree aggregate_;  // built in Finish, only when there are several scopes
  bool saw_nvtx_ = false;
  std::uint64_t outside_ = 0;
  std::uint64_t launches_ = 0;
};

}  // namespace llmpo::analysis
