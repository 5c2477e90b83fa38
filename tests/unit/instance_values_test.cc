#include "src/analysis/instance_values.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace llmpo::analysis {
namespace {

std::vector<std::pair<std::int64_t, double>> Items(const InstanceValues& v) {
  std::vector<std::pair<std::int64_t, double>> out;
  v.ForEach([&](std::int64_t id, double value) { out.emplace_back(id, value); });
  return out;
}

TEST(InstanceValues, AddsUpPerIdAndListsIdsInOrderWhateverTheArrivalOrder) {
  InstanceValues v;
  EXPECT_TRUE(v.empty());
  v[5] += 1.5;
  v[9] += 2;
  v[2] += 4;  // below the last id: kept beside the sorted ones
  v[9] += 1;
  v[5] += 0.5;
  v[7] += 3;
  v[2] += 1;
  EXPECT_EQ(v.size(), 4u);
  const std::vector<std::pair<std::int64_t, double>> want{{2, 5}, {5, 2}, {7, 3}, {9, 3}};
  EXPECT_EQ(Items(v), want);
}

TEST(InstanceValues, EqualWhenTheSameIdsHoldTheSameValuesHoweverStored) {
  InstanceValues in_order, out_of_order;
  in_order[1] = 10;
  in_order[2] = 20;
  out_of_order[2] = 20;
  out_of_order[1] = 10;
  EXPECT_EQ(in_order, out_of_order);
  out_of_order[1] += 1;
  EXPECT_FALSE(in_order == out_of_order);
  in_order.clear();
  EXPECT_TRUE(in_order.empty());
}

}  // namespace
}  // namespace llmpo::analysis
