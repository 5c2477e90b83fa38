#include "src/report/heatmap_grid.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace llmpo::report {
namespace {

std::size_t CeilDiv(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// How far a value is above its step's median, as a share of it; a step
// with no median (0) ranks below every other.
double Over(double ns, double median_ns) {
  return median_ns > 0 ? (ns - median_ns) / median_ns : -std::numeric_limits<double>::infinity();
}

std::vector<std::int64_t> RanksOf(const analysis::Stragglers& s) {
  std::vector<std::int64_t> ranks;
  for (const auto& step : s.steps) {
    for (const auto& [rank, ns] : step.per_rank_ns) ranks.push_back(rank);
  }
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

}  // namespace

HeatmapGrid BinRankSteps(const analysis::Stragglers& s, std::size_t max_rows, std::size_t max_cells) {
  HeatmapGrid grid;
  const std::vector<std::int64_t> ranks = RanksOf(s);
  grid.ranks = ranks.size();
  if (ranks.empty() || s.steps.empty()) return grid;
  grid.ranks_per_row = CeilDiv(ranks.size(), std::max<std::size_t>(max_rows, 1));
  const std::size_t rows = CeilDiv(ranks.size(), grid.ranks_per_row);
  const std::size_t max_columns = std::max<std::size_t>(max_cells / rows, 1);
  grid.steps_per_column = CeilDiv(s.steps.size(), max_columns);
  grid.columns = CeilDiv(s.steps.size(), grid.steps_per_column);

  std::unordered_map<std::int64_t, std::size_t> row_of;
  row_of.reserve(ranks.size());
  grid.rows.resize(rows);
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    HeatmapRow& row = grid.rows[i / grid.ranks_per_row];
    if (i % grid.ranks_per_row == 0) row.first_rank = ranks[i];
    row.last_rank = ranks[i];
    row_of.emplace(ranks[i], i / grid.ranks_per_row);
  }
  for (HeatmapRow& row : grid.rows) row.cells.resize(grid.columns);

  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    const auto& step = s.steps[i];
    const std::size_t column = i / grid.steps_per_column;
    for (const auto& [rank, ns] : step.per_rank_ns) {
      HeatmapCell& cell = grid.rows[row_of.at(rank)].cells[column];
      // Strictly greater: on a tie the first met stays (earlier step, then lower rank).
      if (cell.present && Over(ns, step.median_ns) <= Over(cell.ns, cell.median_ns)) continue;
      cell = {true, rank, i, ns, step.median_ns};
    }
  }
  return grid;
}

}  // namespace llmpo::report
