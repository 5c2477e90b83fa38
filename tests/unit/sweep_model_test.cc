#include <gtest/gtest.h>

#include <deque>

#include "src/report/sweep_model.h"

namespace llmpo::report {
namespace {

// A report set that knows only the run-level numbers the sweep reads.
ReportSet Set(double kernel_ms, std::optional<double> tokens_per_s, const std::string& top, const std::string& bound) {
  ReportSet set;
  set.run.times_from = "trace.tsv";
  set.run.gpu_kernel_ns = kernel_ms * 1e6;
  set.run.serving.tokens_per_s = tokens_per_s;
  TopKernel k;
  k.kernel.name = top;
  k.bound = bound;
  set.run.top_kernels.push_back(k);
  return set;
}

SweepInput Input(const std::deque<ReportSet>& sets, const std::vector<std::string>& batch) {
  SweepInput in;
  in.command = "profile";
  in.keys = {"model.batch"};
  in.pareto = {"latency", "throughput"};
  for (std::size_t i = 0; i < batch.size(); ++i) {
    SweepPointInput p;
    p.num = i;
    p.values = {batch[i]};
    p.dir = std::to_string(i);
    p.status = i < sets.size() ? "ok" : "failed";
    p.set = i < sets.size() ? &sets[i] : nullptr;
    in.points.push_back(p);
  }
  return in;
}

TEST(SweepModel, ScalingEfficiencyAgainstPointZero) {
  const std::deque<ReportSet> sets = {Set(10, std::nullopt, "g", "memory"), Set(15, std::nullopt, "g", "memory"),
                                      Set(40, std::nullopt, "g", "memory")};
  const SweepReport r = BuildSweepReport(Input(sets, {"1", "2", "4"}));
  ASSERT_EQ(r.points.size(), 3u);
  EXPECT_DOUBLE_EQ(*r.points[0].scaling_efficiency_pct, 100.0);
  EXPECT_NEAR(*r.points[1].scaling_efficiency_pct, 100.0 * 2 / 1.5, 1e-9);
  EXPECT_DOUBLE_EQ(*r.points[2].scaling_efficiency_pct, 100.0);
  EXPECT_DOUBLE_EQ(*SweepValue(r.points[2], "gpu_kernel_ms"), 40.0);
  ASSERT_TRUE(r.base.has_value());
  EXPECT_EQ(*r.base, 0u);
  EXPECT_FALSE(r.points[0].vs_base.has_value());  // the baseline itself
}

TEST(SweepModel, ParetoFrontOfLatencyAndThroughput) {
  // 10 ms at 100 tokens/s and 20 ms at 300 are each best in one; 25 ms at 250 is beaten by 20 ms at 300.
  const std::deque<ReportSet> sets = {Set(10, 100, "g", "memory"), Set(20, 300, "g", "memory"),
                                      Set(25, 250, "g", "memory")};
  const SweepReport r = BuildSweepReport(Input(sets, {"1", "2", "3"}));
  EXPECT_EQ(r.pareto, (std::vector<std::string>{"gpu_kernel_ms", "tokens_per_s"}));
  EXPECT_TRUE(r.points[0].pareto);
  EXPECT_TRUE(r.points[1].pareto);
  EXPECT_FALSE(r.points[2].pareto);
}

TEST(SweepModel, BottleneckChangesInWordsAndUnmeasuredPoints) {
  const std::deque<ReportSet> sets = {Set(10, std::nullopt, "gemm", "compute"), Set(20, std::nullopt, "gemm", "memory"),
                                      Set(30, std::nullopt, "attn", "memory")};
  SweepInput in = Input(sets, {"1", "2", "4", "8"});  // point 3 failed: no report set
  const SweepReport r = BuildSweepReport(in);
  ASSERT_EQ(r.bottleneck_changes.size(), 2u);
  EXPECT_NE(r.bottleneck_changes[0].find("gemm stays the kernel with the most GPU time but turns from compute bound "
                                         "to memory bound"),
            std::string::npos)
      << r.bottleneck_changes[0];
  EXPECT_NE(r.bottleneck_changes[1].find("changes from gemm (memory bound) to attn (memory bound)"), std::string::npos)
      << r.bottleneck_changes[1];
  EXPECT_FALSE(SweepValue(r.points[3], "gpu_kernel_ms").has_value());  // unknown, not 0
  EXPECT_FALSE(r.points[3].scaling_efficiency_pct.has_value());
  const std::string json = SweepJson(r);
  EXPECT_NE(json.find("\"schema_version\": \"1.0.0\""), std::string::npos);
  EXPECT_NE(json.find("\"gpu_kernel_ms\": null"), std::string::npos);
}

TEST(SweepModel, EfficiencyUnknownForNonNumericValues) {
  const std::deque<ReportSet> sets = {Set(10, std::nullopt, "g", "memory"), Set(12, std::nullopt, "g", "memory")};
  const SweepReport r = BuildSweepReport(Input(sets, {"fp32", "bf16"}));
  EXPECT_FALSE(r.points[1].scaling_efficiency_pct.has_value());
  EXPECT_FALSE(r.notes.empty());
}

}  // namespace
}  // namespace llmpo::report
