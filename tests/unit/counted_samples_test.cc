#include "src/analysis/counted_samples.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "src/analysis/median.h"

namespace llmpo::analysis {
namespace {

// The same median, maximum and sum as the plain vector of every sample,
// bit for bit, across buffer folds, for few and for many distinct values.
TEST(CountedSamples, MatchesThePlainVectorBitForBit) {
  std::mt19937_64 rng(29);
  for (std::int64_t spread : {1, 7, 5000, 1'000'000'000}) {
    for (std::size_t n : {0u, 1u, 2u, 3u, 4095u, 4096u, 4097u, 20000u, 100001u}) {
      CountedSamples counted;
      std::vector<std::int64_t> plain;
      double sum = 0;
      std::uniform_int_distribution<std::int64_t> value(1000, 1000 + spread);
      for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t v = value(rng);
        counted.Add(v);
        plain.push_back(v);
        sum += static_cast<double>(v);
      }
      ASSERT_EQ(counted.size(), n);
      EXPECT_EQ(counted.sum(), sum) << n << " " << spread;
      EXPECT_EQ(counted.Median(), Median(plain)) << n << " " << spread;
      const auto max = plain.empty() ? std::nullopt
                                     : std::optional<double>(static_cast<double>(*std::max_element(plain.begin(),
                                                                                                   plain.end())));
      EXPECT_EQ(counted.Max(), max) << n << " " << spread;
    }
  }
}

TEST(CountedSamples, AddsAfterAReadAndKeepsCounting) {
  CountedSamples s;
  for (std::int64_t v : {5, 1, 9}) s.Add(v);
  EXPECT_EQ(s.Median(), 5.0);
  s.Add(1);
  EXPECT_EQ(s.Median(), 3.0);  // (1 + 5) / 2
  EXPECT_EQ(s.Max(), 9.0);
  EXPECT_EQ(s.size(), 4u);
}

}  // namespace
}  // namespace llmpo::analysis
