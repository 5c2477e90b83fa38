#include "src/analysis/region_tree.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <type_traits>

namespace llmpo::analysis {

std::string_view ToString(RegionKind k) {
  switch (k) {
    case RegionKind::kPushPop:
      return "push_pop";
    case RegionKind::kStartEnd:
      return "start_end";
    case RegionKind::kSummary:
      return "summary";
  }
  return "unknown";
}

std::string_view JsonKey(Quantity q) {
  switch (q) {
    case Quantity::kTotal:
      return "total_ms";
    case Quantity::kGpuOps:
      return "gpu_ops_ms";
    case Quantity::kProjected:
      return "projected_ms";
    case Quantity::kCpu:
      return "cpu_ms";
  }
  return "";
}

std::string RegionLabel(const model::NvtxFrame& frame) {
  if (frame.domain.empty()) return frame.name;
  std::string label;  // "domain@name", without a format call per range
  label.reserve(frame.domain.size() + 1 + frame.name.size());
  label.append(frame.domain).append(1, '@').append(frame.name);
  return label;
}

void InstanceStats::Add(double ns) {
  min_ns = count == 0 ? ns : std::min(min_ns, ns);
  max_ns = count == 0 ? ns : std::max(max_ns, ns);
  total_ns += ns;
  ++count;
}

void InstanceStats::Merge(const InstanceStats& other) {
  if (other.count == 0) return;
  min_ns = count ? std::min(min_ns, other.min_ns) : other.min_ns;
  max_ns = count ? std::max(max_ns, other.max_ns) : other.max_ns;
  has_extremes = (count == 0 || has_extremes) && other.has_extremes;
  count += other.count;
  total_ns += other.total_ns;
}

std::optional<double> Region::Value(Quantity q) const {
  switch (q) {
    case Quantity::kTotal:
      return total_ns;
    case Quantity::kGpuOps:
      return gpu_ops_ns;
    case Quantity::kProjected:
      return projected_ns;
    case Quantity::kCpu:
      return cpu_ns;
  }
  return std::nullopt;
}

std::optional<InstanceStats> Region::Instances(std::string* of) const {
  if (measured.count > 0) {
    *of = "total_ms";
    return measured;
  }
  // nvtx_gpu_proj_sum alone gives the CPU range time without its extremes and
  // the projection with them: its instances are described by the projection.
  const bool projection_richer =
      projected_stats.count > 0 && projected_stats.has_extremes && !cpu_instances.has_extremes;
  if (cpu_instances.count > 0 && !projection_richer) {
    *of = "cpu_ms";
    return cpu_instances;
  }
  if (projected_stats.count > 0) {
    *of = "projected_ms";
    return projected_stats;
  }
  if (instance_ns.empty()) return std::nullopt;
  *of = "total_ms";
  InstanceStats stats;
  instance_ns.ForEach([&](std::int64_t, double ns) { stats.Add(ns); });
  return stats;
}

std::size_t RegionTree::Find(const std::vector<model::NvtxFrame>& frames, std::size_t depth, RegionKind kind,
                             StackRegions* levels) {
  std::size_t id = kTop;
  for (std::size_t d = 0; d <= depth; ++d) {
    std::optional<std::int64_t> counter;
    id = Child(id, kind, frames[d], &counter);
    if (levels) {
      levels->ids.push_back(id);
      levels->counters.push_back(counter);
    }
  }
  return id;
}

std::size_t RegionTree::Add(Region r) {
  const std::size_t id = regions_.size();
  index_.emplace(std::pair{r.kind, r.path}, id);
  children_.emplace(ChildKey{r.parent.value_or(kTop), r.kind, r.label}, id);
  if (r.parent) regions_[*r.parent].children.push_back(id);
  regions_.push_back(std::move(r));
  return id;
}

// The child of `parent` that `frame` names: by its label, else, for a name
// the instance suffix rule folds, the region of its folded label.
std::size_t RegionTree::Child(std::size_t parent, RegionKind kind, const model::NvtxFrame& frame,
                              std::optional<std::int64_t>* counter) {
  ChildKey key{parent, kind, RegionLabel(frame)};
  if (auto it = children_.find(key); it != children_.end()) {
    const Region& r = regions_[it->second];
    if (r.name != frame.name) {  // a folded region: which instance this is
      if (const auto split = suffix_.Fold(frame.name)) *counter = split->number;
    }
    return it->second;
  }
  const auto split = suffix_.Fold(frame.name);
  if (split) {
    auto [it, added] = numbered_.try_emplace(
        ChildKey{parent, kind, RegionLabel(model::NvtxFrame{frame.domain, split->folded, std::nullopt})},
        Numbered{regions_.size(), split->number});
    Numbered* numbered = &it->second;
    if (!added && !numbered->blocked) {
      if (!numbered->folded && split->number != numbered->first) {  // a second number: a counter
        numbered->folded = FoldInto(numbered->id, split->folded, numbered->first);
        numbered->blocked = !numbered->folded;
      }
      if (numbered->folded) {
        *counter = split->number;
        return numbered->id;
      }
    }
  }
  Region r;
  r.label = std::move(key.label);
  r.name = frame.name;
  r.domain = frame.domain;
  r.kind = kind;
  if (parent != kTop) {
    r.parent = parent;
    r.path = regions_[parent].path;
    r.depth = regions_[parent].depth + 1;
  }
  r.path.push_back(r.label);
  return Add(std::move(r));
}

// The region of the first numbered name becomes the folded region: its label
// and its subtree's paths change, its id stays (answers kept elsewhere hold).
bool RegionTree::FoldInto(std::size_t id, const std::string& folded_name, std::int64_t first_number) {
  Region& r = regions_[id];
  const std::string label = RegionLabel(model::NvtxFrame{r.domain, folded_name, std::nullopt});
  std::vector<std::string> path = r.path;
  path.back() = label;
  if (index_.count({r.kind, path}) > 0) return false;  // a region named so already: kept apart
  children_.erase(ChildKey{r.parent.value_or(kTop), r.kind, r.label});
  children_.emplace(ChildKey{r.parent.value_or(kTop), r.kind, label}, id);
  r.name = folded_name;
  r.label = label;
  Repath(id, r.path.size() - 1, label);
  // Its launches so far were one instance; inputs that number no instance
  // (ncu) get the counter as the instance from now on.
  if (r.instance_ns.empty() && r.instance_span.empty() && r.kernel_ns > 0) r.instance_ns[first_number] = r.kernel_ns;
  if (!r.parent) {  // the first instance, so far a region of its own
    if (r.kernel_ns > 0) r.number_gpu_ns[first_number] = r.kernel_ns;
    if (r.cpu_instances.count > 0) r.number_cpu_ns[first_number] = r.cpu_instances.total_ns;
    if (r.start_unix_ns) r.number_start_unix_ns.Earliest(first_number, *r.start_unix_ns);
  }
  known_stacks_.clear();  // their counters are stale
  last_known_ = nullptr;
  looked_up_valid_ = false;
  last_answer_key_ = 0;
  return true;
}

void RegionTree::Repath(std::size_t id, std::size_t level, const std::string& label) {
  Region& r = regions_[id];
  index_.erase({r.kind, r.path});
  r.path[level] = label;
  index_.emplace(std::pair{r.kind, r.path}, id);
  for (std::size_t c : r.children) Repath(c, level, label);
}

namespace {

// Region ids depend on the frames' domains and names only: launches under
// other instances of the same ranges share them.
bool SameRegions(const std::vector<model::NvtxFrame>& a, const std::vector<model::NvtxFrame>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].domain != b[i].domain) return false;
  }
  return true;
}

constexpr std::size_t kMaxKnownStacks = 4096;

}  // namespace

const RegionTree::StackRegions& RegionTree::StackIds(const std::vector<model::NvtxFrame>& stack,
                                                     std::uint64_t context_key) {
  if (context_key != 0 && context_key == last_answer_key_) return *last_answer_;
  const StackRegions& answer = LookUpStack(stack);
  last_answer_ = &answer;
  last_answer_key_ = context_key;
  return answer;
}

const RegionTree::StackRegions& RegionTree::LookUpStack(const std::vector<model::NvtxFrame>& stack) {
  // Launches come in runs of one stack: the last answer is checked first, without hashing.
  if (last_known_ != nullptr && SameRegions(stack, last_known_->stack)) return last_known_->regions;
  last_known_ = nullptr;
  std::size_t hash = stack.size();
  for (const auto& f : stack) {
    hash = HashBytes(f.domain, HashBytes(f.name, hash));
  }
  if (auto it = known_stacks_.find(hash); it != known_stacks_.end() && SameRegions(stack, it->second.stack)) {
    last_known_ = &it->second;
    return it->second.regions;
  }
  StackRegions answer;
  for (std::size_t d = 0; d < stack.size(); ++d) {
    const std::size_t parent = d == 0 ? kTop : answer.ids[d - 1];
    const KnownStack& before = looked_up_;
    // looked_up_valid_ is read each level: a fold on the way stales it.
    const bool shared = looked_up_valid_ && d < before.stack.size() &&
                        (d == 0 || before.regions.ids[d - 1] == parent) && stack[d].name == before.stack[d].name &&
                        stack[d].domain == before.stack[d].domain;
    std::optional<std::int64_t> counter;
    const std::size_t id = shared ? before.regions.ids[d] : Child(parent, RegionKind::kPushPop, stack[d], &counter);
    answer.ids.push_back(id);
    answer.counters.push_back(shared ? before.regions.counters[d] : counter);
  }
  looked_up_.stack = stack;
  looked_up_.regions = answer;
  looked_up_valid_ = true;
  // A lookup above may have folded a name and cleared the known stacks: insert only now.
  if (known_stacks_.size() >= kMaxKnownStacks) known_stacks_.clear();  // last_known_ is null here
  auto [it, added] = known_stacks_.try_emplace(hash);
  if (!added) {  // another stack with this hash is kept
    answer_ = std::move(answer);
    return answer_;
  }
  it->second.stack = stack;
  it->second.regions = std::move(answer);
  last_known_ = &it->second;  // nodes stay put until cleared
  return it->second.regions;
}

std::optional<std::size_t> RegionTree::FindPath(RegionKind kind, const std::vector<std::string>& path) const {
  auto it = index_.find({kind, path});
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

Region& RegionTree::Ensure(const Region& other) {
  if (auto it = index_.find({other.kind, other.path}); it != index_.end()) return regions_[it->second];
  Region r;
  r.label = other.label;
  r.name = other.name;
  r.domain = other.domain;
  r.kind = other.kind;
  r.path = other.path;
  r.depth = other.depth;
  if (other.path.size() > 1) {
    const std::vector<std::string> parent(other.path.begin(), other.path.end() - 1);
    r.parent = index_.at({other.kind, parent});
  }
  return regions_[Add(std::move(r))];
}

namespace {

void AddKnown(std::optional<double>& dst, const std::optional<double>& src) {
  if (src) dst = dst.value_or(0) + *src;
}

}  // namespace

void RegionTree::Merge(const Region& other) {
  Region& r = Ensure(other);
  AddKnown(r.total_ns, other.total_ns);
  AddKnown(r.exclusive_ns, other.exclusive_ns);
  AddKnown(r.gpu_ops_ns, other.gpu_ops_ns);
  AddKnown(r.gpu_ops_exclusive_ns, other.gpu_ops_exclusive_ns);
  AddKnown(r.projected_ns, other.projected_ns);
  AddKnown(r.cpu_ns, other.cpu_ns);
  AddKnown(r.cpu_exclusive_ns, other.cpu_exclusive_ns);
  r.launches += other.launches;
  r.excluded += other.excluded;
  r.gpu_ops += other.gpu_ops;
  r.derived_total = r.derived_total || other.derived_total;
  r.inputs.insert(other.inputs.begin(), other.inputs.end());
  for (const auto& [name, k] : other.kernels) MergeKernel(r.kernels[name], k);
  other.instance_ns.ForEach([&](std::int64_t id, double ns) { r.instance_ns[id] += ns; });
  other.number_gpu_ns.ForEach([&](std::int64_t n, double ns) { r.number_gpu_ns[n] += ns; });
  other.number_cpu_ns.ForEach([&](std::int64_t n, double ns) { r.number_cpu_ns[n] += ns; });
  other.number_start_unix_ns.ForEach([&](std::int64_t n, std::int64_t t) { r.number_start_unix_ns.Earliest(n, t); });
  if (other.start_unix_ns)
    r.start_unix_ns = std::min(r.start_unix_ns.value_or(*other.start_unix_ns), *other.start_unix_ns);
  r.measured.Merge(other.measured);
  r.cpu_instances.Merge(other.cpu_instances);
  r.projected_stats.Merge(other.projected_stats);
  MergeKernel(r.range_metrics, other.range_metrics);
}

void RegionTree::Finish(const RegionCapabilities& with) {
  caps = with;
  last_known_ = nullptr;
  last_answer_key_ = 0;
  // Children come after their parents, so a reverse pass sees children first.
  for (std::size_t i = regions_.size(); i-- > 0;) {
    Region& r = regions_[i];
    r.last_instance.reset();
    r.last_instance_ns = nullptr;
    r.last_instance_span = nullptr;
    r.kernel_by_slot = std::vector<KernelAggregate*>();  // freed (`= {}` keeps the capacity)
    if (r.kind == RegionKind::kSummary) continue;        // a summary row sets its quantities itself
    double children_total = 0, children_cpu = 0;
    bool measured_child = false;
    for (std::size_t c : r.children) {
      children_total += regions_[c].TotalNs();
      children_cpu += regions_[c].cpu_ns.value_or(0);
      measured_child = measured_child || regions_[c].measured.count > 0 || regions_[c].derived_total;
    }
    if (caps.kernels) {
      if (r.measured.count > 0) {
        // A measured region's own time is what its children do not account for.
        r.total_ns = r.measured.total_ns;
        r.exclusive_ns = std::max(0.0, r.measured.total_ns - children_total);
      } else if (measured_child && r.kernel_ns == 0) {
        r.total_ns = children_total;  // no measurement of its own: the sum of its measured children
        r.exclusive_ns = 0.0;
        r.derived_total = true;
      } else {
        r.total_ns = r.kernel_ns;
        r.exclusive_ns = r.kernel_exclusive_ns;
      }
    }
    if (caps.gpu_ops) {
      r.gpu_ops_ns = r.copy_ns;
      r.gpu_ops_exclusive_ns = r.copy_exclusive_ns;
    }
    if (caps.projected && !r.instance_span.empty()) {  // no GPU work: no projection (nsys lists no row)
      double projected = 0;
      r.instance_span.ForEach([&projected](std::int64_t, const InstanceSpans::Span& span) {
        projected += static_cast<double>(span.second - span.first);
      });
      r.projected_ns = projected;
      r.instance_span.clear();  // building state: summed now
    }
    if (caps.cpu && r.cpu_instances.count > 0) {
      r.cpu_ns = r.cpu_instances.total_ns;
      r.cpu_exclusive_ns = r.kind == RegionKind::kPushPop ? std::max(0.0, r.cpu_instances.total_ns - children_cpu)
                                                          : r.cpu_instances.total_ns;
    }
    // Instances() reads the per-instance GPU times only where no measured,
    // CPU or projected instances describe the region: elsewhere they go.
    if (r.measured.count > 0 || r.cpu_instances.count > 0 || r.projected_stats.count > 0) {
      r.instance_ns.clear();
    } else {
      r.instance_ns.ShrinkToFit();
    }
    r.number_gpu_ns.ShrinkToFit();
    r.number_cpu_ns.ShrinkToFit();
    r.number_start_unix_ns.ShrinkToFit();
  }
}

RegionBuilder::RegionBuilder(std::string source, const KernelFilter& filter, model::Diagnostics& diagnostics,
                             InstanceSuffix suffix)
    : source_(std::move(source)), filter_(filter), diagnostics_(diagnostics), suffix_(std::move(suffix)) {}

RegionTree& RegionBuilder::TreeFor(const model::ProcessId& process, const std::string& device) {
  // Launches come in runs of one scope: the last answer is kept (map nodes stay put).
  if (last_tree_ == nullptr || last_scope_.device != device || last_scope_.process != process) {
    last_scope_ = Scope{process, device};
    auto [it, added] = scopes_.try_emplace(last_scope_);
    if (added) it->second.set_instance_suffix(suffix_);
    last_tree_ = &it->second;
  }
  return *last_tree_;
}

void RegionBuilder::OnLaunch(const model::LaunchRecord& launch) {
  if (!launch.has_nvtx) return;
  saw_nvtx_ = true;
  const bool copy = launch.kind == model::LaunchKind::kMemcpy || launch.kind == model::LaunchKind::kMemset;
  if (copy) {
    caps_.gpu_ops = true;
  } else {
    caps_.kernels = true;
    ++launches_;
  }
  if (launch.start_ns && launch.end_ns) caps_.projected = true;
  if (launch.nvtx_stack.empty() && launch.nvtx_start_end.empty()) {
    if (!copy) ++outside_;
    return;
  }
  RegionTree& tree = TreeFor(launch.process, launch.device);
  const model::LaunchRecord* record = &launch;
  std::optional<model::LaunchRecord> folded;  // built only when needed: not once per launch
  if (launch.nvtx_stack.size() > model::kMaxNvtxDepth) {
    // Deeper than the cap: counted in its ancestor at the cap (linear cost in any depth).
    ++folded_;
    folded.emplace(launch);
    folded->nvtx_stack.resize(model::kMaxNvtxDepth);
    record = &*folded;
  }
  if (record->kind == model::LaunchKind::kRange) {
    AddRangeResult(tree, *record);
  } else {
    AddKernelLaunch(tree, *record);
  }
}

// KernelOf keeps pointers into regions' kernel maps while the tree's region
// vector grows: a Region must move (taking its map's nodes along), never copy.
static_assert(std::is_nothrow_move_constructible_v<Region>);

KernelAggregate& RegionBuilder::KernelOf(const RegionTree& tree, std::size_t region_index, Region& region,
                                         const model::LaunchRecord& launch) {
  // One hash of the name per launch, then one small lookup per region of its
  // stack, instead of a walk of the region's name-ordered map per region.
  // Equal nonzero keys are equal names: no compare of (long, templated) names per region.
  const bool same_name = launch.kernel_name_key != 0 ? launch.kernel_name_key == kernel_slot_key_
                                                     : kernel_slot_key_ == 0 && kernel_slot_name_ == launch.kernel_name;
  if (!same_name) {
    kernel_slot_name_ = launch.kernel_name;
    kernel_slot_key_ = launch.kernel_name_key;
    const std::size_t* known = slot_by_key_.Find(launch.kernel_name_key);  // kernel_slots_' answer, unhashed
    kernel_slot_ =
        known != nullptr ? *known : kernel_slots_.try_emplace(launch.kernel_name, kernel_slots_.size()).first->second;
    slot_by_key_.Put(launch.kernel_name_key, kernel_slot_);
  }
  // Most regions see few kernels: their aggregates by slot in a small array,
  // up to a bound on all such arrays together; the rest through a hash map.
  std::vector<KernelAggregate*>& dense = region.kernel_by_slot;
  if (kernel_slot_ < dense.size() && dense[kernel_slot_] != nullptr) return *dense[kernel_slot_];
  const std::size_t grow = kernel_slot_ >= dense.size() ? kernel_slot_ + 1 - dense.size() : 0;
  if (kernel_slot_ < kMaxSlotsPerRegion && dense_slots_ + grow <= kMaxDenseSlots) {
    dense_slots_ += grow;
    dense.resize(std::max(dense.size(), kernel_slot_ + 1), nullptr);
    dense[kernel_slot_] = &region.kernels[launch.kernel_name];  // map nodes stay put
    return *dense[kernel_slot_];
  }
  KernelAggregate*& cached = kernel_cache_[CacheKey{&tree, region_index, kernel_slot_}];
  if (cached == nullptr) cached = &region.kernels[launch.kernel_name];
  return *cached;
}

void RegionBuilder::Account(RegionTree& tree, std::size_t region_index, const model::LaunchRecord& launch,
                            bool innermost) {
  Region& region = tree.regions()[region_index];
  // A builder's trees hold its own input's launches only (CombineRegions merges trees later).
  if (region.inputs.empty()) region.inputs.insert(source_);
  const double ns = launch.duration_ns.value_or(0);
  if (launch.kind == model::LaunchKind::kMemcpy || launch.kind == model::LaunchKind::kMemset) {
    ++region.gpu_ops;
    region.copy_ns += ns;
    if (innermost) region.copy_exclusive_ns += ns;
    return;
  }
  if (!filter_.Selects(region.label, launch.kernel_name)) {
    ++region.excluded;
    return;
  }
  ++region.launches;
  region.kernel_ns += ns;
  if (innermost) region.kernel_exclusive_ns += ns;
  KernelAggregate& k = KernelOf(tree, region_index, region, launch);
  if (k.name.empty()) k.name = launch.kernel_name;
  AddLaunch(k, launch);
}

namespace {

// Per numbered instance: GPU time of its kernels, and the span of its GPU work.
// The instance is the source's (a range id), else the counter of a folded
// numbered name.
void AddInstance(Region& region, std::optional<std::int64_t> instance, const model::LaunchRecord& launch) {
  if (!instance) return;
  if (region.last_instance != instance) {
    region.last_instance = instance;
    region.last_instance_ns = nullptr;
    region.last_instance_span = nullptr;
  }
  const bool kernel = launch.kind == model::LaunchKind::kKernel;
  if (kernel && launch.duration_ns) {
    if (!region.last_instance_ns) {
      region.last_instance_ns = &region.instance_ns[*instance];
    }
    *region.last_instance_ns += *launch.duration_ns;
  }
  if (launch.start_ns && launch.end_ns) {
    if (!region.last_instance_span) {
      bool inserted = false;
      region.last_instance_span = &region.instance_span.At(*instance, {*launch.start_ns, *launch.end_ns}, &inserted);
      if (inserted) return;
    }
    auto& span = *region.last_instance_span;
    span.first = std::min(span.first, *launch.start_ns);
    span.second = std::max(span.second, *launch.end_ns);
  }
}

// A top-level folded region: a selected kernel's time under its name's number.
void AddNumbered(Region& region, std::optional<std::int64_t> counter, const model::LaunchRecord& launch,
                 const KernelFilter& filter) {
  if (counter && launch.kind == model::LaunchKind::kKernel && launch.duration_ns &&
      filter.Selects(region.label, launch.kernel_name)) {
    region.number_gpu_ns[*counter] += *launch.duration_ns;
  }
}

}  // namespace

void RegionBuilder::AddKernelLaunch(RegionTree& tree, const model::LaunchRecord& launch) {
  const auto& stack = launch.nvtx_stack;
  const RegionTree::StackRegions& levels = tree.StackIds(stack, launch.context_key);  // Account never calls Find
  for (std::size_t d = 0; d < stack.size(); ++d) {
    Account(tree, levels.ids[d], launch, d + 1 == stack.size());
    AddInstance(tree.regions()[levels.ids[d]], stack[d].instance ? stack[d].instance : levels.counters[d], launch);
  }
  if (!stack.empty()) AddNumbered(tree.regions()[levels.ids[0]], levels.counters[0], launch, filter_);
  for (std::size_t i = 0; i < launch.nvtx_start_end.size(); ++i) {
    const std::vector<model::NvtxFrame> one{launch.nvtx_start_end[i]};
    RegionTree::StackRegions level;
    const std::size_t index = tree.Find(one, 0, RegionKind::kStartEnd, &level);
    Account(tree, index, launch, true);
    AddInstance(tree.regions()[index], one[0].instance ? one[0].instance : level.counters[0], launch);
    AddNumbered(tree.regions()[index], level.counters[0], launch, filter_);
  }
}

void RegionBuilder::AddRangeResult(RegionTree& tree, const model::LaunchRecord& launch) {
  const bool push_pop = !launch.nvtx_stack.empty();
  const auto& frames = push_pop ? launch.nvtx_stack : launch.nvtx_start_end;
  const std::size_t depth = push_pop ? frames.size() - 1 : 0;
  const std::vector<model::NvtxFrame> one{frames.back()};
  Region& r = tree.regions()[push_pop ? tree.Find(frames, depth, RegionKind::kPushPop)
                                      : tree.Find(one, 0, RegionKind::kStartEnd)];
  r.inputs.insert(source_);
  if (!launch.duration_ns) {
    diagnostics_.Add(model::Diag::range_without_duration,
                     fmt::format("range result {} of region '{}' has no duration", model::Excerpt(launch.result_id),
                                 model::Excerpt(r.label)));
    return;
  }
  r.measured.Add(*launch.duration_ns);
  if (r.range_metrics.name.empty()) r.range_metrics.name = "range";
  AddLaunch(r.range_metrics, launch);
}

void RegionBuilder::OnNvtxRange(const model::NvtxRange& range) {
  if (range.instances && (range.gpu_projected_ns || range.total_ns)) return AddSummaryRange(range);
  if (!range.start_ns || !range.end_ns || !range.global_tid) return;  // open at exit: the importer said so
  saw_nvtx_ = true;
  caps_.cpu = true;
  if (*range.end_ns < *range.start_ns) {
    diagnostics_.Add(model::Diag::range_ends_before_start,
                     fmt::format("{}: NVTX range '{}' ends before it starts; skipped", source_, range.name));
    return;
  }
  const std::uint32_t process = TimedProcess(range.process);
  if (range.unix_offset_ns && !timed_unix_offsets_[process]) timed_unix_offsets_[process] = range.unix_offset_ns;
  timed_.Add(TimedRange{process, 0, *range.global_tid, *range.start_ns, *range.end_ns, range.push_pop,
                        range.end_unknown, TimedName(range.domain, range.name)});
}

std::uint32_t RegionBuilder::TimedName(const std::string& domain, const std::string& name) {
  if (last_timed_name_ < timed_names_.size() && timed_names_[last_timed_name_].name == name &&
      timed_names_[last_timed_name_].domain == domain) {
    return last_timed_name_;
  }
  AssignPairKey(timed_name_key_, domain, name);
  if (auto it = timed_name_index_.find(std::string_view(timed_name_key_)); it != timed_name_index_.end()) {
    return last_timed_name_ = it->second;
  }
  const auto id = static_cast<std::uint32_t>(timed_names_.size());
  timed_name_index_.emplace(timed_name_key_, id);
  timed_names_.push_back(model::NvtxFrame{domain, name, std::nullopt});
  return last_timed_name_ = id;
}

// nvtx_sum gives CPU range time, nvtx_gpu_proj_sum the projection (and
// CPU range time too): flat regions with counts and totals.
void RegionBuilder::AddSummaryRange(const model::NvtxRange& range) {
  saw_nvtx_ = true;
  const std::vector<model::NvtxFrame> one{model::NvtxFrame{range.domain, range.name, std::nullopt}};
  RegionTree& tree = TreeFor(range.process, "");
  Region& r = tree.regions()[tree.Find(one, 0, RegionKind::kSummary)];
  r.inputs.insert(source_);
  const auto count = static_cast<std::uint64_t>(std::max<std::int64_t>(0, *range.instances));
  auto add = [count](InstanceStats& stats, std::optional<double>& quantity, double total,
                     const std::optional<double>& min, const std::optional<double>& max) {
    InstanceStats row;
    row.count = count;
    row.total_ns = total;
    row.has_extremes = min.has_value() && max.has_value();
    row.min_ns = min.value_or(0);
    row.max_ns = max.value_or(0);
    stats.Merge(row);
    quantity = quantity.value_or(0) + total;
  };
  if (range.total_ns) {
    caps_.cpu = true;
    // nvtx_gpu_proj_sum lists only the instances that launched GPU work.
    if (range.gpu_projected_ns) caps_.cpu_of_gpu_instances_only = true;
    // cpu_exclusive stays unknown: a summary row records no nesting.
    add(r.cpu_instances, r.cpu_ns, *range.total_ns, range.min_ns, range.max_ns);
  }
  if (range.gpu_projected_ns) {
    caps_.projected = true;
    add(r.projected_stats, r.projected_ns, *range.gpu_projected_ns, range.projected_min_ns, range.projected_max_ns);
  }
}

// nvtx_kern_sum: flat regions with the GPU kernel time of the kernels
// launched inside them. nsys counts a kernel in every range of its stack,
// so what is exclusive is not known.
void RegionBuilder::OnNvtxKernelRow(const model::NvtxKernelRow& row) {
  saw_nvtx_ = true;
  launches_per_range_ = true;
  caps_.kernels = true;
  if (row.range.empty()) {
    outside_ += static_cast<std::uint64_t>(std::max<std::int64_t>(0, row.kernel.calls));
    launches_ += static_cast<std::uint64_t>(std::max<std::int64_t>(0, row.kernel.calls));
    return;
  }
  launches_ += static_cast<std::uint64_t>(std::max<std::int64_t>(0, row.kernel.calls));
  const std::vector<model::NvtxFrame> one{model::NvtxFrame{row.domain, row.range, std::nullopt}};
  RegionTree& tree = TreeFor(row.process, "");
  Region& r = tree.regions()[tree.Find(one, 0, RegionKind::kSummary)];
  r.inputs.insert(source_);
  r.total_ns = r.total_ns.value_or(0) + row.kernel.total_ns;
  r.launches += static_cast<std::uint64_t>(std::max<std::int64_t>(0, row.kernel.calls));
  KernelAggregate& k = r.kernels[row.kernel.kernel_name];
  if (k.name.empty()) k.name = row.kernel.kernel_name;
  AddSummary(k, row.kernel);
  // "NVTX Inst" counts the range's instances that ran this kernel, not the
  // range's instances: two code paths of one range launch different kernels
  // (kiln's gdn/conv: 1824 and 528 of 2352). The range's count is not known
  // here (nvtx_sum or a timeline gives it).
}

std::uint32_t RegionBuilder::TimedProcess(const model::ProcessId& process) {
  // Ranges come in runs of one process: the last one is checked first.
  if (!timed_processes_.empty() && timed_processes_[last_timed_process_] == process) return last_timed_process_;
  const auto [it, added] =
      timed_process_index_.try_emplace(process, static_cast<std::uint32_t>(timed_processes_.size()));
  if (added) {
    timed_processes_.push_back(process);
    timed_unix_offsets_.emplace_back();
  }
  return last_timed_process_ = it->second;
}

// Timeline ranges become regions with their CPU time. Push/pop ranges of a
// thread nest: sorted by start (the longer first at equal starts), each
// range's parent is the innermost open range that contains it.
void RegionBuilder::AddTimedRanges() {
  std::map<model::ProcessId, std::set<std::string>> devices;
  for (const auto& [scope, tree] : scopes_) devices[scope.process].insert(scope.device);
  // Nested in order of (process, thread, start, longer first), ties in
  // arrival order, the processes by their rank in ProcessId order. Ranges
  // that came in that order are read from the log as they are; others are
  // sorted in place as small keys (a copy of the keys would double the
  // memory of a million ranges).
  std::vector<std::uint32_t> by_rank(timed_processes_.size());
  std::vector<std::uint32_t> rank(timed_processes_.size());
  bool ranked_as_indexed = true;
  {
    std::uint32_t next = 0;
    for (const auto& [process, index] : timed_process_index_) {
      ranked_as_indexed = ranked_as_indexed && index == next;
      by_rank[next] = index, rank[index] = next++;
    }
  }
  std::vector<TimedRange> open;
  std::vector<std::size_t> open_ids;  // the region of each open range (none past the depth cap)
  std::optional<std::int64_t> counter;
  TimedRange prev;
  bool first = true;
  const auto place = [&](const TimedRange& r) {
    if (first || r.process != prev.process || r.tid != prev.tid) {
      open.clear();
      open_ids.clear();
    }
    first = false;
    prev = r;
    // A CPU range belongs to the scope of its process's GPU work when that is one device.
    const model::ProcessId& process = timed_processes_[by_rank[r.process]];
    const std::optional<std::int64_t> unix_offset = timed_unix_offsets_[by_rank[r.process]];
    const auto& devs = devices[process];
    RegionTree& tree = TreeFor(process, devs.size() == 1 ? *devs.begin() : std::string());
    std::size_t id = 0;
    counter.reset();
    bool top_level = true;
    if (r.push_pop) {
      const auto contains = [&r](const TimedRange& o) {
        return o.start <= r.start && r.end <= o.end && !(o.end == r.start && o.start < r.start);
      };
      while (!open.empty() && !contains(open.back())) {
        open.pop_back();
        open_ids.pop_back();
      }
      if (open.size() >= model::kMaxNvtxDepth) {
        // Folded: its CPU time is inside its ancestor's at the cap already.
        ++folded_;
        open.push_back(r);
        open_ids.push_back(SIZE_MAX);  // never a parent: its children are past the cap too
        return;
      }
      // Under the innermost open range's region: what a walk of the whole stack from the top finds.
      top_level = open.empty();
      id = tree.Under(top_level ? std::nullopt : std::optional(open_ids.back()), RegionKind::kPushPop,
                      timed_names_[r.name], &counter);
      open.push_back(r);
      open_ids.push_back(id);
    } else {
      id = tree.Under(std::nullopt, RegionKind::kStartEnd, timed_names_[r.name], &counter);
    }
    Region& region = tree.regions()[id];
    region.inputs.insert(source_);
    // A range cut at the trace's end (its end unknown) nests its children and
    // holds its launches, but has no CPU time: it is no instance of the CPU
    // range time (count, min, mean, max), and the importer counted it.
    if (!r.end_unknown) region.cpu_instances.Add(static_cast<double>(r.end - r.start));
    if (!r.end_unknown && !region.parent && top_level && counter) {
      region.number_cpu_ns[*counter] += static_cast<double>(r.end - r.start);
    }
    if (!region.parent && top_level && unix_offset) {
      const std::int64_t start = r.start + *unix_offset;
      region.start_unix_ns = std::min(region.start_unix_ns.value_or(start), start);
      if (counter) region.number_start_unix_ns.Earliest(*counter, start);
    }
  };
  if (timed_.in_order() && ranked_as_indexed) {
    timed_.ForEach(place);  // a process's index is its rank
  } else {
    std::vector<TimedRange> sorted = timed_.TakeVector();
    for (TimedRange& r : sorted) r.process = rank[r.process];
    std::sort(sorted.begin(), sorted.end(), NestsBefore);
    for (const TimedRange& r : sorted) place(r);
  }
  timed_.Clear();
  timed_processes_.clear();
  timed_unix_offsets_.clear();
  timed_process_index_.clear();
  timed_names_.clear();
  timed_name_index_.clear();
  last_timed_process_ = 0;
}

void RegionBuilder::Finish() {
  last_tree_ = nullptr;  // CombineRegions moves the trees out after this
  AddTimedRanges();
  if (folded_ > 0) {
    diagnostics_.Add(model::Diag::nvtx_depth_folded,
                     fmt::format("{}: {} launch(es) or range(s) nested deeper than {} NVTX levels; counted in their "
                                 "ancestor at level {}",
                                 source_, folded_, model::kMaxNvtxDepth, model::kMaxNvtxDepth));
  }
  for (auto& [scope, tree] : scopes_) tree.Finish(caps_);
}

}  // namespace llmpo::analysis
