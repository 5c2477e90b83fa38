// The rank x step heatmap's bounded grid (src/report/heatmap_grid.h) and the
// page section drawn from it (src/report/stragglers_report.h).
#include "src/report/heatmap_grid.h"

#include <gtest/gtest.h>

#include <string>

#include "src/report/stragglers_report.h"

namespace llmpo::report {
namespace {

// `ranks` ranks and `steps` steps, every rank at 10 ms but rank `slow_rank`,
// which takes 25 ms in step `slow_step` (the median stays 10 ms).
analysis::Stragglers Uniform(int ranks, std::size_t steps, std::int64_t slow_rank, std::size_t slow_step) {
  analysis::Stragglers s;
  s.ranks = ranks;
  for (std::size_t i = 0; i < steps; ++i) {
    analysis::StragglerRow row;
    row.region = "ProfilerStep#" + std::to_string(i);
    row.quantity = "total";
    row.median_ns = 10e6;
    for (int r = 0; r < ranks; ++r) {
      const bool slow = r == slow_rank && i == slow_step;
      row.per_rank_ns.emplace_back(r, slow ? 25e6 : 10e6);
    }
    s.steps.push_back(std::move(row));
  }
  return s;
}

std::size_t Count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

TEST(HeatmapGrid, SmallJobsKeepOneCellPerRankAndStep) {
  const HeatmapGrid grid = BinRankSteps(Uniform(4, 10, 2, 3));
  EXPECT_EQ(grid.rows.size(), 4U);
  EXPECT_EQ(grid.columns, 10U);
  EXPECT_EQ(grid.ranks_per_row, 1U);
  EXPECT_EQ(grid.steps_per_column, 1U);
  const HeatmapCell& slow = grid.rows[2].cells[3];
  EXPECT_TRUE(slow.present);
  EXPECT_EQ(slow.rank, 2);
  EXPECT_EQ(slow.step, 3U);
  EXPECT_DOUBLE_EQ(slow.ns, 25e6);
}

TEST(HeatmapGrid, ManyStepsShareColumnsAndTheStragglerShows) {
  // 256 ranks x 445 steps: 64 columns fit 16,384 cells; 7 steps a column.
  const HeatmapGrid grid = BinRankSteps(Uniform(256, 445, 200, 300));
  EXPECT_EQ(grid.rows.size(), 256U);
  EXPECT_EQ(grid.steps_per_column, 7U);
  EXPECT_EQ(grid.columns, 64U);
  EXPECT_LE(grid.rows.size() * grid.columns, kHeatmapMaxCells);
  const HeatmapCell& cell = grid.rows[200].cells[300 / 7];
  EXPECT_EQ(cell.rank, 200);
  EXPECT_EQ(cell.step, 300U);
  // A cell without the straggler shows its first rank and step (a tie).
  EXPECT_EQ(grid.rows[5].cells[1].step, 7U);
  EXPECT_EQ(grid.rows[5].cells[1].rank, 5);
}

TEST(HeatmapGrid, ManyRanksShareRowsAndTheStragglerShows) {
  const HeatmapGrid grid = BinRankSteps(Uniform(1100, 20, 1037, 11), 512, 16384);
  EXPECT_EQ(grid.ranks_per_row, 3U);
  EXPECT_EQ(grid.rows.size(), 367U);
  EXPECT_EQ(grid.rows[345].first_rank, 1035);
  EXPECT_EQ(grid.rows[345].last_rank, 1037);
  EXPECT_EQ(grid.rows.back().first_rank, 1098);
  EXPECT_EQ(grid.rows.back().last_rank, 1099);
  EXPECT_EQ(grid.columns, 20U);  // 367 x 20 fits
  EXPECT_EQ(grid.rows[345].cells[11].rank, 1037);
}

TEST(HeatmapGrid, AStepARankDidNotRunLeavesNoCell) {
  analysis::Stragglers s = Uniform(3, 2, 0, 0);
  s.steps[1].per_rank_ns.erase(s.steps[1].per_rank_ns.begin() + 1);  // rank 1 missed step 1
  const HeatmapGrid grid = BinRankSteps(s);
  EXPECT_TRUE(grid.rows[1].cells[0].present);
  EXPECT_FALSE(grid.rows[1].cells[1].present);
}

TEST(StragglersHtml, ThePageOfManyRanksAndStepsIsBounded) {
  const std::string page = StragglersHtml(Uniform(1024, 1000, 777, 555));
  EXPECT_LE(Count(page, "<rect class=\"cell\""), kHeatmapMaxCells);
  EXPECT_GE(Count(page, "<rect class=\"cell\""), kHeatmapMaxCells / 2);
  EXPECT_LT(page.size(), 8U << 20);
  EXPECT_NE(page.find("data-rank=\"777\" data-step=\"ProfilerStep#555\" data-ms=\"25.000000\""), std::string::npos);
  EXPECT_NE(page.find("a row holds 2 ranks and a column holds 32 steps"), std::string::npos);
}

TEST(StragglersHtml, OnlyStepsShareCellsBelow512Ranks) {
  const std::string page = StragglersHtml(Uniform(256, 445, 3, 4));
  EXPECT_NE(page.find("To keep the page small a column holds 7 steps;"), std::string::npos);
  EXPECT_NE(page.find("<text x=\"0\" y=\"11.0\" font-size=\"11\">rank 0</text>"), std::string::npos);
}

TEST(StragglersHtml, ASmallJobSaysNothingAboutSharedCells) {
  const std::string page = StragglersHtml(Uniform(2, 3, 1, 1));
  EXPECT_EQ(Count(page, "<rect class=\"cell\""), 6U);
  EXPECT_EQ(page.find("a row holds"), std::string::npos);
  EXPECT_EQ(page.find("the most over its step's median"), std::string::npos);
}

// Uniform's job with an identity per rank, rank r on host "node{r / 8}".
analysis::Stragglers WithIdentities(int ranks, std::size_t steps, std::int64_t slow_rank, std::size_t slow_step) {
  analysis::Stragglers s = Uniform(ranks, steps, slow_rank, slow_step);
  for (int r = 0; r < ranks; ++r) {
    analysis::RankWho who;
    who.rank = r;
    who.hosts = {"node" + std::to_string(r / 8)};
    s.who.push_back(std::move(who));
  }
  for (auto& row : s.steps) {
    row.slowest_rank = slow_rank;
    row.fastest_rank = ranks - 1;
  }
  return s;
}

TEST(StragglersRanks, EveryRankUpTo64ThenThoseTheTablesName) {
  const analysis::Stragglers few = WithIdentities(64, 3, 5, 1);
  EXPECT_EQ(WhoShown(few).size(), 64U);
  EXPECT_NE(StragglersMarkdown(few).find("| 63 | node7 | ? | ? | ? | ? |"), std::string::npos);
  analysis::Stragglers many = WithIdentities(1024, 3, 700, 1);
  analysis::LateStart late;
  late.first_rank = 3;
  late.latest_rank = 900;
  many.late_starts.push_back(late);
  std::vector<std::int64_t> shown;
  for (const auto* w : WhoShown(many)) shown.push_back(w->rank);
  EXPECT_EQ(shown, (std::vector<std::int64_t>{3, 700, 900, 1023}));
  const std::string md = StragglersMarkdown(many);
  EXPECT_NE(md.find("| 700 | node87 | "), std::string::npos);
  EXPECT_NE(md.find("4 of 1024 ranks, those the tables above name"), std::string::npos);
  const std::string page = StragglersHtml(many);
  EXPECT_NE(page.find("<tr><td class=\"num\">900</td><td>node112</td>"), std::string::npos);
  EXPECT_NE(page.find("4 of 1024 ranks, those the tables name"), std::string::npos);
}

TEST(StragglersRanks, LauncherRecordsJoinByRankAndAddRanksWithoutInputs) {
  analysis::Stragglers s = WithIdentities(3, 1, 0, 0);
  s.who.erase(s.who.begin() + 1);  // rank 1 left no trace
  s.who[0].world_size = 3;
  std::vector<analysis::RankWho> launched(3);
  for (int r = 0; r < 3; ++r) {
    launched[r].rank = r;
    launched[r].hosts = {"node0"};
    launched[r].world_size = 4;  // the inputs' word stands where they gave one
    launched[r].local_rank = r;
    launched[r].node = "n1";
    launched[r].ended = r == 1 ? "exit 3" : "exit 0";
  }
  analysis::AddLauncherRanks(s, launched);
  ASSERT_EQ(s.who.size(), 3U);
  EXPECT_EQ(s.who[1].rank, 1);
  EXPECT_EQ(s.who[1].hosts, std::vector<std::string>{"node0"});
  EXPECT_EQ(s.who[1].ended, "exit 3");
  EXPECT_EQ(s.who[0].world_size, 3);
  EXPECT_EQ(s.who[2].world_size, 4);
  EXPECT_EQ(s.who[2].local_rank, 2);
  const std::string md = StragglersMarkdown(s);
  EXPECT_NE(md.find("| 1 | node0 | n1 | 1 | ? | ? | unset | 4 | exit 3 | ? |"), std::string::npos) << md;
}

}  // namespace
}  // namespace llmpo::report
