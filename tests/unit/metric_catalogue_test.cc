// The metric catalogue against a real run: the details page (display
// names) and the raw page (raw names) of the same ncu run must give the
// same per-kernel value for every metric both hold, which holds only when
// both spellings of a metric combine over launches by the same rule.
#include "src/analysis/metric_catalogue.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>

#include "src/analysis/kernel_aggregator.h"
#include "src/ingest/importer.h"

namespace llmpo::analysis {
namespace {

namespace fs = std::filesystem;

std::map<std::string, KernelAggregate> ImportKernels(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  KernelAggregator agg;
  agg.SetSource(file.string());
  model::Diagnostics d;
  ingest::ImportContext ctx{file.string(), agg, d};
  EXPECT_TRUE(ingest::ImportNcuCsv(in, ctx).ok()) << file;
  std::map<std::string, KernelAggregate> by_name;
  for (auto& k : agg.Sorted()) by_name[k.name + " | " + k.process.Label() + " | " + k.device] = std::move(k);
  return by_name;
}

// The raw page's own column of the metric, not a copy under a breakdown
// prefix ("LTS.TriageCompute.lts__throughput...", empty on this page).
const MetricAggregate* FindByName(const KernelAggregate& k, std::string_view name) {
  for (const auto& m : k.metrics) {
    if (m.name == name && m.section.empty()) return &m;
  }
  return nullptr;
}

TEST(MetricCatalogue, DetailsAndRawPagesOfOneRunAgreePerKernel) {
  const fs::path dir = fs::path(LLMPO_SOURCE_DIR) / ".." / "shared" / "fixtures" / "ncu-csv" / "sglang-h200";
  if (!fs::exists(dir / "details.csv")) GTEST_SKIP() << "no shared fixtures at " << dir;
  const auto details = ImportKernels(dir / "details.csv");
  const auto raw = ImportKernels(dir / "raw.csv");
  ASSERT_EQ(details.size(), raw.size());
  std::size_t compared = 0, multi_launch = 0;
  for (const auto& [key, d] : details) {
    ASSERT_TRUE(raw.count(key)) << key;
    const KernelAggregate& r = raw.at(key);
    for (const auto& m : d.metrics) {
      const std::string_view raw_name = RawNameOf(m.name);
      const MetricAggregate* rm = raw_name.empty() ? nullptr : FindByName(r, raw_name);
      if (rm == nullptr || m.values == 0 || rm->values == 0) continue;
      EXPECT_EQ(m.rule, rm->rule) << m.name << " vs " << raw_name;
      // The details page prints about three significant digits.
      const double want = rm->Value(), got = m.Value();
      EXPECT_NEAR(got, want, std::max(1e-6, 0.006 * std::fabs(want))) << key << ": " << m.name << " vs " << raw_name;
      ++compared;
      multi_launch += d.calls > 1;
    }
  }
  EXPECT_GT(compared, 500u);     // every kernel, some thirty metrics each
  EXPECT_GT(multi_launch, 10u);  // and kernels with several launches, where the rule matters
}

// A display name combines over launches by its raw metric's rule: "Achieved
// Active Warps Per SM" (Occupancy section) was a plain mean while
// sm__warps_active.avg.per_cycle_active was duration-weighted.
TEST(MetricCatalogue, DisplayNamesTakeTheirRawMetricsRule) {
  for (const auto& [display, section, raw] :
       {std::tuple{"Achieved Active Warps Per SM", "Occupancy", "sm__warps_active.avg.per_cycle_active"},
        std::tuple{"Achieved Occupancy", "Occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active"}}) {
    EXPECT_EQ(RawNameOf(display), raw);
    EXPECT_EQ(RuleForMetric(display, section).rule, RuleForMetric(raw, "").rule) << display;
    EXPECT_EQ(RuleForMetric(display, section).rule, Aggregation::kDurationWeightedMean) << display;
  }
}

// An average, ratio, rate or peak combined over launches lies between its
// launches' values; summed (the old rule for unitless and cycle metrics) it
// did not: "Avg. Active Threads Per Warp" came out 63.96 for two launches of 32.
TEST(MetricCatalogue, NonCountersStayWithinTheirLaunches) {
  const fs::path file =
      fs::path(LLMPO_SOURCE_DIR) / ".." / "shared" / "fixtures" / "ncu-csv" / "sglang-h200" / "details.csv";
  if (!fs::exists(file)) GTEST_SKIP() << "no shared fixtures at " << file;
  std::size_t checked = 0;
  for (const auto& [key, k] : ImportKernels(file)) {
    for (const auto& m : k.metrics) {
      if (m.values < 2 || m.rule == Aggregation::kSum) continue;
      const double slack = 1e-9 * std::max(1.0, std::fabs(m.max));
      EXPECT_GE(m.Value(), m.min - slack) << key << ": " << m.name;
      EXPECT_LE(m.Value(), m.max + slack) << key << ": " << m.name;
      ++checked;
    }
  }
  EXPECT_GT(checked, 100u);
}

}  // namespace
}  // namespace llmpo::analysis
