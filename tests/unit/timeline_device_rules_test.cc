// The per-device timeline facts (analysis/device_waits.h, GpuTimeline's CPU
// op matching) and the rules that read them (timeline_device_rules.h): each
// rule on a hand-made case that fires and one that must not; every expected
// number is worked out by hand in the comments.
#include "src/analysis/timeline_device_rules.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "src/analysis/device_waits.h"
#include "src/analysis/gpu_timeline.h"

namespace llmpo::analysis {
namespace {

constexpr std::int64_t kUs = 1000;

model::LaunchRecord Op(std::int64_t start_us, std::int64_t end_us, std::optional<std::int64_t> call_us,
                       model::LaunchKind kind = model::LaunchKind::kKernel, std::string memory = "") {
  model::LaunchRecord l;
  l.kind = kind;
  l.kernel_name = kind == model::LaunchKind::kKernel ? "k" : "[CUDA memcpy]";
  l.device = "0";
  l.start_ns = start_us * kUs;
  l.end_ns = end_us * kUs;
  l.duration_ns = static_cast<double>((end_us - start_us) * kUs);
  if (call_us) l.launch_call_start_ns = *call_us * kUs;
  l.copy_memory = std::move(memory);
  return l;
}

// Busy [0,100) [110,200) [300,400) [500,600) [700,1000) us: 690 us of a
// 1000 us span. Gaps: 10 us whose op was launched at 50 (before 100: kernel
// wait), 100 us launched at 250 (after 200: host wait), 100 us launched at
// 150 (before 400, over 30 us: other), 100 us ending at a copy without a
// launch call (unclassified). Kernels alone cover 100+90+100+100+150 = 540
// us, so copies run alone for 690 - 540 = 150 us (700..850).
std::vector<model::LaunchRecord> SixOps() {
  return {Op(0, 100, -10),
          Op(110, 200, 50),
          Op(300, 400, 250),
          Op(500, 600, 150),
          Op(700, 900, std::nullopt, model::LaunchKind::kMemcpy, "Pageable -> Device"),
          Op(850, 1000, 0)};
}

TEST(DeviceWaits, SplitsIdleAsHtaDoesInAnyArrivalOrder) {
  auto ops = SixOps();
  std::mt19937 shuffle(7);
  for (int round = 0; round < 3; ++round) {
    DeviceWaits w;
    for (const auto& op : ops) w.Add(op);
    const TimelineFacts& f = w.Finish();
    ASSERT_TRUE(f.missing.empty());
    EXPECT_EQ(f.gaps, 4u);
    EXPECT_DOUBLE_EQ(*f.kernel_wait_ns, 10e3);
    EXPECT_DOUBLE_EQ(*f.host_wait_ns, 100e3);
    EXPECT_DOUBLE_EQ(*f.other_wait_ns, 100e3);
    EXPECT_DOUBLE_EQ(*f.unclassified_wait_ns, 100e3);
    EXPECT_DOUBLE_EQ(*f.kernel_busy_ns, 540e3);
    EXPECT_DOUBLE_EQ(*f.copy_only_ns, 150e3);
    EXPECT_DOUBLE_EQ(f.copy_ns, 200e3);
    EXPECT_EQ(f.pageable_copies, 1u);
    EXPECT_EQ(f.copies_with_memory, 1u);
    EXPECT_EQ(f.with_launch_call, 5u);
    std::shuffle(ops.begin(), ops.end(), shuffle);
  }
}

TEST(DeviceWaits, AnOperationBehindTheWindowMakesTheFactsUnknown) {
  DeviceWaits w;
  for (std::size_t i = 0; i <= DeviceWaits::kWindow + 10; ++i) {
    const auto at = static_cast<std::int64_t>(10 + 2 * i);
    w.Add(Op(at, at + 1, at - 1));
  }
  w.Add(Op(0, 1, 0));  // before operations already taken out of the window
  const TimelineFacts& f = w.Finish();
  EXPECT_FALSE(f.missing.empty());
  EXPECT_FALSE(f.host_wait_ns.has_value());
  EXPECT_FALSE(f.copy_only_ns.has_value());
}

// Device busy [0,1) and [3,4) ms: one 2 ms idle stretch. "tokenize" (0.9 to
// 3.1 ms) and "step" (0 to 4 ms) both ran through all of it (2.2 and 4 ms:
// 91 % and 50 %); the shorter wins the tie. "log" (0.5 ms) is too short to
// count, "gemm_call" (0 to 1.2 ms) saw only 0.2 ms of idle.
TEST(GpuTimelineCpuOps, TheOpTheDeviceIdledThroughIsFound) {
  GpuTimeline t;
  t.SetSource("t.json");
  t.OnLaunch(Op(0, 1000, -5));
  t.OnLaunch(Op(3000, 4000, 3000));
  for (const auto& [name, start, end] : {std::tuple{"tokenize", 900, 3100}, std::tuple{"step", 0, 4000},
                                         std::tuple{"log", 1500, 2000}, std::tuple{"gemm_call", 0, 1200}}) {
    t.OnCpuOp({name, {}, start * kUs, end * kUs});
  }
  const auto busy = t.Busy();
  ASSERT_EQ(busy.size(), 1u);
  const TimelineFacts& f = busy[0].facts;
  EXPECT_EQ(f.cpu_ranges, 3u);  // "log" is under 1 ms
  EXPECT_EQ(f.starving_op, "tokenize");
  EXPECT_DOUBLE_EQ(*f.starving_idle_ns, 2e6);
  EXPECT_DOUBLE_EQ(*f.starving_op_ns, 2.2e6);
  EXPECT_DOUBLE_EQ(*f.host_wait_ns, 2e6);  // launched at 3 ms, after the device went idle at 1 ms
}

TEST(GpuTimelineCpuOps, AnOpWhileTheDeviceWorksStarvesNothing) {
  GpuTimeline t;
  t.SetSource("t.json");
  for (int i = 0; i < 10; ++i) t.OnLaunch(Op(i * 1000, i * 1000 + 990, i * 1000 - 5));
  t.OnCpuOp({"forward", {}, 0, 10'000 * kUs});
  const TimelineFacts f = t.Busy()[0].facts;
  EXPECT_EQ(f.cpu_ranges, 1u);
  EXPECT_TRUE(f.starving_op.empty());
  EXPECT_FALSE(f.starving_idle_ns.has_value());
}

// A device from GpuTimeline (so the facts are real) for the rules.
TimelineEvidence EvidenceOf(const std::vector<model::LaunchRecord>& ops, std::vector<model::CpuOp> cpu = {}) {
  GpuTimeline t;
  t.SetSource("t.json");
  for (const auto& op : ops) t.OnLaunch(op);
  for (const auto& op : cpu) t.OnCpuOp(op);
  TimelineEvidence e;
  e.times_from = "t.json";
  e.timeline = true;
  e.devices = t.Busy();
  return e;
}

const TimelineFinding* Find(const TimelineRulesResult& r, const std::string& rule) {
  for (const auto& f : r.findings) {
    if (f.rule == rule) return &f;
  }
  return nullptr;
}

bool NotEvaluated(const TimelineRulesResult& r, const std::string& rule) {
  return std::any_of(r.not_evaluated.begin(), r.not_evaluated.end(),
                     [&](const std::string& why) { return why.starts_with(rule + ":"); });
}

TEST(DeviceRules, SixOpsFireHostWaitCopiesAndPageable) {
  const auto r = EvaluateTimelineRules(EvidenceOf(SixOps()));
  const TimelineFinding* host = Find(r, "idle_host_wait");  // 100 us of 1000: 10 %
  ASSERT_NE(host, nullptr);
  EXPECT_DOUBLE_EQ(host->saving_ns, 100e3);
  EXPECT_EQ(host->scope, "device 0");
  EXPECT_NE(host->evidence.find("host wait 0.100 ms (10.0 %), kernel wait 0.010 ms, other 0.100 ms, unclassified"),
            std::string::npos)
      << host->evidence;
  const TimelineFinding* copies = Find(r, "copy_not_overlapped");  // 150 us: 15 %
  ASSERT_NE(copies, nullptr);
  EXPECT_DOUBLE_EQ(copies->saving_ns, 150e3);
  const TimelineFinding* pageable = Find(r, "pageable_copies");  // 200 us: 20 %
  ASSERT_NE(pageable, nullptr);
  EXPECT_DOUBLE_EQ(pageable->saving_ns, 200e3);
  EXPECT_FALSE(NotEvaluated(r, "idle_host_wait"));
  EXPECT_TRUE(NotEvaluated(r, "cpu_op_starving"));  // no CPU ops given
}

TEST(DeviceRules, BackToBackKernelsLaunchedAheadFireNothing) {
  // 100 kernels of 9 us, 1 us apart, each launched long before: kernel wait only;
  // one pinned copy overlapped by a kernel.
  std::vector<model::LaunchRecord> ops;
  for (int i = 0; i < 100; ++i) ops.push_back(Op(i * 10, i * 10 + 9, 0));
  ops.push_back(Op(100, 150, std::nullopt, model::LaunchKind::kMemcpy, "Pinned -> Device"));
  const auto r = EvaluateTimelineRules(EvidenceOf(ops));
  for (const char* rule : {"idle_host_wait", "copy_not_overlapped", "pageable_copies", "cpu_op_starving"})
    EXPECT_EQ(Find(r, rule), nullptr) << rule;
}

TEST(DeviceRules, ALongCpuOpStarvesTheGpu) {
  const auto r = EvaluateTimelineRules(
      EvidenceOf({Op(0, 1000, -5), Op(3000, 4000, 3000)}, {{"tokenize", {}, 900 * kUs, 3100 * kUs}}));
  const TimelineFinding* f = Find(r, "cpu_op_starving");
  ASSERT_NE(f, nullptr);
  EXPECT_DOUBLE_EQ(f->saving_ns, 2e6);
  EXPECT_DOUBLE_EQ(*f->saving_pct, 50);  // 2 of the 4 ms span
  EXPECT_NE(f->evidence.find("'tokenize' ran (2.200 ms"), std::string::npos) << f->evidence;
}

TEST(DeviceRules, AGpuOnlyTimelineSaysWhatItCannotEvaluate) {
  std::vector<model::LaunchRecord> ops;
  for (int i = 0; i < 10; ++i) ops.push_back(Op(i * 100, i * 100 + 50, std::nullopt));
  ops.push_back(Op(1000, 1100, std::nullopt, model::LaunchKind::kMemcpy));
  const auto r = EvaluateTimelineRules(EvidenceOf(ops));
  EXPECT_TRUE(NotEvaluated(r, "idle_host_wait"));
  EXPECT_TRUE(NotEvaluated(r, "cpu_op_starving"));
  EXPECT_TRUE(NotEvaluated(r, "pageable_copies"));
  EXPECT_TRUE(NotEvaluated(r, "sync_calls"));
  EXPECT_EQ(Find(r, "idle_host_wait"), nullptr);
}

KernelAggregate Kernel(const char* name, std::uint64_t calls, double mean_ns) {
  KernelAggregate k;
  k.name = name;
  k.calls = k.timed_calls = calls;
  k.total_ns = mean_ns * static_cast<double>(calls);
  return k;
}

TEST(DeviceRules, ManyShortKernelsMakeASmallKernelTail) {
  // 200 x 5 us = 1 ms of 4 ms kernel time (25 %); 10 x 300 us = 3 ms.
  auto e = EvidenceOf({Op(0, 5000, 0)});
  e.kernels = {Kernel("add", 200, 5e3), Kernel("gemm", 10, 300e3)};
  const TimelineFinding* f = Find(EvaluateTimelineRules(e), "small_kernel_tail");
  ASSERT_NE(f, nullptr);
  EXPECT_DOUBLE_EQ(f->saving_ns, 1e6);
  EXPECT_NE(f->evidence.find("200 launches, 1.000 ms, 25.0 % of the 4.000 ms GPU kernel time"), std::string::npos)
      << f->evidence;
  // 200 x 5 us against 10 x 500 us: 1 of 6 ms, 16.7 %: under the threshold.
  e.kernels = {Kernel("add", 200, 5e3), Kernel("gemm", 10, 500e3)};
  EXPECT_EQ(Find(EvaluateTimelineRules(e), "small_kernel_tail"), nullptr);
  // 50 x 5 us against 1 x 500 us: a third, but under 100 launches.
  e.kernels = {Kernel("add", 50, 5e3), Kernel("gemm", 1, 500e3)};
  EXPECT_EQ(Find(EvaluateTimelineRules(e), "small_kernel_tail"), nullptr);
}

}  // namespace
}  // namespace llmpo::analysis
