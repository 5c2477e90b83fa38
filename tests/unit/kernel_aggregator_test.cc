#include "src/analysis/kernel_aggregator.h"

#include <gtest/gtest.h>

namespace llmpo::analysis {
namespace {

model::Metric M(const char* name, const char* section, const char* value, const char* unit) {
  return model::Metric{name, section, ParseValue(value, unit)};
}

model::LaunchRecord Launch(const char* name, std::optional<double> ns, std::vector<model::Metric> metrics = {}) {
  model::LaunchRecord l;
  l.kernel_name = name;
  l.process = model::ProcessId{.name = "p", .pid = 1};
  l.device = "0";
  l.duration_ns = ns;
  l.metrics = std::move(metrics);
  return l;
}

TEST(RuleFor, CountersSumAveragesAndRatesDoNot) {
  EXPECT_EQ(RuleFor(M("Duration", "SOL", "1", "us")), Aggregation::kSum);
  EXPECT_EQ(RuleFor(M("dram__bytes_read.sum", "", "1", "Mbyte")), Aggregation::kSum);
  EXPECT_EQ(RuleFor(M("smsp__inst_executed.sum", "", "1", "inst")), Aggregation::kSum);
  EXPECT_EQ(RuleFor(M("DRAM Throughput", "SOL", "1", "%")), Aggregation::kDurationWeightedMean);
  EXPECT_EQ(RuleFor(M("Memory Throughput", "MWA", "1", "Gbyte/s")), Aggregation::kDurationWeightedMean);
  EXPECT_EQ(RuleFor(M("SM Frequency", "SOL", "1", "Ghz")), Aggregation::kDurationWeightedMean);
  EXPECT_EQ(RuleFor(M("Executed Ipc Active", "", "1", "inst/cycle")), Aggregation::kDurationWeightedMean);
  EXPECT_EQ(RuleFor(M("Grid Size", "Launch Statistics", "64", "")), Aggregation::kMean);
  EXPECT_EQ(RuleFor(M("launch__grid_size", "", "64", "")), Aggregation::kMean);
  // The cases: averages and ratios summed over launches gave 63.96 threads per warp (max 32)
  EXPECT_EQ(RuleFor(M("Avg. Active Threads Per Warp", "Warp State Statistics", "31.9", "")), Aggregation::kMean);
  EXPECT_EQ(RuleFor(M("Warp Cycles Per Issued Instruction", "Warp State Statistics", "9", "cycle")),
            Aggregation::kMean);
  EXPECT_EQ(RuleFor(M("smsp__thread_inst_executed_per_inst_executed.ratio", "", "31.9", "")), Aggregation::kMean);
  EXPECT_EQ(RuleFor(M("sm__warps_active.avg.pct_of_peak_sustained_active", "", "50", "%")),
            Aggregation::kDurationWeightedMean);
  EXPECT_EQ(RuleFor(M("gpc__cycles_elapsed.max", "", "9", "cycle")), Aggregation::kMax);
  EXPECT_EQ(RuleFor(M("sm__cycles_active.min", "", "9", "cycle")), Aggregation::kMin);
  EXPECT_EQ(RuleFor(M("sm__cycles_active.avg", "", "9", "cycle")), Aggregation::kMean);
  EXPECT_EQ(RuleFor(M("dram__bytes.sum.per_second", "", "9", "byte/second")), Aggregation::kDurationWeightedMean);
  // Unknown to the catalogue: the safe rule, and said so
  EXPECT_EQ(RuleFor(M("sm__maximum_warps_avg_per_active_cycle", "", "64", "")), Aggregation::kMean);
  EXPECT_FALSE(RuleForMetric("sm__maximum_warps_avg_per_active_cycle", "").known);
  EXPECT_FALSE(RuleForMetric("Some New Display Name", "New Section").known);
  EXPECT_TRUE(RuleForMetric("Duration", "GPU Speed Of Light Throughput").known);
}

TEST(MetricAggregate, ScalesThatCannotBeNormalisedAreNeverAveraged) {
  KernelAggregator agg;
  agg.SetSource("f.csv");
  agg.OnLaunch(Launch("k", 10, {M("Static Shared Memory Per Block", "Launch Statistics", "1.02", "Kbyte/block")}));
  agg.OnLaunch(Launch("k", 10, {M("Static Shared Memory Per Block", "Launch Statistics", "1020", "byte/block")}));
  agg.OnLaunch(Launch("k", 10, {M("Static Shared Memory Per Block", "Launch Statistics", "7", "widget/block")}));
  const auto k = agg.Sorted()[0];
  EXPECT_DOUBLE_EQ(k.metrics[0].Value(), 1020);  // Kbyte/block and byte/block agree once normalised
  EXPECT_EQ(k.metrics[0].values, 2u);
  EXPECT_EQ(k.metrics[0].unit_conflicts, 1u);  // the unknown scale is left out, not averaged in
}

TEST(MetricAggregate, RatesAreTimeAveraged) {
  KernelAggregator agg;
  agg.SetSource("f.csv");
  agg.OnLaunch(Launch(
      "gemm", 3000,
      {M("DRAM Throughput", "SOL", "90", "%"), M("Avg. Active Threads Per Warp", "Warp State Statistics", "32", "")}));
  agg.OnLaunch(Launch(
      "gemm", 1000,
      {M("DRAM Throughput", "SOL", "10", "%"), M("Avg. Active Threads Per Warp", "Warp State Statistics", "16", "")}));
  const auto kernels = agg.Sorted();
  EXPECT_DOUBLE_EQ(kernels[0].metrics[0].Value(), (90.0 * 3000 + 10.0 * 1000) / 4000);
  EXPECT_DOUBLE_EQ(kernels[0].metrics[1].Value(), 24);  // never 48
}

TEST(KernelAggregator, LaunchesAggregatePerKernel) {
  KernelAggregator agg;
  agg.SetSource("f.csv");
  agg.OnLaunch(Launch("gemm", 3000, {M("DRAM Throughput", "SOL", "40", "%"), M("dram__bytes.sum", "", "1", "Kbyte")}));
  agg.OnLaunch(Launch("gemm", 1000, {M("DRAM Throughput", "SOL", "n/a", "%"), M("dram__bytes.sum", "", "2", "Kbyte")}));
  agg.OnLaunch(Launch("relu", std::nullopt));
  const auto kernels = agg.Sorted();
  ASSERT_EQ(kernels.size(), 2u);
  const KernelAggregate& gemm = kernels[0];
  EXPECT_EQ(gemm.name, "gemm");
  EXPECT_EQ(gemm.calls, 2u);
  EXPECT_DOUBLE_EQ(gemm.total_ns, 4000);
  EXPECT_DOUBLE_EQ(gemm.MeanNs(), 2000);
  EXPECT_DOUBLE_EQ(*gemm.min_ns, 1000);
  EXPECT_DOUBLE_EQ(*gemm.max_ns, 3000);
  ASSERT_EQ(gemm.metrics.size(), 2u);
  EXPECT_DOUBLE_EQ(gemm.metrics[0].Value(), 40);  // time average over the launch that had it
  EXPECT_EQ(gemm.metrics[0].missing, 1u);
  EXPECT_DOUBLE_EQ(gemm.metrics[1].Value(), 3000);  // bytes summed
  EXPECT_EQ(kernels[1].calls, 1u);
  EXPECT_EQ(kernels[1].timed_calls, 0u);
}

// Layout ids only skip name compares: the aggregates are those of matching
// every metric by section and name.
TEST(KernelAggregator, MetricLayoutsGiveTheSameAggregatesAsNames) {
  struct Step {
    const char* kernel;
    std::uint64_t layout;
    std::vector<model::Metric> metrics;
  };
  const std::vector<Step> steps = {
      {"gemm", 1, {M("a", "S", "1", ""), M("b", "S", "2", "")}},
      {"gemm", 1, {M("a", "S", "3", ""), M("b", "S", "4", "")}},
      {"gemm", 2, {M("b", "S", "5", ""), M("a", "S", "6", "")}},  // same metrics, other order
      {"gemm", 1, {M("a", "S", "7", ""), M("b", "S", "8", "")}},
      {"gemm", 3, {M("a", "S", "1", ""), M("a", "S", "2", ""), M("c", "T", "3", "")}},  // a repeated
      {"gemm", 3, {M("a", "S", "4", ""), M("a", "S", "5", ""), M("c", "T", "6", "")}},
      {"relu", 2, {M("b", "S", "9", ""), M("a", "S", "10", "")}},
      {"relu", 2, {M("b", "S", "11", ""), M("a", "S", "12", "")}},
  };
  const auto run = [&](bool with_layouts) {
    KernelAggregator agg;
    agg.SetSource("f.csv");
    for (const Step& step : steps) {
      model::LaunchRecord launch = Launch(step.kernel, 1, step.metrics);
      launch.metric_layout = with_layouts ? step.layout : 0;
      agg.OnLaunch(launch);
    }
    std::vector<std::tuple<std::string, std::string, double, std::uint64_t>> out;
    for (const auto& k : agg.Sorted()) {
      for (const auto& m : k.metrics) out.emplace_back(k.name, m.name, m.sum, m.values);
    }
    return out;
  };
  const auto by_name = run(false);
  EXPECT_EQ(run(true), by_name);
  ASSERT_EQ(by_name.size(), 5u);  // gemm: a, b, c; relu: b, a
  EXPECT_EQ(by_name[0], std::make_tuple(std::string("gemm"), std::string("a"), 1.0 + 3 + 6 + 7 + 1 + 2 + 4 + 5, 8ull));
}

TEST(KernelAggregator, SourcesStayApart) {
  KernelAggregator agg;
  agg.SetSource("a");
  agg.OnLaunch(Launch("k", 10));
  agg.SetSource("b");
  agg.OnLaunch(Launch("k", 20));
  EXPECT_EQ(agg.Sorted().size(), 2u);
}

TEST(KernelAggregator, SummaryRowsAdd) {
  KernelAggregator agg;
  model::KernelSummaryRow row{"k", {}, "", 3, 300.0, 90.0, 110.0};
  agg.OnKernelSummary(row);
  row.min_ns = 80.0;
  agg.OnKernelSummary(row);
  const auto k = agg.Sorted().at(0);
  EXPECT_EQ(k.calls, 6u);
  EXPECT_DOUBLE_EQ(k.total_ns, 600);
  EXPECT_DOUBLE_EQ(*k.min_ns, 80);
  EXPECT_DOUBLE_EQ(*k.max_ns, 110);
}

TEST(KernelAggregator, UnknownMinimumStaysUnknown) {
  KernelAggregator agg;
  agg.OnKernelSummary(model::KernelSummaryRow{"k", {}, "", 3, 300.0, std::nullopt, 110.0});
  agg.OnKernelSummary(model::KernelSummaryRow{"k", {}, "", 1, 50.0, 50.0, 50.0});
  const auto k = agg.Sorted().at(0);
  EXPECT_FALSE(k.min_ns.has_value());
  EXPECT_DOUBLE_EQ(*k.max_ns, 110);
}

}  // namespace
}  // namespace llmpo::analysis
