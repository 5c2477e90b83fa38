#include "src/analysis/region_combine.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <tuple>

namespace llmpo::analysis {
namespace {

// Inputs whose numbers add: one family, pairwise different scopes.
struct Group {
  SourceFamily family;
  std::vector<const RegionBuilder*> members;
  std::map<Scope, RegionTree> scopes;
  RegionCapabilities caps;
  RegionTree aggregate;
};

std::string ScopeText(const Scope& s) {
  if (!s.process.Known() && s.device.empty()) return "ranges (no process named)";
  return fmt::format("process '{}', device '{}'", s.process.Known() ? s.process.Label() : "?",
                     s.device.empty() ? "?" : s.device);
}

bool Overlaps(const Group& g, const RegionBuilder& b, Scope* shared) {
  for (const auto& [scope, tree] : b.scopes()) {
    if (g.scopes.count(scope)) {
      *shared = scope;
      return true;
    }
  }
  return false;
}

void CopyQuantity(Region& to, const Region& from, Quantity q) {
  switch (q) {
    case Quantity::kTotal:
      to.total_ns = from.total_ns;
      to.exclusive_ns = from.exclusive_ns;
      to.derived_total = from.derived_total;
      to.launches = from.launches;
      to.excluded = from.excluded;
      to.kernels = from.kernels;
      to.measured = from.measured;
      to.instance_ns = from.instance_ns;
      to.number_gpu_ns = from.number_gpu_ns;
      to.range_metrics = from.range_metrics;
      break;
    case Quantity::kGpuOps:
      to.gpu_ops_ns = from.gpu_ops_ns;
      to.gpu_ops_exclusive_ns = from.gpu_ops_exclusive_ns;
      to.gpu_ops = from.gpu_ops;
      break;
    case Quantity::kProjected:
      to.projected_ns = from.projected_ns;
      to.projected_stats = from.projected_stats;
      break;
    case Quantity::kCpu:
      to.cpu_ns = from.cpu_ns;
      to.cpu_exclusive_ns = from.cpu_exclusive_ns;
      to.cpu_instances = from.cpu_instances;
      to.number_cpu_ns = from.number_cpu_ns;
      to.start_unix_ns = from.start_unix_ns;
      to.number_start_unix_ns = from.number_start_unix_ns;
      break;
  }
}

// Trees of groups that describe the same program, first has precedence:
// each quantity of each region from the first tree that knows it.
RegionTree ByPrecedence(const std::vector<const RegionTree*>& trees) {
  RegionTree out;
  for (const RegionTree* t : trees) {
    for (const Region& r : t->regions()) {
      Region& o = out.Ensure(r);
      for (Quantity q : kQuantities) {
        const auto value = r.Value(q);
        if (!value) continue;
        if (!o.Value(q)) {
          CopyQuantity(o, r, q);
          o.inputs.insert(r.inputs.begin(), r.inputs.end());
        } else if (std::abs(*value - *o.Value(q)) > 1e-9 * std::max(1.0, std::abs(*value))) {
          o.also_measured.push_back(AlsoMeasured{q, fmt::format("{}", fmt::join(r.inputs, ", ")), *value});
        }
      }
    }
    out.caps.Add(t->caps);
  }
  return out;
}

RegionTree Summed(const std::map<Scope, RegionTree>& scopes) {
  RegionTree out;
  for (const auto& [scope, tree] : scopes) {
    for (const Region& r : tree.regions()) out.Merge(r);
    out.caps.Add(tree.caps);
  }
  return out;
}

}  // namespace

CombinedRegions CombineRegions(const std::vector<SourceRegions>& sources) {
  CombinedRegions out;
  std::vector<SourceRegions> ordered = sources;
  // By family (the precedence); within one, an input whose CPU times cover
  // only the instances with GPU work (nvtx_gpu_proj_sum) after one that
  // covers every instance (nvtx_sum), whatever the order they were given in.
  std::stable_sort(ordered.begin(), ordered.end(), [](const SourceRegions& a, const SourceRegions& b) {
    return std::tuple(a.family, a.builder->caps().cpu_of_gpu_instances_only) <
           std::tuple(b.family, b.builder->caps().cpu_of_gpu_instances_only);
  });
  std::vector<Group> groups;
  for (const SourceRegions& s : ordered) {
    if (!s.builder->saw_nvtx()) continue;
    out.saw_nvtx = true;
    Group* home = nullptr;
    Scope shared;
    const RegionBuilder* repeated = nullptr;
    for (Group& g : groups) {
      if (g.family != s.family) continue;
      if (!Overlaps(g, *s.builder, &shared)) {
        home = &g;
        break;
      }
      if (repeated == nullptr) repeated = g.members.front();
    }
    if (home == nullptr) {
      if (repeated != nullptr) {
        out.notes.push_back(
            fmt::format("`{}` describes the same {} as `{}`: its region numbers are not added, `{}`'s are shown "
                        "(differing values are listed as also measured)",
                        s.builder->source(), ScopeText(shared), repeated->source(), repeated->source()));
      }
      groups.push_back(Group{s.family, {}, {}, {}, {}});
      home = &groups.back();
    }
    home->members.push_back(s.builder);
    home->caps.Add(s.builder->caps());
    for (auto& [scope, tree] : s.builder->scopes()) home->scopes.emplace(scope, std::move(tree));
  }
  std::vector<SourceFamily> counted;  // launches of the first group of each family: the ones shown
  for (const Group& g : groups) {
    if (std::find(counted.begin(), counted.end(), g.family) != counted.end()) continue;
    counted.push_back(g.family);
    for (const RegionBuilder* b : g.members) {
      out.launches_with_nvtx += b->launches_seen();
      out.launches_per_range = out.launches_per_range || b->launches_per_range();
      out.launches_outside += b->launches_outside();
    }
  }
  std::vector<std::string> families;
  for (const Group& g : groups) {
    const std::string name(model::ToString(g.family));
    if (std::find(families.begin(), families.end(), name) == families.end()) families.push_back(name);
  }
  if (families.size() > 1) {
    out.notes.push_back(fmt::format(
        "inputs of different kinds ({}) are taken to describe the same program: each region quantity comes from one "
        "kind, in the order timeline > ncu > nsys stats summary, never from their sum",
        fmt::join(families, ", ")));
  }
  for (Group& g : groups) g.aggregate = Summed(g.scopes);
  std::map<Scope, std::vector<RegionTree*>> by_scope;
  std::vector<RegionTree*> aggregates;
  for (Group& g : groups) {
    for (auto& [scope, tree] : g.scopes) by_scope[scope].push_back(&tree);
    aggregates.push_back(&g.aggregate);
  }
  // One tree has nothing to take precedence over: it is moved, not rebuilt
  // (a copy of every region and its kernels would double the peak memory).
  const auto combine = [](std::vector<RegionTree*>& trees) {
    if (trees.size() == 1) return std::move(*trees.front());
    return ByPrecedence(std::vector<const RegionTree*>(trees.begin(), trees.end()));
  };
  for (auto& [scope, trees] : by_scope) out.scopes.emplace(scope, combine(trees));
  out.aggregate = combine(aggregates);
  std::size_t differing = 0;
  for (const Region& r : out.aggregate.regions()) differing += r.also_measured.size();
  if (differing > 0) {
    // Why they may differ, for the kinds of input at hand.
    std::vector<std::string> why;
    bool ncu = false, partial_cpu = false;
    for (const Group& g : groups) {
      ncu = ncu || g.family == SourceFamily::kNcu;
      partial_cpu = partial_cpu || g.caps.cpu_of_gpu_instances_only;
    }
    if (partial_cpu) {
      why.push_back(
          "nvtx_gpu_proj_sum counts only the range instances with GPU work, so its CPU range time and instances are "
          "used only where no input counts every instance (nvtx_sum, a timeline)");
    }
    if (ncu) why.push_back("ncu replays kernels one at a time, so its kernel times differ from a timeline's");
    why.push_back("inputs that disagree may also come from different runs");
    out.notes.push_back(fmt::format(
        "{} region value(s) differ between inputs taken to describe the same program (listed as also measured); "
        "only one input's value is used, nothing is added: {}",
        differing, fmt::join(why, "; ")));
  }
  return out;
}

}  // namespace llmpo::analysis
