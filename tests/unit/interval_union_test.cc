// IntervalUnion: the one busy-time union behind GpuTimeline and the HTML
// timeline. Expected totals are worked out by hand in each comment.
#include "src/analysis/interval_union.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace llmpo::analysis {
namespace {

TEST(IntervalUnion, EmptyIsZero) {
  IntervalUnion u;
  ASSERT_TRUE(u.TotalNs().has_value());
  EXPECT_EQ(*u.TotalNs(), 0.0);
}

TEST(IntervalUnion, OverlapsCountOnceAndGapsNotAtAll) {
  IntervalUnion u;
  u.Add(0, 10);   // [0,10)
  u.Add(5, 15);   // extends to [0,15)
  u.Add(15, 20);  // touches: [0,20)
  u.Add(30, 40);  // gap 20..30
  u.Add(32, 35);  // inside
  EXPECT_EQ(*u.TotalNs(), 30.0);  // 20 + 10
}

TEST(IntervalUnion, OutOfOrderWithinTheWindowIsExact) {
  IntervalUnion u;
  u.Add(100, 110);
  u.Add(0, 10);    // before everything: its own segment
  u.Add(8, 105);   // bridges both: [0,110)
  u.Add(200, 210);
  u.Add(50, 60);   // inside [0,110)
  EXPECT_EQ(*u.TotalNs(), 120.0);
}

TEST(IntervalUnion, FoldedSegmentsKeepTheirLengthAndMemoryStaysBounded) {
  IntervalUnion u;
  const std::int64_t n = static_cast<std::int64_t>(IntervalUnion::kMaxSegments) + 1000;
  for (std::int64_t i = 0; i < n; ++i) u.Add(10 * i, 10 * i + 4);  // disjoint, 4 ns each
  ASSERT_TRUE(u.TotalNs().has_value());
  EXPECT_EQ(*u.TotalNs(), 4.0 * static_cast<double>(n));
}

TEST(IntervalUnion, AStartBeforeTheFoldedPartMakesTheTotalUnknown) {
  IntervalUnion u;
  const std::int64_t n = static_cast<std::int64_t>(IntervalUnion::kMaxSegments) + 10;
  for (std::int64_t i = 0; i < n; ++i) u.Add(10 * i, 10 * i + 4);
  u.Add(1, 3);  // lies in the first, folded segment: could overlap unseen
  EXPECT_TRUE(u.out_of_order());
  EXPECT_FALSE(u.TotalNs().has_value());
  u.Add(10 * n, 10 * n + 4);  // stays unknown
  EXPECT_FALSE(u.TotalNs().has_value());
}

TEST(IntervalUnion, ExtremeTimesGiveTheirExactLengthWithoutOverflow) {
  // A hostile trace's times span the whole int64 range: the length is
  // 2^64 - 1 ns, which end - start in int64 could not hold.
  IntervalUnion u;
  u.Add(INT64_MIN, INT64_MAX);
  EXPECT_DOUBLE_EQ(*u.TotalNs(), 18446744073709551615.0);
}

// Several times kMaxSegments intervals, each a little out of order within
// the window (and some merging with their neighbours): the folds and the
// queue's compactions give the exact union that sorting all of them does.
TEST(IntervalUnion, ManyFoldsGiveTheExactUnion) {
  IntervalUnion u;
  std::vector<std::pair<std::int64_t, std::int64_t>> all;
  const std::int64_t n = 3 * static_cast<std::int64_t>(IntervalUnion::kMaxSegments) + 777;
  for (std::int64_t i = 0; i < n; ++i) {
    // Pairs swapped (i odd comes first), every seventh reaching into the next one.
    const std::int64_t slot = (i % 2 == 0) ? i + 1 : i - 1;
    const std::int64_t start = slot * 100, end = start + (i % 7 == 0 ? 130 : 40 + i % 50);
    u.Add(start, end);
    all.emplace_back(start, end);
  }
  std::sort(all.begin(), all.end());
  double exact = 0;
  std::int64_t open = all.front().first, close = all.front().second;
  for (const auto& [s, e] : all) {
    if (s > close) {
      exact += static_cast<double>(close - open);
      open = s;
    }
    close = std::max(close, e);
  }
  exact += static_cast<double>(close - open);
  ASSERT_TRUE(u.TotalNs().has_value());
  EXPECT_EQ(*u.TotalNs(), exact);
}

}  // namespace
}  // namespace llmpo::analysis
