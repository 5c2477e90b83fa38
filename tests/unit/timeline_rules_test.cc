// The timeline rules (analysis/timeline_rules.h): each on a hand-made case
// that fires and one that must not, the savings computed by hand.
#include "src/analysis/timeline_rules.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace llmpo::analysis {
namespace {

DeviceBusy Device(double span_ms, double busy_ms) {
  DeviceBusy d;
  d.source = "t.json";
  d.device = "0";
  d.span_ns = span_ms * 1e6;
  d.busy_ns = busy_ms * 1e6;
  d.idle_ns = (span_ms - busy_ms) * 1e6;
  d.idle_pct = 100 * (span_ms - busy_ms) / span_ms;
  return d;
}

KernelAggregate Kernel(const char* name, std::uint64_t calls, double mean_ns) {
  KernelAggregate k;
  k.name = name;
  k.calls = k.timed_calls = calls;
  k.total_ns = mean_ns * static_cast<double>(calls);
  return k;
}

const TimelineFinding* Find(const TimelineRulesResult& r, const std::string& rule) {
  for (const auto& f : r.findings) {
    if (f.rule == rule) return &f;
  }
  return nullptr;
}

TimelineEvidence Timeline(DeviceBusy device, std::vector<KernelAggregate> kernels) {
  TimelineEvidence e;
  e.times_from = "t.json";
  e.timeline = true;
  e.devices = {std::move(device)};
  e.kernels = std::move(kernels);
  return e;
}

TEST(TimelineRules, AnIdleGpuIsFoundWithItsIdleTime) {
  const auto r = EvaluateTimelineRules(Timeline(Device(100, 60), {Kernel("gemm", 10, 6e6)}));
  const TimelineFinding* f = Find(r, "gpu_idle");
  ASSERT_NE(f, nullptr);
  EXPECT_DOUBLE_EQ(f->saving_ns, 40e6);
  EXPECT_DOUBLE_EQ(*f->saving_pct, 40);
  EXPECT_EQ(f->scope, "device 0");
}

TEST(TimelineRules, IdleDevicesMakeOneFindingOverTheirSpans) {
  auto e = Timeline(Device(100, 60), {Kernel("gemm", 10, 6e6)});
  DeviceBusy second = Device(50, 20), busy = Device(10, 10);
  second.device = "1";
  busy.device = "2";
  e.devices.push_back(second);
  e.devices.push_back(busy);
  const auto r = EvaluateTimelineRules(e);
  // One gpu_idle finding for both idle devices (rank_straggler fires too: device 0 has 3 x the median's work).
  ASSERT_EQ(std::count_if(r.findings.begin(), r.findings.end(), [](const auto& x) { return x.rule == "gpu_idle"; }), 1);
  const TimelineFinding& f = *Find(r, "gpu_idle");
  EXPECT_EQ(f.scope, "devices 0, 1");  // device 2 is never idle
  EXPECT_DOUBLE_EQ(f.saving_ns, 70e6);
  EXPECT_DOUBLE_EQ(*f.span_ns, 150e6);
  EXPECT_NE(f.evidence.find("idle per device: 0 40.0 %, 1 60.0 %"), std::string::npos) << f.evidence;
}

TEST(TimelineRules, ABusyGpuIsNotIdle) {
  const auto r = EvaluateTimelineRules(Timeline(Device(100, 95), {Kernel("gemm", 10, 9.5e6)}));
  EXPECT_EQ(Find(r, "gpu_idle"), nullptr);
}

TEST(TimelineRules, ManyShortKernelsWithIdleTimeAreLaunchBound) {
  // 300 launches of 4 us and 100 of 50 us: 75 % short; launch calls of 6 us.
  auto e = Timeline(Device(10, 6.2), {Kernel("add", 300, 4e3), Kernel("gemm", 100, 50e3)});
  model::LaunchOverheadRow row;
  row.count = 400;
  row.api_mean_ns = 6e3;
  e.launch_overhead = {row};
  const auto r = EvaluateTimelineRules(e);
  const TimelineFinding* f = Find(r, "launch_bound");
  ASSERT_NE(f, nullptr);
  EXPECT_DOUBLE_EQ(f->saving_ns, 300 * 6e3);  // less than the 3.8 ms idle
  EXPECT_NE(f->evidence.find("300 of 400 launches (75.0 %)"), std::string::npos) << f->evidence;
}

TEST(TimelineRules, LongKernelsOrAFewLaunchesAreNotLaunchBound) {
  EXPECT_EQ(Find(EvaluateTimelineRules(Timeline(Device(10, 6), {Kernel("gemm", 400, 15e3)})), "launch_bound"), nullptr);
  EXPECT_EQ(Find(EvaluateTimelineRules(Timeline(Device(10, 6), {Kernel("add", 50, 4e3)})), "launch_bound"), nullptr);
}

model::ApiSummaryRow Api(const char* name, std::int64_t calls, double total_ms) {
  model::ApiSummaryRow a;
  a.name = name;
  a.calls = calls;
  a.time.total_ns = total_ms * 1e6;
  return a;
}

TEST(TimelineRules, SynchronisingCallsAreBoundedByTheIdleTime) {
  auto e = Timeline(Device(100, 70), {Kernel("gemm", 10, 7e6)});
  e.api_calls = {Api("cudaDeviceSynchronize", 4, 50), Api("cudaMemcpy", 10, 5), Api("cudaMemcpyAsync", 100, 20),
                 Api("cudaLaunchKernel", 10, 1)};
  const auto r = EvaluateTimelineRules(e);
  const TimelineFinding* f = Find(r, "sync_calls");
  ASSERT_NE(f, nullptr);
  EXPECT_DOUBLE_EQ(f->saving_ns, 30e6);  // 55 ms of blocking calls, but only 30 ms idle
  EXPECT_NE(f->evidence.find("14 synchronising call(s), 55.000 ms"), std::string::npos) << f->evidence;
  EXPECT_EQ(f->evidence.find("Async"), std::string::npos);
}

TEST(TimelineRules, AsyncCopiesAreNotSynchronising) {
  auto e = Timeline(Device(100, 70), {Kernel("gemm", 10, 7e6)});
  e.api_calls = {Api("cudaMemcpyAsync", 100, 60), Api("cudaStreamSynchronize", 1, 1)};  // 1 % of the span
  EXPECT_EQ(Find(EvaluateTimelineRules(e), "sync_calls"), nullptr);
}

TEST(TimelineRules, WithoutAnApiSummaryTheSyncRuleSaysItCannotTell) {
  const auto r = EvaluateTimelineRules(Timeline(Device(100, 60), {Kernel("gemm", 10, 6e6)}));
  // The device has no launch calls and no CPU ops either: the per-device rules that need them say so too.
  ASSERT_EQ(r.not_evaluated.size(), 3u);
  EXPECT_EQ(r.not_evaluated[0].rfind("idle_host_wait:", 0), 0u);
  EXPECT_EQ(r.not_evaluated[1].rfind("cpu_op_starving:", 0), 0u);
  EXPECT_EQ(r.not_evaluated[2].rfind("sync_calls:", 0), 0u);
}

TEST(TimelineRules, ASummaryWithoutTimelineGetsTheSyncRuleWithNoSpan) {
  TimelineEvidence e;
  e.api_calls = {Api("cudaDeviceSynchronize", 4, 72.874014)};
  const auto r = EvaluateTimelineRules(e);
  const TimelineFinding* f = Find(r, "sync_calls");
  ASSERT_NE(f, nullptr);
  EXPECT_DOUBLE_EQ(f->saving_ns, 72.874014e6);
  EXPECT_FALSE(f->saving_pct.has_value());
  EXPECT_TRUE(EvaluateTimelineRules(TimelineEvidence{}).not_evaluated.empty());  // an ncu input: nothing to say
}

TEST(TimelineRules, ModuleLoadingIsCalledAStartUpCost) {
  TimelineEvidence e;
  e.api_calls = {Api("cuModuleLoadData", 7, 300), Api("cudaLaunchKernel", 1000, 700)};
  const TimelineFinding* f = nullptr;
  const auto r = EvaluateTimelineRules(e);
  f = Find(r, "startup_cost");
  ASSERT_NE(f, nullptr);
  EXPECT_DOUBLE_EQ(f->saving_ns, 300e6);
  EXPECT_NE(f->evidence.find("30.0 % of all CUDA API time"), std::string::npos) << f->evidence;
  e.api_calls = {Api("cuModuleLoadData", 7, 100), Api("cudaLaunchKernel", 1000, 900)};  // 10 %
  EXPECT_EQ(Find(EvaluateTimelineRules(e), "startup_cost"), nullptr);
}

// Three devices busy 40, 20 and 21 ms over 50 ms spans: the busiest is 90 %
// above the median (21); the mean is 27, so balanced each span could shrink
// by 13 ms: 39 ms over the devices, under their 69 ms of idle time.
TEST(TimelineRules, ADeviceWithMuchMoreWorkIsAStraggler) {
  auto e = Timeline(Device(50, 40), {Kernel("gemm", 10, 4e6)});
  DeviceBusy b = Device(50, 20), c = Device(50, 21);
  b.device = "1", c.device = "2";
  e.devices.push_back(b);
  e.devices.push_back(c);
  const TimelineFinding* f = nullptr;
  const auto r = EvaluateTimelineRules(e);
  f = Find(r, "rank_straggler");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->scope, "device 0");
  EXPECT_NEAR(f->saving_ns, 39e6, 1);
  EXPECT_NEAR(*f->saving_pct, 100 * 39.0 / 150, 1e-9);
  EXPECT_NE(f->evidence.find("90 % above the median device's 21.000 ms"), std::string::npos) << f->evidence;
}

// 24 ms against a median of 20: 20 % above, under the 25 % threshold; one
// device alone is never a straggler.
TEST(TimelineRules, BalancedDevicesHaveNoStraggler) {
  auto e = Timeline(Device(50, 24), {Kernel("gemm", 10, 2.4e6)});
  DeviceBusy b = Device(50, 20), c = Device(50, 19);
  b.device = "1", c.device = "2";
  e.devices.push_back(b);
  e.devices.push_back(c);
  EXPECT_EQ(Find(EvaluateTimelineRules(e), "rank_straggler"), nullptr);
  EXPECT_EQ(Find(EvaluateTimelineRules(Timeline(Device(50, 40), {})), "rank_straggler"), nullptr);
}

}  // namespace
}  // namespace llmpo::analysis
