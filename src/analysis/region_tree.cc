#include "src/analysis/region_tree.h"

#include <fmt/format.h>

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

std::string RegionLabel(const model::NvtxFrame& frame) {
  return frame.domain.empty() ? frame.name : fmt::format("{}@{}", frame.domain, frame.name);
}

void InstanceStats::Add(double ns) {
  min_ns = count == 0 ? ns : std::min(min_ns, ns);
  max_ns = count == 0 ? ns : std::max(max_ns, ns);
  total_ns += ns;
  ++count;
}

std::optional<InstanceStats> Region::Instances(bool* has_extremes) const {
  *has_extremes = kind != RegionKind::kSummary;
  if (measured.count > 0) return measured;
  if (instance_ns.empty()) return std::nullopt;
  InstanceStats stats;
  for (const auto& [id, ns] : instance_ns) stats.Add(ns);
  return stats;
}

std::size_t RegionTree::Find(const std::vector<model::NvtxFrame>& frames, std::size_t depth, RegionKind kind) {
  std::vector<std::string> path;
  for (std::size_t i = 0; i <= depth; ++i) path.push_back(RegionLabel(frames[i]));
  auto [it, inserted] = index_.try_emplace({kind, path}, regions_.size());
  if (!inserted) return it->second;
  Region r;
  r.label = path.back();
  r.name = frames[depth].name;
  r.domain = frames[depth].domain;
  r.kind = kind;
  r.path = path;
  r.depth = static_cast<int>(depth);
  if (depth > 0) r.parent = Find(frames, depth - 1, kind);
  const std::size_t id = regions_.size();  // Find above may have grown the vector
  it = index_.find({kind, path});
  it->second = id;
  if (r.parent) regions_[*r.parent].children.push_back(id);
  regions_.push_back(std::move(r));
  return id;
}

const std::vector<std::size_t>& RegionTree::StackIds(const std::vector<model::NvtxFrame>& stack) {
  if (stack == last_stack_ && !last_ids_.empty()) return last_ids_;
  last_ids_.clear();
  for (std::size_t d = 0; d < stack.size(); ++d) last_ids_.push_back(Find(stack, d, RegionKind::kPushPop));
  last_stack_ = stack;
  return last_ids_;
}

void RegionTree::Merge(const Region& other) {
  auto [it, inserted] = index_.try_emplace({other.kind, other.path}, regions_.size());
  if (inserted) {
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
      regions_[*r.parent].children.push_back(regions_.size());
    }
    regions_.push_back(std::move(r));
  }
  Region& r = regions_[it->second];
  r.inclusive_ns += other.inclusive_ns;
  r.exclusive_ns += other.exclusive_ns;
  r.launches += other.launches;
  r.excluded += other.excluded;
  r.derived_total = r.derived_total || other.derived_total;
  for (const auto& [name, k] : other.kernels) MergeKernel(r.kernels[name], k);
  for (const auto& [id, ns] : other.instance_ns) r.instance_ns[id] += ns;
  if (other.measured.count > 0) {
    r.measured.min_ns = r.measured.count ? std::min(r.measured.min_ns, other.measured.min_ns) : other.measured.min_ns;
    r.measured.max_ns = r.measured.count ? std::max(r.measured.max_ns, other.measured.max_ns) : other.measured.max_ns;
    r.measured.count += other.measured.count;
    r.measured.total_ns += other.measured.total_ns;
  }
  MergeKernel(r.range_metrics, other.range_metrics);
}

void RegionTree::Finish() {
  // Children come after their parents, so a reverse pass sees children first.
  for (std::size_t i = regions_.size(); i-- > 0;) {
    Region& r = regions_[i];
    if (r.measured.count > 0 && r.kind != RegionKind::kSummary) {
      // A measured region's own time is what its children do not account for.
      double children = 0;
      for (std::size_t c : r.children) children += regions_[c].TotalNs();
      r.exclusive_ns = std::max(0.0, r.measured.total_ns - children);
      continue;
    }
    if (r.measured.count > 0 || r.children.empty()) continue;
    double sum = 0;
    bool any = false;
    for (std::size_t c : r.children) {
      if (regions_[c].measured.count > 0) {
        sum += regions_[c].TotalNs();
        any = true;
      }
    }
    if (any && r.inclusive_ns == 0) {
      r.inclusive_ns = sum;
      r.derived_total = true;
    }
  }
}

RegionBuilder::RegionBuilder(const KernelFilter& filter, model::Diagnostics& diagnostics)
    : filter_(filter), diagnostics_(diagnostics) {}

void RegionBuilder::OnLaunch(const model::LaunchRecord& launch) {
  if (!launch.has_nvtx) return;
  saw_nvtx_ = true;
  ++launches_;
  if (launch.nvtx_stack.empty() && launch.nvtx_start_end.empty()) {
    ++outside_;
    return;
  }
  AddToTree(scopes_[Scope{launch.process, launch.device}], launch);
}

void RegionBuilder::AddToTree(RegionTree& tree, const model::LaunchRecord& launch) {
  if (launch.kernel_name == "range") {
    AddRangeResult(tree, launch);
  } else {
    AddKernelLaunch(tree, launch);
  }
}

void RegionBuilder::Account(Region& region, const model::LaunchRecord& launch, bool innermost) {
  if (!filter_.Selects(region.label, launch.kernel_name)) {
    ++region.excluded;
    return;
  }
  const double ns = launch.duration_ns.value_or(0);
  ++region.launches;
  region.inclusive_ns += ns;
  if (innermost) region.exclusive_ns += ns;
  KernelAggregate& k = region.kernels[launch.kernel_name];
  if (k.name.empty()) k.name = launch.kernel_name;
  AddLaunch(k, launch);
}

void RegionBuilder::AddKernelLaunch(RegionTree& tree, const model::LaunchRecord& launch) {
  const auto& stack = launch.nvtx_stack;
  const std::vector<std::size_t>& ids = tree.StackIds(stack);  // Account never calls Find
  for (std::size_t d = 0; d < stack.size(); ++d) {
    Region& region = tree.regions()[ids[d]];
    Account(region, launch, d + 1 == stack.size());
    if (stack[d].instance && launch.duration_ns) region.instance_ns[*stack[d].instance] += *launch.duration_ns;
  }
  for (std::size_t i = 0; i < launch.nvtx_start_end.size(); ++i) {
    const std::vector<model::NvtxFrame> one{launch.nvtx_start_end[i]};
    Region& r = tree.regions()[tree.Find(one, 0, RegionKind::kStartEnd)];
    Account(r, launch, true);
    if (one[0].instance && launch.duration_ns) r.instance_ns[*one[0].instance] += *launch.duration_ns;
  }
}

void RegionBuilder::AddRangeResult(RegionTree& tree, const model::LaunchRecord& launch) {
  const bool push_pop = !launch.nvtx_stack.empty();
  const auto& frames = push_pop ? launch.nvtx_stack : launch.nvtx_start_end;
  const std::size_t depth = push_pop ? frames.size() - 1 : 0;
  const std::vector<model::NvtxFrame> one{frames.back()};
  Region& r = tree.regions()[push_pop ? tree.Find(frames, depth, RegionKind::kPushPop)
                                      : tree.Find(one, 0, RegionKind::kStartEnd)];
  if (!launch.duration_ns) {
    diagnostics_.Add("range_without_duration", model::Severity::kDataLoss,
                     fmt::format("range result {} of region '{}' has no duration", model::Excerpt(launch.result_id),
                                 model::Excerpt(r.label)));
    return;
  }
  r.measured.Add(*launch.duration_ns);
  if (r.range_metrics.name.empty()) r.range_metrics.name = "range";
  AddLaunch(r.range_metrics, launch);
}

void RegionBuilder::OnNvtxRange(const model::NvtxRange& range) {
  // Only pre-aggregated summaries (nsys stats) become regions here; timeline
  // ranges reach regions through the launches they contain.
  if (!range.instances || !(range.gpu_projected_ns || range.total_ns)) return;
  saw_nvtx_ = true;
  const std::vector<model::NvtxFrame> one{model::NvtxFrame{range.domain, range.name, std::nullopt}};
  RegionTree& tree = scopes_[Scope{}];
  Region& r = tree.regions()[tree.Find(one, 0, RegionKind::kSummary)];
  r.measured.count += static_cast<std::uint64_t>(*range.instances);
  r.measured.total_ns += range.gpu_projected_ns ? *range.gpu_projected_ns : *range.total_ns;
}

void RegionBuilder::Finish() {
  for (auto& [scope, tree] : scopes_) tree.Finish();
  if (scopes_.size() < 2) return;
  aggregate_ = RegionTree();
  for (const auto& [scope, tree] : scopes_) {
    for (const auto& region : tree.regions()) aggregate_.Merge(region);
  }
  aggregate_.Finish();
}

}  // namespace llmpo::analysis
