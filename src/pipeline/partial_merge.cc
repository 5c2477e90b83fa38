#include "src/pipeline/partial_merge.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include "src/analysis/launch_overhead.h"
#include "src/core/atomic_file.h"

namespace llmpo::pipeline {
namespace fs = std::filesystem;
using report::PartialSet;

namespace {

Error Refuse(std::string message, std::string fix) {
  return MakeError(ExitStatus::kInput, std::move(message)).WithNote(std::move(fix));
}

struct RankClaim {
  std::string origin, source;
};

}  // namespace

namespace {

using KeptOverhead = std::vector<std::pair<std::optional<std::int64_t>, model::LaunchOverheadFrom>>;

// Lookups into what the parts before hold, kept from one part to the next:
// rebuilt for each part, they made merging N parts cost N^2 (2,000 ranks of
// an archive, each its own part). Built from the first part when the second
// comes.
struct AppendIndex {
  bool built = false;
  std::unordered_map<std::string, std::uint32_t> phase_names, phase_scopes;  // PhaseInput's tables
  std::map<analysis::LaunchPath, KeptOverhead> launch_paths;                 // launch overhead rows
};

}  // namespace

// What the parts before the next one hold, for its checks.
struct PartialMerger::Checks {
  AppendIndex index;
  bool seen_first = false;
  std::string first_job, first_origin;        // the first part's
  std::map<std::string, std::string> holder;  // input -> the partial holding it
  std::map<std::int64_t, RankClaim> claims;
  std::optional<std::pair<std::int64_t, RankClaim>> world;

  Status SameJob(const PartialFile& p) {
    if (!seen_first) {
      seen_first = true, first_job = p.set.job, first_origin = p.origin;
    }
    if (p.set.job == first_job) return OkStatus();
    return Refuse(fmt::format("{} belongs to job \"{}\" but {} to job \"{}\": partials of different jobs do not merge",
                              first_origin, first_job, p.origin, p.set.job),
                  "merge the partials of one job only (import --partial ... --job NAME names a partial's job)");
  }

  Status InputsOnce(const PartialFile& p) {
    for (const report::SourceInfo& s : p.set.sources) {
      const auto [it, fresh] = holder.try_emplace(s.path, p.origin);
      if (fresh) continue;
      return Refuse(fmt::format("input {} is in both {} and {}", s.path, it->second, p.origin),
                    "merge each input's partial once");
    }
    return OkStatus();
  }

  // Every input claims its ranks once and all agree on the world size.
  Status Ranks(const PartialFile& p) {
    for (const model::DeviceBreakdown& d : p.set.gpu_breakdown.devices) {
      if (!d.rank) continue;
      const RankClaim claim{p.origin, d.source};
      const auto [it, fresh] = claims.try_emplace(*d.rank, claim);
      // One input may hold a rank in several traces (an archive read as one
      // input); two inputs may not.
      const bool one_input = it->second.origin == p.origin && p.set.sources.size() == 1;
      if (!fresh && it->second.source != d.source && !one_input) {
        return Refuse(fmt::format("rank {} is claimed twice: by {} (in {}) and by {} (in {})", *d.rank,
                                  it->second.source, it->second.origin, d.source, p.origin),
                      "give each rank's trace once (two captures of one rank, or files of two runs?)");
      }
      if (!d.world_size) continue;
      if (!world) world.emplace(*d.world_size, claim);
      if (world->first == *d.world_size) continue;
      return Refuse(fmt::format("{} (in {}) says the world size is {}, but {} (in {}) says {}", world->second.source,
                                world->second.origin, world->first, d.source, p.origin, *d.world_size),
                    "merge the ranks of one run of one job only");
    }
    return OkStatus();
  }
};

namespace {

// A summary row of `from` after the rows of `into`: as KernelAggregator
// takes one from a later input (an API or operation already given is the
// same measurement again; missing fields are filled in).
void MergeSummaries(analysis::RuntimeSummaries& into, analysis::RuntimeSummaries& from) {
  for (auto& api : from.api_calls) {
    const bool have = std::any_of(into.api_calls.begin(), into.api_calls.end(), [&](const auto& h) {
      return h.row.name == api.row.name && h.row.rank == api.row.rank;  // other ranks' calls are other calls
    });
    if (have) {
      ++into.repeated_rows;
    } else {
      into.api_calls.push_back(std::move(api));
    }
  }
  for (auto& op : from.gpu_ops) {
    const auto have = std::find_if(into.gpu_ops.begin(), into.gpu_ops.end(),
                                   [&](const auto& h) { return h.row.operation == op.row.operation; });
    if (have == into.gpu_ops.end()) {
      into.gpu_ops.push_back(std::move(op));
      continue;
    }
    const bool adds_time = !have->row.time && op.row.time;
    const bool adds_size = !have->row.total_bytes && op.row.total_bytes;
    if (adds_time) have->row.time = op.row.time;
    if (adds_size) {
      have->row.total_bytes = op.row.total_bytes;
      have->row.mean_bytes = op.row.mean_bytes;
      have->row.max_bytes = op.row.max_bytes;
    }
    if (!adds_time && !adds_size) ++into.repeated_rows;
  }
}

// Launch overhead rows: one per launch path and rank, the earlier input's
// kept (KernelAggregator::runtime's rule, across partials).
void MergeLaunchOverhead(analysis::RuntimeSummaries& into, analysis::RuntimeSummaries& from,
                         std::map<analysis::LaunchPath, KeptOverhead>& kept) {
  for (auto& r : from.launch_overhead) {
    const model::LaunchOverheadRow& row = r.row;
    KeptOverhead& same_path = kept[analysis::PathOf(row)];
    const auto earlier = std::find_if(same_path.begin(), same_path.end(), [&](const auto& k) {
      return !k.first || !row.process.rank || *k.first == *row.process.rank;
    });
    if (earlier == same_path.end()) {
      same_path.emplace_back(row.process.rank, row.from);
      into.launch_overhead.push_back(std::move(r));
    } else if (earlier->second == row.from && row.from == model::LaunchOverheadFrom::kKernExecSum) {
      ++into.repeated_rows;
    } else {
      ++into.repeated_launch_paths;
    }
  }
}

template <typename T>
void MoveAppend(std::vector<T>& into, std::vector<T>& from) {
  into.insert(into.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
}

// `from`'s phase input after `into`'s, its name and scope ids re-numbered
// into `into`'s tables (first seen first, as one import numbers them).
void AppendPhases(analysis::PhaseInput& into, analysis::PhaseInput& from, AppendIndex& kept) {
  auto remap = [](std::vector<std::string>& table, const std::vector<std::string>& names,
                  std::unordered_map<std::string, std::uint32_t>& index) {
    std::vector<std::uint32_t> ids;
    ids.reserve(names.size());
    for (const auto& n : names) {
      const auto [it, added] = index.try_emplace(n, static_cast<std::uint32_t>(table.size()));
      if (added) table.push_back(n);
      ids.push_back(it->second);
    }
    return ids;
  };
  const auto name_ids = remap(into.names, from.names, kept.phase_names);
  const auto scope_ids = remap(into.scopes, from.scopes, kept.phase_scopes);
  for (auto k : from.kernels) {  // by value: the list keeps them packed
    k.name = name_ids[k.name], k.range = name_ids[k.range], k.scope = scope_ids[k.scope];
    into.kernels.push_back(k);
  }
  for (auto& r : from.ranges) {
    r.scope = scope_ids[r.scope];
    into.ranges.push_back(std::move(r));
  }
  for (auto& d : from.digest.steps) {
    d.scope = scope_ids[d.scope], d.autotune = name_ids[d.autotune];
    for (auto& n : d.names.Open()) n.name = name_ids[n.name];
    d.names.Pack();
    into.digest.steps.push_back(std::move(d));
  }
  into.digest.outside += from.digest.outside;
  into.digest.without_call += from.digest.without_call;
  into.digest.outside_ns += from.digest.outside_ns;
}

// The index of the first part's tables and rows, once.
void BuildIndex(const PartialSet& first, AppendIndex& index) {
  if (index.built) return;
  index.built = true;
  for (std::size_t i = 0; i < first.phases.names.size(); ++i) {
    index.phase_names.try_emplace(first.phases.names[i], static_cast<std::uint32_t>(i));
  }
  for (std::size_t i = 0; i < first.phases.scopes.size(); ++i) {
    index.phase_scopes.try_emplace(first.phases.scopes[i], static_cast<std::uint32_t>(i));
  }
  for (const auto& r : first.runtime.launch_overhead) {
    index.launch_paths[analysis::PathOf(r.row)].emplace_back(r.row.process.rank, r.row.from);
  }
}

void Append(PartialSet& into, PartialSet& from, AppendIndex& index) {
  BuildIndex(into, index);
  MoveAppend(into.sources, from.sources);
  MoveAppend(into.kernels, from.kernels);
  into.runtime.repeated_rows += from.runtime.repeated_rows;
  into.runtime.repeated_launch_paths += from.runtime.repeated_launch_paths;
  MergeSummaries(into.runtime, from.runtime);
  MergeLaunchOverhead(into.runtime, from.runtime, index.launch_paths);
  MoveAppend(into.gpu_busy, from.gpu_busy);
  MoveAppend(into.gpu_breakdown.devices, from.gpu_breakdown.devices);
  MoveAppend(into.gpu_breakdown.cpu_ops, from.gpu_breakdown.cpu_ops);
  if (!into.timeline) into.timeline = std::move(from.timeline);
  // A pattern is unused when no input of either matched it.
  std::erase_if(into.unused_kernel_patterns, [&](const std::string& p) {
    return std::find(from.unused_kernel_patterns.begin(), from.unused_kernel_patterns.end(), p) ==
           from.unused_kernel_patterns.end();
  });
  into.diagnostics.Merge(from.diagnostics);
  into.region_diagnostics.Merge(from.region_diagnostics);
  MoveAppend(into.regions, from.regions);
  MoveAppend(into.launch_sequences, from.launch_sequences);
  AppendPhases(into.phases, from.phases, index);
}

// The orders one import gives (KernelAggregator::Sorted, GpuTimeline::Busy):
// each partial's rows are already in it, so a stable sort by the inputs'
// names is enough.
void SortAsOneImport(PartialSet& set) {
  std::stable_sort(set.kernels.begin(), set.kernels.end(), [](const auto& a, const auto& b) {
    if (a.source != b.source) return a.source < b.source;
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    return a.name < b.name;
  });
  std::stable_sort(set.gpu_busy.begin(), set.gpu_busy.end(), [](const auto& a, const auto& b) {
    return std::tie(a.source, a.device) < std::tie(b.source, b.device);
  });
}

// Appending one part at a time leaves the vectors with up to twice the room
// they use; the report is built from the merged set, so the room goes first.
void ShrinkToFit(PartialSet& set) {
  set.sources.shrink_to_fit();
  set.kernels.shrink_to_fit();
  set.gpu_busy.shrink_to_fit();
  set.gpu_breakdown.devices.shrink_to_fit();
  set.gpu_breakdown.cpu_ops.shrink_to_fit();
  set.regions.shrink_to_fit();
  set.launch_sequences.shrink_to_fit();
  set.phases.names.shrink_to_fit();
  set.phases.ranges.shrink_to_fit();
  set.phases.digest.steps.shrink_to_fit();
}

}  // namespace

Result<PartialFile> ReadPartialFile(const fs::path& file) {
  // Parsed as it is read: a partial of many ranks is hundreds of MB.
  auto in = OpenRegularFileStream(file);
  if (!in.ok()) {
    return MakeError(ExitStatus::kInput,
                     fmt::format("{}: cannot read the partial result: {}", file.string(), in.error().message));
  }
  ASSIGN_OR_RETURN(PartialSet set, report::ReadPartialSetJsonFile(in->get(), file.string()));
  return PartialFile{file.string(), std::move(set)};
}

Result<PartialSet> MergePartials(std::vector<PartialFile> parts) {
  if (parts.empty()) return MakeError(ExitStatus::kUsage, "merge: no partial results");
  // Every part's job first, then its inputs, then its ranks: the first
  // refusal of each kind over all parts.
  PartialMerger::Checks checks;
  for (const PartialFile& p : parts) RETURN_IF_ERROR(checks.SameJob(p));
  for (const PartialFile& p : parts) RETURN_IF_ERROR(checks.InputsOnce(p));
  for (const PartialFile& p : parts) RETURN_IF_ERROR(checks.Ranks(p));
  PartialSet out = std::move(parts.front().set);
  out.merged_from = {parts.front().origin};
  for (std::size_t i = 1; i < parts.size(); ++i) {
    Append(out, parts[i].set, checks.index);
    out.merged_from.push_back(parts[i].origin);
  }
  SortAsOneImport(out);
  ShrinkToFit(out);
  return out;
}

PartialMerger::PartialMerger() : checks_(std::make_unique<Checks>()) {}
PartialMerger::~PartialMerger() = default;

Status PartialMerger::Add(PartialFile part) {
  if (refused_) return *refused_;
  Status checked = checks_->SameJob(part);
  if (checked.ok()) checked = checks_->InputsOnce(part);
  if (checked.ok()) checked = checks_->Ranks(part);
  if (!checked.ok()) {
    refused_ = checked.error();
    return checked;
  }
  if (!out_) {
    out_ = std::move(part.set);
    out_->merged_from = {part.origin};
    return OkStatus();
  }
  Append(*out_, part.set, checks_->index);
  out_->merged_from.push_back(std::move(part.origin));
  return OkStatus();
}

Result<PartialSet> PartialMerger::Finish() {
  if (refused_) return *refused_;
  if (!out_) return MakeError(ExitStatus::kUsage, "merge: no partial results");
  PartialSet out = std::move(*out_);
  out_.reset();
  SortAsOneImport(out);
  ShrinkToFit(out);
  return out;
}

void NoteMissingRanks(PartialSet& set) { NoteMissingRanks(set.gpu_breakdown, set.diagnostics); }

void NoteMissingRanks(const model::GpuBreakdown& breakdown, model::Diagnostics& diagnostics) {
  std::optional<std::int64_t> world;
  std::set<std::int64_t> ranks;
  for (const model::DeviceBreakdown& d : breakdown.devices) {
    if (d.rank) ranks.insert(*d.rank);
    if (d.world_size) world = world ? std::max(*world, *d.world_size) : *d.world_size;
  }
  if (!world) return;
  std::vector<std::int64_t> missing;
  for (std::int64_t r = 0; r < *world && missing.size() <= 1000; ++r) {
    if (!ranks.contains(r)) missing.push_back(r);
  }
  if (missing.empty()) return;
  diagnostics.Add(
      model::Diag::rank_missing,
      fmt::format("{} of the {} rank(s) of the job's world size are in no input: rank(s) {}{}",
                  missing.size() > 1000 ? "over 1000" : std::to_string(missing.size()), *world,
                  fmt::join(missing.begin(), missing.begin() + std::min<std::size_t>(missing.size(), 20), ", "),
                  missing.size() > 20 ? ", ..." : ""));
}

MergedCollection::MergedCollection(PartialSet set) : set_(std::move(set)) {
  std::vector<analysis::SourceRegions> sources;
  for (report::RegionInputPart& part : set_.regions) {
    auto builder = std::make_unique<analysis::RegionBuilder>(part.source, filter_, builder_diagnostics_);
    builder->Restore(part.caps, part.saw_nvtx, part.launches, part.outside, part.per_range, part.folded);
    for (report::RegionTreePart& tree : part.scopes) {
      analysis::RegionTree& into = builder->scopes()[tree.scope];
      // In their order, parents first: Ensure gives each its index again
      // and lists it among its parent's children, in the same order.
      for (analysis::Region& r : tree.regions) {
        analysis::Region& slot = into.Ensure(r);
        std::vector<std::size_t> children = std::move(slot.children);
        slot = std::move(r);
        slot.children = std::move(children);
      }
      into.caps = tree.caps;
    }
    part.scopes = {};  // moved into the builder
    sources.push_back({builder.get(), part.family});
    builders_.push_back(std::move(builder));
  }
  regions_ = analysis::CombineRegions(sources);
}

MergedCollection::~MergedCollection() = default;

report::Collected MergedCollection::Take() {
  report::Collected c;
  c.sources = std::move(set_.sources);
  c.kernels = std::move(set_.kernels);
  c.runtime = std::move(set_.runtime);
  c.gpu_busy = std::move(set_.gpu_busy);
  c.gpu_breakdown = std::move(set_.gpu_breakdown);
  c.timeline = std::move(set_.timeline);
  c.regions = &regions_;
  c.unused_kernel_patterns = std::move(set_.unused_kernel_patterns);
  c.diagnostics = std::move(set_.diagnostics);
  c.region_diagnostics = std::move(set_.region_diagnostics);
  c.launch_sequences = std::move(set_.launch_sequences);
  c.phases = std::move(set_.phases);
  return c;
}

}  // namespace llmpo::pipeline
