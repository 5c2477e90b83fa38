// The rank x step heatmap's cells, bounded. Up to `max_rows` ranks each have
// a row and, while rows x steps stays within `max_cells`, each step has a
// column. Past that, consecutive ranks share a row and consecutive steps a
// column, and a cell shows the rank and step in it whose time is furthest
// above its step's median rank: binning never hides a straggler. A page of
// 1,024 ranks and 1,000 steps keeps the cells within `max_cells`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "src/analysis/rank_stragglers.h"

namespace llmpo::report {

struct HeatmapCell {
  bool present = false;  // false: no rank of the row ran a step of the column
  std::int64_t rank = 0;
  std::size_t step = 0;  // index into Stragglers::steps
  double ns = 0;         // the rank's value in the step
  double median_ns = 0;  // the step's median rank
};

struct HeatmapRow {
  std::int64_t first_rank = 0, last_rank = 0;  // equal unless ranks share the row
  std::vector<HeatmapCell> cells;              // one per column
};

struct HeatmapGrid {
  std::vector<HeatmapRow> rows;
  std::size_t ranks = 0;             // ranks with a value in some step
  std::size_t steps_per_column = 1;  // the last column may hold fewer
  std::size_t ranks_per_row = 1;     // the last row may hold fewer
  std::size_t columns = 0;
};

inline constexpr std::size_t kHeatmapMaxRows = 512;
inline constexpr std::size_t kHeatmapMaxCells = 16384;

HeatmapGrid BinRankSteps(const analysis::Stragglers& s, std::size_t max_rows = kHeatmapMaxRows,
                         std::size_t max_cells = kHeatmapMaxCells);

}  // namespace llmpo::report
