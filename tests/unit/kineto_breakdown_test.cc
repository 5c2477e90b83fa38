// StreamingBreakdown (ingest/kineto/breakdown.h) gives FillTemporalBreakdown's
// numbers without keeping the ops, and refuses when they come too far out of
// start order.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "src/ingest/kineto/breakdown.h"

namespace llmpo::ingest::kineto {
namespace {

model::DeviceBreakdown Sorted(const std::vector<ClassifiedOp>& ops) {
  model::DeviceBreakdown d;
  FillTemporalBreakdown(ops, d);
  return d;
}

// Span, busy, idle and the classes, of a device's or a step's breakdown.
template <class Breakdown>
void ExpectSame(const Breakdown& a, const Breakdown& b) {
  EXPECT_EQ(a.span_ns, b.span_ns);
  EXPECT_EQ(a.busy_ns, b.busy_ns);
  EXPECT_EQ(a.idle_ns, b.idle_ns);
  EXPECT_EQ(a.classes.computation_ns, b.classes.computation_ns);
  EXPECT_EQ(a.classes.communication_ns, b.classes.communication_ns);
  EXPECT_EQ(a.classes.memory_ns, b.classes.memory_ns);
  EXPECT_EQ(a.classes.comm_comp_overlap_pct, b.classes.comm_comp_overlap_pct);
}

// Ops of three classes on several streams: overlapping, nested, touching,
// zero-length; each shuffled by at most `jitter` places from start order.
std::vector<ClassifiedOp> MakeOps(std::size_t n, std::size_t jitter, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<ClassifiedOp> ops;
  std::int64_t t = 1000;
  const KernelClass kinds[] = {KernelClass::kComputation, KernelClass::kCommunication, KernelClass::kMemory,
                               KernelClass::kComputation};
  for (std::size_t i = 0; i < n; ++i) {
    t += static_cast<std::int64_t>(rng() % 40);
    const std::int64_t length = rng() % 7 == 0 ? 0 : static_cast<std::int64_t>(rng() % 300);
    ops.push_back({{t, t + length}, kinds[rng() % 4]});
  }
  if (jitter == 0) return ops;
  std::vector<std::pair<std::size_t, ClassifiedOp>> keyed;  // each moved by fewer than `jitter` places
  for (std::size_t i = 0; i < ops.size(); ++i) keyed.push_back({i + rng() % jitter, ops[i]});
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t i = 0; i < ops.size(); ++i) ops[i] = keyed[i].second;
  return ops;
}

TEST(KinetoStreamingBreakdown, SameAsSortedWithinTheWindow) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const auto ops = MakeOps(20000, seed % 2 == 0 ? 0 : 200, seed);
    StreamingBreakdown streaming;
    for (const auto& op : ops) streaming.Add(op.interval, op.kind);
    model::DeviceBreakdown d;
    ASSERT_TRUE(streaming.Finish(d)) << "seed " << seed;
    ExpectSame(d, Sorted(ops));
    EXPECT_TRUE(d.classes.comm_comp_overlap_pct.has_value());
  }
}

// Each op in one of a few steps (some in none), the steps interleaved as a
// step's ops from two launching threads are: per step the streaming
// breakdown gives what sorting that step's ops gives (StepBreakdowns).
TEST(KinetoStreamingBreakdown, PerStepSameAsSortedPerStep) {
  for (unsigned seed = 1; seed <= 10; ++seed) {
    const auto ops = MakeOps(20000, seed % 2 == 0 ? 0 : 200, seed);
    std::mt19937 rng(seed + 100);
    std::vector<std::uint32_t> step_of;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const auto step = static_cast<std::uint32_t>(i * 5 / ops.size());  // five steps in time order
      step_of.push_back(rng() % 9 == 0 ? kNoStep : (rng() % 11 == 0 ? (step + 1) % 5 : step));
    }
    StreamingBreakdown streaming;
    for (std::size_t i = 0; i < ops.size(); ++i) streaming.Add(ops[i].interval, ops[i].kind, step_of[i]);
    model::DeviceBreakdown d;
    std::vector<std::pair<std::uint32_t, model::StepBreakdown>> got;
    ASSERT_TRUE(streaming.Finish(d, &got)) << "seed " << seed;
    ExpectSame(d, Sorted(ops));  // the device's numbers do not move
    const auto want = StepBreakdowns(ops, step_of);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].first, want[i].first);
      EXPECT_EQ(got[i].second.gpu_ops, want[i].second.gpu_ops);
      ExpectSame(got[i].second, want[i].second);
    }
  }
}

TEST(KinetoStreamingBreakdown, OverlapOfCommunicationAndComputation) {
  StreamingBreakdown streaming;
  streaming.Add({0, 100}, KernelClass::kComputation);
  streaming.Add({50, 150}, KernelClass::kCommunication);  // 50 of its 100 ns under compute
  streaming.Add({200, 300}, KernelClass::kCommunication);
  streaming.Add({250, 260}, KernelClass::kComputation);  // 10 more
  model::DeviceBreakdown d;
  ASSERT_TRUE(streaming.Finish(d));
  EXPECT_EQ(d.classes.communication_ns, 200);
  EXPECT_EQ(d.classes.computation_ns, 110);
  ASSERT_TRUE(d.classes.comm_comp_overlap_pct.has_value());
  EXPECT_DOUBLE_EQ(*d.classes.comm_comp_overlap_pct, 30.0);
  EXPECT_EQ(d.busy_ns, 250);
  EXPECT_EQ(d.span_ns, 300);
}

TEST(KinetoStreamingBreakdown, NoCommunicationLeavesOverlapUnknown) {
  StreamingBreakdown streaming;
  streaming.Add({0, 100}, KernelClass::kComputation);
  model::DeviceBreakdown d;
  ASSERT_TRUE(streaming.Finish(d));
  EXPECT_FALSE(d.classes.comm_comp_overlap_pct.has_value());
  ExpectSame(d, Sorted({{{0, 100}, KernelClass::kComputation}}));
}

TEST(KinetoStreamingBreakdown, RefusesOpsLaterThanTheWindow) {
  StreamingBreakdown streaming;
  streaming.Add({5, 10}, KernelClass::kComputation);
  for (std::size_t i = 0; i <= StreamingBreakdown::kWindow; ++i) {
    const auto t = static_cast<std::int64_t>(100 + i);
    streaming.Add({t, t + 1}, KernelClass::kComputation);
  }
  streaming.Add({0, 1}, KernelClass::kComputation);  // before ops already folded
  model::DeviceBreakdown d;
  d.busy_ns = -1;
  EXPECT_FALSE(streaming.Finish(d));
  EXPECT_EQ(d.busy_ns, -1);  // untouched: the caller sorts every op instead
}

}  // namespace
}  // namespace llmpo::ingest::kineto
