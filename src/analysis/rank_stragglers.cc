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
};
using Table = std::map<std::vector<std::string>, std::map<std::int64_t, PerRank>>;

void AddKnown(std::optional<double>& into, const std::optional<double>& v) {
  if (v) into = into.value_or(0) + *v;
}

Table Collect(const CombinedRegions& regions, std::set<std::int64_t>& ranks) {
  Table table;
  for (const auto& [scope, tree] : regions.scopes) {
    if (!scope.process.rank) continue;
    ranks.insert(*scope.process.rank);
    for (const Region& r : tree.regions()) {
      PerRank& cell = table[r.path][*scope.process.rank];
      AddKnown(cell.total, r.total_ns);
      AddKnown(cell.cpu, r.cpu_ns);
    }
  }
  return table;
}

std::optional<StragglerRow> RowFor(const std::vector<std::string>& path, const std::map<std::int64_t, PerRank>& cells) {
  if (cells.size() < 2) return std::nullopt;
  const bool gpu = std::all_of(cells.begin(), cells.end(), [](const auto& c) { return c.second.total.has_value(); });
  const bool cpu = std::all_of(cells.begin(), cells.end(), [](const auto& c) { return c.second.cpu.has_value(); });
  if (!gpu && !cpu) return std::nullopt;
  StragglerRow row;
  row.region = fmt::format("{}", fmt::join(path, " > "));
  row.quantity = gpu ? "total" : "cpu";
  row.ranks = static_cast<int>(cells.size());
  std::vector<double> values;
  bool first = true;
  for (const auto& [rank, cell] : cells) {
    const double v = gpu ? *cell.total : *cell.cpu;
    values.push_back(v);
    if (first || v > row.slowest_ns) row.slowest_ns = v, row.slowest_rank = rank;
    if (first || v < row.fastest_ns) row.fastest_ns = v, row.fastest_rank = rank;
    first = false;
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

Stragglers FindStragglers(const CombinedRegions& regions, std::size_t top) {
  Stragglers out;
  std::set<std::int64_t> ranks;
  const Table table = Collect(regions, ranks);
  out.ranks = static_cast<int>(ranks.size());
  if (out.ranks < 2) return out;
  std::vector<std::pair<std::int64_t, StragglerRow>> steps;
  for (const auto& [path, cells] : table) {
    auto row = RowFor(path, cells);
    if (!row) continue;
    const std::string& label = path.back();  // "DOMAIN@name" outside the default domain
    const auto step = StepNumber(label.substr(label.find('@') == std::string::npos ? 0 : label.find('@') + 1));
    if (step && path.size() == 1) {
      steps.emplace_back(*step, std::move(*row));
    } else {
      out.regions.push_back(std::move(*row));
    }
  }
  std::stable_sort(steps.begin(), steps.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [n, row] : steps) out.steps.push_back(std::move(row));
  std::stable_sort(out.regions.begin(), out.regions.end(),
                   [](const StragglerRow& a, const StragglerRow& b) { return a.excess_ns > b.excess_ns; });
  if (out.regions.size() > top) out.regions.resize(top);
  return out;
}

}  // namespace llmpo::analysis
