// TimedKernelList (analysis/phase_kernels.h) gives back every kernel as it
// was pushed, optionals and graph ids included, across its chunks.
#include <gtest/gtest.h>

#include "src/analysis/phase_kernels.h"

namespace llmpo::analysis {
namespace {

TimedKernel Make(std::size_t i) {
  TimedKernel k;
  k.start = -static_cast<std::int64_t>(i) * 7;
  k.end = static_cast<std::int64_t>(i) * 11;
  if (i % 2 == 0) k.call_start = static_cast<std::int64_t>(i) - 5;
  if (i % 3 == 0) k.call_end = static_cast<std::int64_t>(i) + 5;
  if (i % 5 != 0) k.correlation = INT64_MIN + static_cast<std::int64_t>(i);
  k.name = static_cast<std::uint32_t>(i % 13);
  k.range = static_cast<std::uint32_t>(i % 17);
  k.scope = static_cast<std::uint32_t>(i % 3);
  k.graph = i % 7 == 0;
  if (i % 1000 == 1) k.graph_id = static_cast<std::int64_t>(i) * 1000;
  return k;
}

void ExpectEqual(const TimedKernel& a, const TimedKernel& b, std::size_t i) {
  EXPECT_EQ(a.start, b.start) << i;
  EXPECT_EQ(a.end, b.end) << i;
  EXPECT_EQ(a.call_start, b.call_start) << i;
  EXPECT_EQ(a.call_end, b.call_end) << i;
  EXPECT_EQ(a.correlation, b.correlation) << i;
  EXPECT_EQ(a.name, b.name) << i;
  EXPECT_EQ(a.range, b.range) << i;
  EXPECT_EQ(a.scope, b.scope) << i;
  EXPECT_EQ(a.graph, b.graph) << i;
  EXPECT_EQ(a.graph_id, b.graph_id) << i;
}

TEST(TimedKernelList, GivesBackWhatWasPushedAcrossChunks) {
  TimedKernelList list;
  EXPECT_TRUE(list.empty());
  constexpr std::size_t kCount = 10000;  // more than two chunks
  for (std::size_t i = 0; i < kCount; ++i) list.push_back(Make(i));
  ASSERT_EQ(list.size(), kCount);
  for (std::size_t i = 0; i < kCount; ++i) ExpectEqual(list[i], Make(i), i);
  std::size_t i = 0;
  for (const TimedKernel& k : list) ExpectEqual(k, Make(i), i), ++i;
  EXPECT_EQ(i, kCount);
}

TEST(TimedKernelList, CopiesAndMoves) {
  TimedKernelList list;
  for (std::size_t i = 0; i < 5000; ++i) list.push_back(Make(i));
  const TimedKernelList copy = list;
  TimedKernelList moved = std::move(list);
  EXPECT_TRUE(list.empty());  // NOLINT(bugprone-use-after-move): a moved list is empty, and usable
  list.push_back(Make(3));
  ASSERT_EQ(list.size(), 1u);
  ExpectEqual(list[0], Make(3), 3);
  ASSERT_EQ(copy.size(), 5000u);
  ASSERT_EQ(moved.size(), 5000u);
  for (std::size_t i = 0; i < 5000; i += 499) {
    ExpectEqual(copy[i], Make(i), i);
    ExpectEqual(moved[i], Make(i), i);
  }
}

}  // namespace
}  // namespace llmpo::analysis
