#include "src/analysis/step_names.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace llmpo::analysis {
namespace {

using Name = StepNames::Name;

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(StepNames, PackedEntriesReadBackBitForBitInTheirOrder) {
  std::vector<Name> entries = {
      {0, 0, 0},
      {123456, 7, 3},
      {9007199254740991.0, 4294967295u, 4294967295u},  // 2^53 - 1, the largest taken as an integer
      {9007199254740992.0, 1, 1},                      // 2^53: kept as its bytes
      {0.5, 2, 1},
      {-0.0, 3, 1},
      {-12, 4, 1},
      {std::numeric_limits<double>::quiet_NaN(), 5, 1},
      {std::numeric_limits<double>::infinity(), 6, 1},
      {1e300, 8, 2}};
  std::mt19937_64 rng(11);
  for (int i = 0; i < 500; ++i)
    entries.push_back({static_cast<double>(rng() % 100000000), static_cast<std::uint32_t>(rng() % 300),
                       1 + static_cast<std::uint32_t>(rng() % 50)});
  StepNames names;
  for (const Name& n : entries) names.push_back(n);
  names.Pack();
  ASSERT_TRUE(names.packed());
  ASSERT_EQ(names.size(), entries.size());
  std::size_t i = 0;
  for (const Name& n : names) {
    ASSERT_LT(i, entries.size());
    EXPECT_EQ(n.name, entries[i].name) << i;
    EXPECT_EQ(n.launches, entries[i].launches) << i;
    EXPECT_TRUE(SameBits(n.gpu_ns, entries[i].gpu_ns)) << i << ": " << n.gpu_ns << " vs " << entries[i].gpu_ns;
    ++i;
  }
  EXPECT_EQ(i, entries.size());
  // Integers of up to 27 bits, names below 300, launches below 64: at most 7 bytes an entry, not 16.
  EXPECT_LT(names.heap_bytes(), 7 * entries.size() + 10 * 9);
}

TEST(StepNames, OpeningAPackedStepGivesItsEntriesToChangeAndPackingAgainKeepsTheChange) {
  StepNames names;
  names.push_back({10, 1, 1});
  names.push_back({20, 2, 1});
  names.Pack();
  std::vector<Name>& open = names.Open();
  ASSERT_EQ(open.size(), 2u);
  EXPECT_FALSE(names.packed());
  open[1].gpu_ns += 5;
  open.push_back({1.25, 3, 2});
  names.Pack();
  const std::vector<Name> expected = {{10, 1, 1}, {25, 2, 1}, {1.25, 3, 2}};
  EXPECT_EQ(names.ToVector(), expected);
  StepNames same;
  for (const Name& n : expected) same.push_back(n);  // not packed: equal by content
  EXPECT_TRUE(names == same);
}

TEST(StepNames, AnEmptyStepStaysEmptyAndPacksToNothing) {
  StepNames names;
  names.Pack();
  EXPECT_FALSE(names.packed());
  EXPECT_TRUE(names.empty());
  EXPECT_EQ(names.begin(), names.end());
  EXPECT_EQ(names.heap_bytes(), 0u);
}

}  // namespace
}  // namespace llmpo::analysis
