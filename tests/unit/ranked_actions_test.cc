// "What to do first" (report/ranked_actions.h): timeline findings and kernel
// actions in one list, ranked by the share of one measured time, the shares
// computed by hand.
#include "src/report/ranked_actions.h"

#include <gtest/gtest.h>

#include "src/report/kernels_report.h"

namespace llmpo::report {
namespace {

SourceInfo Source(const char* path, model::SourceFamily family) {
  SourceInfo s;
  s.path = path;
  s.format = "test";
  s.family = family;
  return s;
}

analysis::KernelAggregate Kernel(const char* source, const char* name, double total_ms) {
  analysis::KernelAggregate k;
  k.source = source;
  k.name = name;
  k.calls = k.timed_calls = 10;
  k.total_ns = total_ms * 1e6;
  return k;
}

Action GemmAction(double time_ms, double share_pct, double speedup_pct) {
  Action a;
  a.kernel = "gemm";
  a.category = "gemm";
  a.time_ns = time_ms * 1e6;
  a.share_pct = share_pct;
  a.speedup_pct = speedup_pct;
  a.saving_pct_of_gpu = share_pct * speedup_pct / 100;
  a.basis = "ncu global estimate";
  a.rule = "SOLBottleneck";
  return a;
}

analysis::TimelineFinding Finding(const char* rule, double saving_ms) {
  analysis::TimelineFinding f;
  f.rule = rule;
  f.scope = "host";
  f.saving_ns = saving_ms * 1e6;
  return f;
}

// A timeline of two devices, spans 100 and 50 ms (150 ms measured), gpu_idle
// 70 ms, and the gemm kernel (40 ms of its time) with a 25 % ncu estimate:
// 10 ms, 6.67 % of 150 ms, after gpu_idle's 46.7 %.
TEST(RankedActions, ATimelineRanksFindingsAndKernelsByTheShareOfItsDeviceSpans) {
  KernelsReport r;
  r.sources = {Source("t.json", model::SourceFamily::kTimeline), Source("k.ncu-rep", model::SourceFamily::kNcu)};
  r.times_from = "t.json";
  r.kernels = KernelRows({Kernel("t.json", "gemm", 40)});
  for (double span_ms : {100.0, 50.0}) {
    analysis::DeviceBusy d;
    d.source = "t.json";
    d.span_ns = span_ms * 1e6;
    r.gpu_busy.push_back(d);
  }
  r.gpu_busy.push_back(analysis::DeviceBusy{});  // another input's device: not measured here
  r.gpu_busy.back().source = "other.json", r.gpu_busy.back().span_ns = 1e9;
  r.actions = {GemmAction(40, 100, 25)};
  r.timeline_rules.findings = {Finding("gpu_idle", 70)};
  const RankedActions ranked = RankTogether(r);
  EXPECT_EQ(ranked.base, RankBase::kDeviceSpan);
  EXPECT_DOUBLE_EQ(*ranked.base_ns, 150e6);
  EXPECT_EQ(ranked.devices, 2u);
  ASSERT_EQ(ranked.items.size(), 2u);
  EXPECT_EQ(ranked.items[0].what, "gpu_idle");
  EXPECT_NEAR(*ranked.items[0].saving_pct, 100 * 70.0 / 150, 1e-9);
  EXPECT_EQ(ranked.items[1].what, "gemm");
  EXPECT_DOUBLE_EQ(*ranked.items[1].saving_ns, 10e6);
  EXPECT_NEAR(*ranked.items[1].saving_pct, 100 * 10.0 / 150, 1e-9);
  EXPECT_NE(BaseText(ranked).find("2 device(s) summed"), std::string::npos);
  for (const auto& n : ranked.notes) EXPECT_EQ(n.find("serialises"), std::string::npos) << n;
}

// A kernel saving more than the idle time ranks first: the order is by share.
TEST(RankedActions, ALargerKernelSavingRanksBeforeASmallerFinding) {
  KernelsReport r;
  r.sources = {Source("t.json", model::SourceFamily::kTimeline)};
  r.times_from = "t.json";
  r.kernels = KernelRows({Kernel("t.json", "gemm", 80)});  // the timing input is the input with kernels
  analysis::DeviceBusy d;
  d.source = "t.json", d.span_ns = 100e6;
  r.gpu_busy = {d};
  r.actions = {GemmAction(80, 100, 50)};  // 40 ms
  r.timeline_rules.findings = {Finding("gpu_idle", 15)};
  const RankedActions ranked = RankTogether(r);
  ASSERT_EQ(ranked.items.size(), 2u);
  EXPECT_EQ(ranked.items[0].kind, "kernel");
  EXPECT_DOUBLE_EQ(*ranked.items[0].saving_pct, 40);
  EXPECT_DOUBLE_EQ(*ranked.items[1].saving_pct, 15);
}

// An ncu capture alone: shares of ncu's kernel durations, with the note that
// they are not the application's time shares.
TEST(RankedActions, AnNcuCaptureAloneSaysItsDurationsAreNotApplicationShares) {
  KernelsReport r;
  r.sources = {Source("k.ncu-rep", model::SourceFamily::kNcu)};
  r.times_from = "k.ncu-rep";
  r.kernels = KernelRows({Kernel("k.ncu-rep", "gemm", 2), Kernel("k.ncu-rep", "add", 2)});
  r.actions = {GemmAction(2, 50, 20)};
  const RankedActions ranked = RankTogether(r);
  EXPECT_EQ(ranked.base, RankBase::kNcuKernelTime);
  EXPECT_DOUBLE_EQ(*ranked.base_ns, 4e6);
  ASSERT_EQ(ranked.items.size(), 1u);
  EXPECT_DOUBLE_EQ(*ranked.items[0].saving_pct, 10);  // 0.4 ms of 4 ms
  ASSERT_FALSE(ranked.notes.empty());
  EXPECT_NE(ranked.notes[0].find("ncu serialises kernels and fixes the clocks"), std::string::npos);
}

// An nsys summary has no span: host findings are listed after the ranked
// kernel actions, without a share, and never compared with kernel time.
TEST(RankedActions, HostFindingsWithoutASpanAreNotRanked) {
  KernelsReport r;
  r.sources = {Source("stats", model::SourceFamily::kSummary)};
  r.times_from = "stats";
  r.kernels = KernelRows({Kernel("stats", "gemm", 10)});
  r.actions = {GemmAction(10, 100, 10)};
  r.timeline_rules.findings = {Finding("startup_cost", 500)};
  const RankedActions ranked = RankTogether(r);
  EXPECT_EQ(ranked.base, RankBase::kGpuKernelTime);
  ASSERT_EQ(ranked.items.size(), 2u);
  EXPECT_EQ(ranked.items[0].what, "gemm");
  EXPECT_EQ(ranked.items[1].what, "startup_cost");
  EXPECT_FALSE(ranked.items[1].saving_pct.has_value());
  EXPECT_DOUBLE_EQ(*ranked.items[1].saving_ns, 500e6);
  std::string md;
  RankedActionsMd(md, ranked);
  EXPECT_NE(md.find("| - | startup_cost |"), std::string::npos) << md;  // no rank number
  EXPECT_NE(md.find("never add them"), std::string::npos);
}

// Without any action or finding: why there are none.
TEST(RankedActions, NothingToRankSaysWhy) {
  KernelsReport r;
  r.sources = {Source("stats", model::SourceFamily::kSummary)};
  r.times_from = "stats";
  r.kernels = KernelRows({Kernel("stats", "gemm", 10)});
  r.why_no_actions = "no kernel has ncu findings";
  const RankedActions ranked = RankTogether(r);
  EXPECT_TRUE(ranked.items.empty());
  std::string md;
  RankedActionsMd(md, ranked);
  EXPECT_NE(md.find("No ranked actions: no kernel has ncu findings."), std::string::npos) << md;
}

}  // namespace
}  // namespace llmpo::report
