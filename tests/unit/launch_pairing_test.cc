#include "src/analysis/launch_pairing.h"

#include <gtest/gtest.h>

namespace llmpo::analysis {
namespace {

using model::LaunchRecord;
using model::SourceFamily;

LaunchRecord TraceLaunch(const char* region, std::int64_t launch_ns, std::int64_t start_ns, std::string device = "0") {
  LaunchRecord l;
  l.kernel_name = "k";
  l.process.pid = 1;
  l.device = std::move(device);
  l.launch_call_start_ns = launch_ns;
  l.start_ns = start_ns;
  l.duration_ns = 10;
  l.has_nvtx = true;
  l.nvtx_stack.push_back({"", region, std::nullopt});
  return l;
}

LaunchRecord NcuResult(const char* id, double sm) {
  LaunchRecord l;
  l.kernel_name = "k";
  l.result_id = id;
  l.process = model::ProcessId{"", "python", 9, std::nullopt};
  l.device = "0";
  l.duration_ns = 100;
  model::Metric m{"sm__throughput.avg.pct_of_peak_sustained_elapsed", "", {}};
  m.value.value = sm;
  m.value.unit = "%";
  l.metrics.push_back(m);
  return l;
}

double Sm(const RegionKernel& row) { return row.kernel.metrics.at(0).Value(); }

TEST(LaunchPairing, PairsInLaunchOrderNotGpuOrderNorArrivalOrder) {
  LaunchPairing p;
  p.OnLaunch(TraceLaunch("b", 20, 25));  // launched second, started first on the GPU
  p.OnLaunch(TraceLaunch("a", 10, 40));
  p.EndInput("trace", SourceFamily::kTimeline);
  p.OnLaunch(NcuResult("3", 30));  // results out of ID order
  p.OnLaunch(NcuResult("1", 70));
  p.EndInput("ncu", SourceFamily::kNcu);
  model::Diagnostics d;
  const PairingResult r = p.Pair("trace", d);
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.kernels_by_launch, 1u);
  EXPECT_EQ(r.rows[0].region, std::vector<std::string>{"a"});
  EXPECT_TRUE(r.rows[0].by_launch);
  EXPECT_DOUBLE_EQ(Sm(r.rows[0]), 70);  // result 1 with the first launch
  EXPECT_DOUBLE_EQ(Sm(r.rows[1]), 30);
  EXPECT_TRUE(d.entries().empty());
}

TEST(LaunchPairing, SeveralDevicesFallBackToTheName) {
  LaunchPairing p;
  p.OnLaunch(TraceLaunch("a", 10, 40, "0"));
  p.OnLaunch(TraceLaunch("b", 20, 25, "1"));
  p.EndInput("trace", SourceFamily::kTimeline);
  p.OnLaunch(NcuResult("1", 70));
  p.OnLaunch(NcuResult("2", 30));
  p.EndInput("ncu", SourceFamily::kNcu);
  model::Diagnostics d;
  const PairingResult r = p.Pair("trace", d);
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.kernels_by_name, 1u);
  EXPECT_FALSE(r.rows[0].by_launch);
  EXPECT_DOUBLE_EQ(Sm(r.rows[0]), 50);  // equal ncu durations: the plain mean
  EXPECT_EQ(d.entries().at("kernel_paired_by_name").count, 1u);
}

TEST(LaunchPairing, OtherFamiliesAndFailedInputsAreDropped) {
  LaunchPairing p;
  p.OnLaunch(TraceLaunch("a", 10, 40));
  p.EndInput("trace", SourceFamily::kTimeline);
  p.OnLaunch(NcuResult("1", 70));
  p.EndInput("summary", SourceFamily::kSummary);
  model::Diagnostics d;
  const PairingResult r = p.Pair("trace", d);
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_TRUE(r.rows[0].kernel.metrics.empty());
  EXPECT_EQ(r.kernels_unmatched, 1u);
}

}  // namespace
}  // namespace llmpo::analysis
