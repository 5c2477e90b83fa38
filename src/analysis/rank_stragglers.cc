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
  std::optional<double> communication;  // ProfilerStep#N only
};
using Table = std::map<std::vector<std::string>, std::map<std::int64_t, PerRank>>;

void AddKnown(std::optional<double>& into, const std::optional<double>& v) {
  if (v) into = into.value_or(0) + *v;
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
}

// Kineto's ProfilerStep#N per rank from the GPU breakdown: its CPU wall time,
// and the GPU time of the kernels launched while it ran from any thread of
// the process (a step's backward kernels come from autograd's threads). A
// rank's steps are repeated on each of its devices: taken once.
void CollectProfilerSteps(const model::GpuBreakdown* breakdown, StepTable& steps) {
  if (breakdown == nullptr) return;
  std::set<std::int64_t> seen;
  for (const model::DeviceBreakdown& d : breakdown->devices) {
    if (!d.rank || !seen.insert(*d.rank).second) continue;
    for (const model::StepTimes& t : d.steps) {
      PerRank& cell = steps[{t.step, fmt::format("ProfilerStep#{}", t.step)}][*d.rank];
      AddKnown(cell.total, t.gpu_kernel_ns);
      AddKnown(cell.cpu, t.cpu_ns);
      AddKnown(cell.communication, t.communication_kernel_ns);
    }
  }
}

Table Collect(const CombinedRegions& regions, std::set<std::int64_t>& ranks, StepTable& steps) {
  Table table;
  for (const auto& [scope, tree] : regions.scopes) {
    if (!scope.process.rank) continue;
    const std::int64_t rank = *scope.process.rank;
    ranks.insert(rank);
    for (const Region& r : tree.regions()) {
      PerRank& cell = table[r.path][rank];
      AddKnown(cell.total, r.total_ns);
      AddKnown(cell.cpu, r.cpu_ns);
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

}  // namespace

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
  const Table table = Collect(regions, ranks, numbered);
  CollectProfilerSteps(breakdown, numbered);
  out.ranks = static_cast<int>(ranks.size());
  if (out.ranks < 2) return out;
  std::vector<std::pair<std::int64_t, StragglerRow>> steps;
  for (const auto& [path, cells] : table) {
    const std::string& label = path.back();  // "DOMAIN@name" outside the default domain
    const auto step = StepNumber(label.substr(label.find('@') == std::string::npos ? 0 : label.find('@') + 1));
    const bool is_step = step && path.size() == 1;
    auto row = RowFor(fmt::format("{}", fmt::join(path, " > ")), cells, is_step);
    if (!row) continue;
    if (is_step) {
      steps.emplace_back(*step, std::move(*row));
    } else {
      out.regions.push_back(std::move(*row));
    }
  }
  for (const auto& [key, cells] : numbered) {
    if (auto row = RowFor(key.second, cells, true)) steps.emplace_back(key.first, std::move(*row));
  }
  std::stable_sort(steps.begin(), steps.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  if (steps.size() > kMaxStepRows) {
    out.steps_omitted = steps.size() - kMaxStepRows;
    steps.resize(kMaxStepRows);
  }
  for (auto& [n, row] : steps) out.steps.push_back(std::move(row));
  std::stable_sort(out.regions.begin(), out.regions.end(),
                   [](const StragglerRow& a, const StragglerRow& b) { return a.excess_ns > b.excess_ns; });
  if (out.regions.size() > top) out.regions.resize(top);
  if (breakdown != nullptr) out.collectives = CollectiveWait(*breakdown);
  return out;
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
