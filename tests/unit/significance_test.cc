// The noise tests of compare (analysis/significance.h) and the spread
// KernelAggregate keeps for them, against values computed by hand.
#include "src/analysis/significance.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "src/analysis/kernel_aggregator.h"
#include "src/model/records.h"

namespace llmpo::analysis {
namespace {

double SumSqDev(const std::vector<double>& xs) {
  const double mean = std::accumulate(xs.begin(), xs.end(), 0.0) / static_cast<double>(xs.size());
  double s = 0;
  for (double x : xs) s += (x - mean) * (x - mean);
  return s;
}

TEST(Significance, WelchWithTwoDegreesOfFreedomMatchesTheClosedForm) {
  // {0, 2} against {3, 5}: equal variances and sizes give df = 2, whose
  // Student t has CDF 1/2 + t / (2 sqrt(2 + t^2)); t = 3 / sqrt(2).
  const Samples a{2, 1.0, 2.0}, b{2, 4.0, 2.0};
  const double t = 3 / std::sqrt(2.0);
  const double want = 1 - t / std::sqrt(2 + t * t);
  ASSERT_TRUE(WelchP(a, b).has_value());
  EXPECT_NEAR(*WelchP(a, b), want, 1e-12);
  EXPECT_NEAR(*WelchP(b, a), want, 1e-12);
}

TEST(Significance, NoTestWithoutTwoSamplesOrASpread) {
  EXPECT_FALSE(WelchP({1, 5.0, 0.0}, {10, 5.0, 3.0}).has_value());
  EXPECT_FALSE(WelchP({10, 5.0, std::nullopt}, {10, 5.0, 3.0}).has_value());
  const ChangeTest t = TestChange({1, 100, 0.0}, {1, 130, 0.0}, {});
  EXPECT_FALSE(t.tested);
  EXPECT_EQ(t.verdict, Verdict::kSlower);  // on the threshold alone
  EXPECT_NEAR(*t.change_pct, 30, 1e-12);
}

TEST(Significance, ASmallChangeIsWithinNoiseHoweverSignificant) {
  // 1 % slower with no spread at all: exact, but below the 2 % threshold.
  const ChangeTest t = TestChange({100, 100, 0.0}, {100, 101, 0.0}, {0.01, 2.0});
  EXPECT_TRUE(t.tested);
  EXPECT_EQ(*t.p_value, 0.0);
  EXPECT_EQ(t.verdict, Verdict::kWithinNoise);
  EXPECT_EQ(TestChange({100, 100, 0.0}, {100, 103, 0.0}, {0.01, 2.0}).verdict, Verdict::kSlower);
  EXPECT_EQ(TestChange({100, 100, 0.0}, {100, 97, 0.0}, {0.01, 2.0}).verdict, Verdict::kFaster);
}

TEST(Significance, ALargeChangeInsideTheSpreadIsWithinNoise) {
  // Means 100 and 110 with a standard deviation of 50 over 5 samples each.
  const double m2 = 50.0 * 50.0 * 4;
  const ChangeTest t = TestChange({5, 100, m2}, {5, 110, m2}, {});
  EXPECT_TRUE(t.tested);
  EXPECT_GT(*t.p_value, 0.5);
  EXPECT_EQ(t.verdict, Verdict::kWithinNoise);
}

TEST(Significance, TotalsUseANormalTest) {
  // A change of 2 standard errors: two-sided p = 0.0455 (erfc(2 / sqrt 2)).
  const ChangeTest t = TestTotal(1000, 50, 1020, 50, {0.05, 1.0});
  EXPECT_NEAR(*t.p_value, std::erfc(2 / std::sqrt(2.0)), 1e-12);
  EXPECT_EQ(t.verdict, Verdict::kSlower);
  EXPECT_FALSE(TestTotal(1000, std::nullopt, 1020, 50, {}).tested);
  EXPECT_EQ(*TotalVariance(4, 12.0), 16.0);  // 4 launches x 12 / 3
  EXPECT_EQ(*TotalVariance(1, std::nullopt), 0.0);
}

model::LaunchRecord Launch(double ns) {
  model::LaunchRecord l;
  l.kernel_name = "k";
  l.duration_ns = ns;
  return l;
}

// Holm's adjustment by hand: sorted p 0.01, 0.02, 0.04, 0.5 (m = 4) scale
// by 4, 3, 2, 1 to 0.04, 0.06, 0.08, 0.5, already monotone.
TEST(Significance, HolmAdjustsInStepsAndKeepsTheOrder) {
  const auto adjusted = HolmAdjusted({0.04, 0.5, 0.01, 0.02});
  ASSERT_EQ(adjusted.size(), 4u);
  EXPECT_DOUBLE_EQ(adjusted[0], 0.08);
  EXPECT_DOUBLE_EQ(adjusted[1], 0.5);
  EXPECT_DOUBLE_EQ(adjusted[2], 0.04);
  EXPECT_DOUBLE_EQ(adjusted[3], 0.06);
  // Monotone: a later p that scales below an earlier adjusted one takes that one; capped at 1.
  const auto capped = HolmAdjusted({0.3, 0.31, 0.9});
  EXPECT_DOUBLE_EQ(capped[0], 0.9);
  EXPECT_DOUBLE_EQ(capped[1], 0.9);
  EXPECT_DOUBLE_EQ(capped[2], 0.9);
  EXPECT_TRUE(HolmAdjusted({}).empty());
}

TEST(KernelSpread, LaunchesAndMergesKeepTheSumOfSquaredDeviations) {
  const std::vector<double> first = {100, 130, 90, 160}, second = {400, 380, 410};
  KernelAggregate a, b, merged;
  for (double x : first) AddLaunch(a, Launch(x));
  for (double x : second) AddLaunch(b, Launch(x));
  EXPECT_NEAR(*a.sum_sq_dev_ns2, SumSqDev(first), 1e-6);
  MergeKernel(merged, a);
  MergeKernel(merged, b);
  std::vector<double> all = first;
  all.insert(all.end(), second.begin(), second.end());
  EXPECT_NEAR(*merged.sum_sq_dev_ns2, SumSqDev(all), 1e-6);
}

TEST(KernelSpread, SummaryRowsBringTheirStdDevOrLeaveItUnknown) {
  KernelAggregate k;
  model::KernelSummaryRow row;
  row.kernel_name = "k";
  row.calls = 5;
  row.total_ns = 500;
  row.stddev_ns = 2.0;
  AddSummary(k, row);
  EXPECT_NEAR(*k.sum_sq_dev_ns2, 4.0 * 4, 1e-12);  // s^2 (n - 1)
  row.stddev_ns.reset();
  AddSummary(k, row);
  EXPECT_FALSE(k.sum_sq_dev_ns2.has_value());
}

}  // namespace
}  // namespace llmpo::analysis
