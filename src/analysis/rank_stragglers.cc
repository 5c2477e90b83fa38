#include "src/analysis/rank_stragglers.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <set>

#include "src/analysis/median.h"

namespace llmpo::analysis {
namespace {

// Per region path, per rank: the GPU total and CPU time, devices added.
struct PerRank {
  std::optional<double> total, cpu;
  std::optional<double> communication;        // ProfilerStep#N only
  std::optional<std::int64_t> start_unix_ns;  // top-level regions and steps: the earliest start, Unix ns
};
using Table = std::map<std::vector<std::string>, std::map<std::int64_t, PerRank>>;

void AddKnown(std::optional<double>& into, const std::optional<double>& v) {
  if (v) into = into.value_or(0) + *v;
}

void EarliestKnown(std::optional<std::int64_t>& into, const std::optional<std::int64_t>& t) {
  if (t) into = std::min(into.value_or(*t), *t);
}

// Steps of folded numbered regions, per (number, step label).
using StepTable = std::map<std::pair<std::int64_t, std::string>, std::map<std::int64_t, PerRank>>;

// "step N" with 12 for N: the suffix rule put the N where the number was.
std::string NumberedLabel(const std::string& label, std::int64_t n) {
  const std::size_t at = label.rfind('N');
  if (at == std::string::npos) return fmt::format("{}#{}", label, n);
  return label.substr(0, at) + std::to_string(n) + label.substr(at + 1);
}

void CollectNumbered(const Region& r, std::int64_t rank, StepTable& steps) {
  if (r.parent) return;
  r.number_gpu_ns.ForEach([&](std::int64_t n, double ns) {
    AddKnown(steps[{n, NumberedLabel(r.label, n)}][rank].total, ns);
  });
  r.number_cpu_ns.ForEach([&](std::int64_t n, double ns) {
    AddKnown(steps[{n, NumberedLabel(r.label, n)}][rank].cpu, ns);
  });
  r.number_start_unix_ns.ForEach([&](std::int64_t n, std::int64_t t) {
    EarliestKnown(steps[{n, NumberedLabel(r.label, n)}][rank].start_unix_ns, t);
  });
}

// Kineto's ProfilerStep#N per rank from the GPU breakdown: its CPU wall time,
// and the GPU time of the kernels launched while it ran from any thread of
// the process (a step's backward kernels come from autograd's threads). A
// rank's steps are repeated on each of its devices: taken once.
void CollectProfilerSteps(const model::GpuBreakdown* breakdown, StepTable& steps, std::set<std::string>& hosts) {
  if (breakdown == nullptr) return;
  std::set<std::int64_t> seen;
  for (const model::DeviceBreakdown& d : breakdown->devices) {
    if (!d.rank || !seen.insert(*d.rank).second) continue;
    hosts.insert(d.process.host);
    for (const model::StepTimes& t : d.steps) {
      PerRank& cell = steps[{t.step, fmt::format("ProfilerStep#{}", t.step)}][*d.rank];
      AddKnown(cell.total, t.gpu_kernel_ns);
      AddKnown(cell.cpu, t.cpu_ns);
      AddKnown(cell.communication, t.communication_kernel_ns);
      EarliestKnown(cell.start_unix_ns, t.start_unix_ns);
    }
  }
}

void AddOnce(std::vector<std::string>& list, const std::string& item) {
  if (!item.empty() && std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

std::string ProcessText(model::ProcessId p) {
  p.rank.reset();
  p.host.clear();  // a column of its own
  return p.Known() ? p.Label() : "";
}

// Every ranked scope's and ranked GPU breakdown device's identity, by rank.
std::vector<RankWho> Identities(const CombinedRegions& regions, const model::GpuBreakdown* breakdown) {
  std::map<std::int64_t, RankWho> by_rank;
  const auto note = [&](const model::ProcessId& p, const std::string& device) -> RankWho& {
    RankWho& who = by_rank[*p.rank];
    who.rank = *p.rank;
    AddOnce(who.hosts, p.host);
    AddOnce(who.processes, ProcessText(p));
    AddOnce(who.devices, device);
    return who;
  };
  for (const auto& [scope, tree] : regions.scopes) {
    if (!scope.process.rank) continue;
    RankWho& who = note(scope.process, scope.device);
    for (const Region& r : tree.regions()) {
      if (r.parent) continue;
      for (const std::string& input : r.inputs) AddOnce(who.inputs, input);
    }
  }
  if (breakdown != nullptr) {
    for (const model::DeviceBreakdown& d : breakdown->devices) {
      if (!d.rank) continue;
      model::ProcessId p = d.process;
      p.rank = d.rank;
      RankWho& who = note(p, d.device);
      AddOnce(who.inputs, d.source);
      if (!who.world_size) who.world_size = d.world_size;
    }
  }
  std::vector<RankWho> out;
  for (auto& [rank, who] : by_rank) out.push_back(std::move(who));
  return out;
}

Table Collect(const CombinedRegions& regions, std::set<std::int64_t>& ranks, StepTable& steps,
              std::set<std::string>& hosts) {
  Table table;
  for (const auto& [scope, tree] : regions.scopes) {
    if (!scope.process.rank) continue;
    const std::int64_t rank = *scope.process.rank;
    ranks.insert(rank);
    hosts.insert(scope.process.host);
    for (const Region& r : tree.regions()) {
      PerRank& cell = table[r.path][rank];
      AddKnown(cell.total, r.total_ns);
      AddKnown(cell.cpu, r.cpu_ns);
      if (!r.parent) EarliestKnown(cell.start_unix_ns, r.start_unix_ns);
      CollectNumbered(r, rank, steps);
    }
  }
  return table;
}

// Per rank, its communication time and the excess over the rank with the
// least; empty unless two ranks communicated.
std::vector<RankCollectives> BeyondLeast(const std::map<std::int64_t, double>& per_rank) {
  std::vector<RankCollectives> out;
  const auto communicating =
      std::count_if(per_rank.begin(), per_rank.end(), [](const auto& p) { return p.second > 0; });
  if (communicating < 2) return out;
  double least = per_rank.begin()->second;
  for (const auto& [rank, ns] : per_rank) least = std::min(least, ns);
  for (const auto& [rank, ns] : per_rank) out.push_back({rank, ns, ns - least});
  return out;
}

std::optional<StragglerRow> RowFor(const std::string& region, const std::map<std::int64_t, PerRank>& cells,
                                   bool per_rank) {
  if (cells.size() < 2) return std::nullopt;
  // GPU time compares ranks only where some rank ran GPU work in the region:
  // a region of none (a CPU-side collective, say) is compared by CPU time.
  const bool gpu = std::all_of(cells.begin(), cells.end(), [](const auto& c) { return c.second.total.has_value(); }) &&
                   std::any_of(cells.begin(), cells.end(), [](const auto& c) { return *c.second.total > 0; });
  const bool cpu = std::all_of(cells.begin(), cells.end(), [](const auto& c) { return c.second.cpu.has_value(); });
  if (!gpu && !cpu) return std::nullopt;
  StragglerRow row;
  row.region = region;
  row.quantity = gpu ? "total" : "cpu";
  row.ranks = static_cast<int>(cells.size());
  std::vector<double> values;
  bool first = true;
  for (const auto& [rank, cell] : cells) {
    const double v = gpu ? *cell.total : *cell.cpu;
    values.push_back(v);
    if (per_rank) row.per_rank_ns.emplace_back(rank, v);
    if (first || v > row.slowest_ns) row.slowest_ns = v, row.slowest_rank = rank;
    if (first || v < row.fastest_ns) row.fastest_ns = v, row.fastest_rank = rank;
    first = false;
  }
  if (per_rank && std::all_of(cells.begin(), cells.end(), [](const auto& c) { return c.second.communication; })) {
    std::map<std::int64_t, double> communication;
    for (const auto& [rank, cell] : cells) communication[rank] = *cell.communication;
    row.collectives = BeyondLeast(communication);
  }
  row.median_ns = *Median(values);
  row.excess_ns = row.slowest_ns - row.median_ns;
  if (row.median_ns > 0) row.excess_pct = 100.0 * row.excess_ns / row.median_ns;
  return row;
}

// When each rank began the step against the first; none unless two ranks
// ran it and every one's start is known.
std::optional<LateStart> LateStartFor(const std::string& step, const std::map<std::int64_t, PerRank>& cells) {
  if (cells.size() < 2 ||
      !std::all_of(cells.begin(), cells.end(), [](const auto& c) { return c.second.start_unix_ns.has_value(); })) {
    return std::nullopt;
  }
  LateStart late;
  late.step = step;
  late.ranks = static_cast<int>(cells.size());
  std::int64_t first = 0, latest = 0;
  bool any = false;
  for (const auto& [rank, cell] : cells) {
    const std::int64_t t = *cell.start_unix_ns;
    if (!any || t < first) first = t, late.first_rank = rank;
    if (!any || t > latest) latest = t, late.latest_rank = rank;
    any = true;
  }
  // Differences of integer ns first: Unix ns as a double would keep only
  // 256 ns steps.
  for (const auto& [rank, cell] : cells)
    late.after_first_ns.emplace_back(rank, static_cast<double>(*cell.start_unix_ns - first));
  late.latest_after_first_ns = static_cast<double>(latest - first);
  return late;
}

struct StepRow {
  std::int64_t number = 0;
  StragglerRow row;
  std::optional<LateStart> late;
};

}  // namespace

std::string_view ToString(StartClock c) { return c == StartClock::kOneHost ? "one_host" : "host_clocks"; }

std::optional<std::int64_t> StepNumber(const std::string& name) {
  std::string_view rest = name;
  std::string lower(name.size(), ' ');
  std::transform(name.begin(), name.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  std::size_t skip = 0;
  if (lower.starts_with("profilerstep#")) {
    skip = 13;
  } else if (lower.starts_with("step")) {
    skip = 4;
    if (lower.size() > 4 && (lower[4] == ' ' || lower[4] == '_' || lower[4] == '#')) skip = 5;
  } else {
    return std::nullopt;
  }
  rest.remove_prefix(skip);
  std::int64_t n = 0;
  const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), n);
  if (ec != std::errc() || end != rest.data() + rest.size() || rest.empty()) return std::nullopt;
  return n;
}

Stragglers FindStragglers(const CombinedRegions& regions, const model::GpuBreakdown* breakdown, std::size_t top) {
  Stragglers out;
  std::set<std::int64_t> ranks;
  StepTable numbered;
  std::set<std::string> hosts;
  const Table table = Collect(regions, ranks, numbered, hosts);
  CollectProfilerSteps(breakdown, numbered, hosts);
  out.ranks = static_cast<int>(ranks.size());
  if (out.ranks < 2) return out;
  out.start_clock = hosts.size() == 1 && !hosts.begin()->empty() ? StartClock::kOneHost : StartClock::kHostClocks;
  std::vector<StepRow> steps;
  for (const auto& [path, cells] : table) {
    const std::string& label = path.back();  // "DOMAIN@name" outside the default domain
    const auto step = StepNumber(label.substr(label.find('@') == std::string::npos ? 0 : label.find('@') + 1));
    const bool is_step = step && path.size() == 1;
    auto row = RowFor(fmt::format("{}", fmt::join(path, " > ")), cells, is_step);
    if (!row) continue;
    if (is_step) {
      std::optional<LateStart> late = LateStartFor(row->region, cells);
      steps.push_back({*step, std::move(*row), std::move(late)});
    } else {
      out.regions.push_back(std::move(*row));
    }
  }
  for (const auto& [key, cells] : numbered) {
    if (auto row = RowFor(key.second, cells, true))
      steps.push_back({key.first, std::move(*row), LateStartFor(key.second, cells)});
  }
  std::stable_sort(steps.begin(), steps.end(), [](const auto& a, const auto& b) { return a.number < b.number; });
  if (steps.size() > kMaxStepRows) {
    out.steps_omitted = steps.size() - kMaxStepRows;
    steps.resize(kMaxStepRows);
  }
  for (StepRow& s : steps) {
    out.steps.push_back(std::move(s.row));
    if (s.late) out.late_starts.push_back(std::move(*s.late));
  }
  std::stable_sort(out.regions.begin(), out.regions.end(),
                   [](const StragglerRow& a, const StragglerRow& b) { return a.excess_ns > b.excess_ns; });
  if (out.regions.size() > top) out.regions.resize(top);
  if (breakdown != nullptr) out.collectives = CollectiveWait(*breakdown);
  out.who = Identities(regions, breakdown);
  return out;
}

void AddLauncherRanks(Stragglers& s, const std::vector<RankWho>& launched) {
  for (const RankWho& l : launched) {
    auto it = std::lower_bound(s.who.begin(), s.who.end(), l.rank,
                               [](const RankWho& w, std::int64_t rank) { return w.rank < rank; });
    if (it == s.who.end() || it->rank != l.rank) {
      RankWho fresh;
      fresh.rank = l.rank;
      it = s.who.insert(it, std::move(fresh));
    }
    for (const std::string& host : l.hosts) AddOnce(it->hosts, host);
    if (!it->world_size) it->world_size = l.world_size;
    it->local_rank = l.local_rank;
    it->node = l.node;
    it->visible_devices = l.visible_devices;
    it->ended = l.ended;
  }
}

std::optional<StepWait> LongestWait(const StragglerRow& step) {
  const auto& c = step.collectives;
  if (c.empty()) return std::nullopt;
  const auto most = std::max_element(
      c.begin(), c.end(), [](const auto& a, const auto& b) { return a.beyond_least_ns < b.beyond_least_ns; });
  const auto least = std::min_element(
      c.begin(), c.end(), [](const auto& a, const auto& b) { return a.communication_ns < b.communication_ns; });
  return StepWait{*most, *least};
}

std::vector<RankCollectives> CollectiveWait(const model::GpuBreakdown& breakdown) {
  std::map<std::int64_t, double> per_rank;
  for (const model::DeviceBreakdown& d : breakdown.devices) {
    if (d.rank) per_rank[*d.rank] += d.classes.communication_ns;
  }
  return BeyondLeast(per_rank);
}

}  // namespace llmpo::analysis
