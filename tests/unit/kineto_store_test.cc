// The Kineto reader's compact records (trace_store.h): a GPU op keeps its
// (device, stream) as a number into the trace's lanes, and the packed fields
// hold the whole range of times the reader accepts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "src/ingest/kineto/id_merge.h"
#include "src/ingest/kineto/partition_near.h"
#include "src/ingest/kineto/span_sweep.h"
#include "src/ingest/kineto/trace_reader.h"
#include "src/ingest/kineto/trace_store.h"

namespace llmpo::ingest::kineto {
namespace {

TEST(KinetoLanes, NumbersEachDistinctDeviceAndStreamOnceInOrderOfFirstUse) {
  Lanes lanes;
  EXPECT_EQ(lanes.Intern({0, 7}), 0u);
  EXPECT_EQ(lanes.Intern({0, 7}), 0u);  // the run's lane again
  EXPECT_EQ(lanes.Intern({1, 7}), 1u);  // same stream, another device
  EXPECT_EQ(lanes.Intern({0, 8}), 2u);
  EXPECT_EQ(lanes.Intern({0, 7}), 0u);  // an earlier lane, not the last one
  EXPECT_EQ(lanes.Intern({-1, -1}), 3u);
  EXPECT_EQ(lanes.Intern({0, INT64_MIN}), 4u);  // a stream id of 64 bits ("-9223372036854775808")
  ASSERT_EQ(lanes.size(), 5u);
  EXPECT_EQ(lanes[1], (Lane{1, 7}));
  EXPECT_EQ(lanes[3], (Lane{-1, -1}));
  EXPECT_EQ(lanes[4].stream, INT64_MIN);
}

TEST(KinetoRecords, PackedTimesAndFlagsKeepTheExtremesTheReaderAccepts) {
  const std::int64_t most = kMaxAbsTimeNs - 1;  // TimeInRange's bounds, exclusive
  GpuOp op;
  op.start = -most, op.end = most;
  op.has_correlation = true, op.has_external_id = true;
  op.kind = GpuOpKind::kSync;
  op.lane = Lanes::kMax - 1;
  EXPECT_EQ(op.start, -most);
  EXPECT_EQ(op.end, most);
  EXPECT_TRUE(op.has_correlation);
  EXPECT_TRUE(op.has_external_id);
  EXPECT_EQ(op.kind, GpuOpKind::kSync);
  EXPECT_EQ(op.lane, Lanes::kMax - 1);
  op.has_correlation = false;
  EXPECT_EQ(op.start, -most);  // a flag's write leaves its neighbour alone
  EXPECT_EQ(op.end, most);
  CpuOp cpu;
  cpu.start = -most, cpu.end = most, cpu.has_external_id = true;
  EXPECT_EQ(cpu.start, -most);
  EXPECT_EQ(cpu.end, most);
  EXPECT_TRUE(cpu.has_external_id);
}

GpuOp OpWith(std::optional<std::uint64_t> correlation, std::optional<std::uint64_t> external_id) {
  GpuOp op;
  if (correlation) op.correlation = *correlation, op.has_correlation = true;
  if (external_id) op.external_id = *external_id, op.has_external_id = true;
  return op;
}

TEST(KinetoIdMerge, FindsTheFirstCallWithTheOpsCorrelation) {
  std::vector<HostCall> calls(5);
  const std::optional<std::uint64_t> ids[] = {std::nullopt, 2, 2, 4, 9};
  for (std::size_t i = 0; i < calls.size(); ++i) {
    if (ids[i]) calls[i].correlation = *ids[i], calls[i].has_correlation = true;
  }
  CallMerge merge(calls);
  EXPECT_EQ(merge.Find(OpWith(0, std::nullopt)), kNoIndex);  // the call without an id is no match for 0
  EXPECT_EQ(merge.Find(OpWith(2, std::nullopt)), 1u);        // the first of two
  EXPECT_EQ(merge.Find(OpWith(2, std::nullopt)), 1u);        // asked again: the same one
  EXPECT_EQ(merge.Find(OpWith(std::nullopt, 2)), kNoIndex);  // no correlation
  EXPECT_EQ(merge.Find(OpWith(3, std::nullopt)), kNoIndex);
  EXPECT_EQ(merge.position(), 3u);  // calls 0..2 are behind
  EXPECT_EQ(merge.Find(OpWith(4, std::nullopt)), 3u);
  EXPECT_EQ(merge.Find(OpWith(10, std::nullopt)), kNoIndex);
  EXPECT_EQ(merge.position(), calls.size());
}

TEST(KinetoIdMerge, FindsTheOneCpuOpWithTheOpsExternalIdAndNoneWhereItIsShared) {
  std::vector<CpuOp> ops(6);
  const std::optional<std::uint64_t> ids[] = {5, std::nullopt, 7, std::nullopt, 7, 9};
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ids[i]) ops[i].external_id = *ids[i], ops[i].has_external_id = true;
  }
  CpuOpMerge merge(ops);
  EXPECT_EQ(merge.Find(OpWith(1, 5)), 0u);
  EXPECT_EQ(merge.Find(OpWith(1, std::nullopt)), kNoIndex);
  EXPECT_EQ(merge.Find(OpWith(1, 6)), kNoIndex);
  EXPECT_EQ(merge.Find(OpWith(1, 7)), kNoIndex);  // two cpu_ops have it (one past a cpu_op without an id)
  EXPECT_EQ(merge.Find(OpWith(1, 9)), 5u);
  EXPECT_EQ(merge.Find(OpWith(1, 11)), kNoIndex);
}

CpuOp Span(std::uint32_t thread, std::int64_t start, std::int64_t end) {
  CpuOp op;
  op.thread = thread, op.start = start, op.end = end;
  return op;
}

// Threads interleaved, each in time order (the counting sort by thread), and
// the same spans with one thread out of order (the sort of keys): the sweep
// sees the same spans open.
TEST(KinetoSpanSweep, InterleavedThreadsGiveTheSameOpenSpansAsAFullSort) {
  const std::vector<CpuOp> interleaved = {Span(1, 0, 100), Span(0, 5, 50),  Span(1, 10, 20), Span(0, 5, 40),
                                          Span(2, 0, 9),   Span(1, 10, 15), Span(0, 60, 70), Span(1, 30, 90)};
  std::vector<CpuOp> shuffled = interleaved;
  std::swap(shuffled[1], shuffled[6]);  // thread 0 out of time order
  const auto open = [](const std::vector<CpuOp>& spans, std::uint32_t thread, std::int64_t t) {
    SpanSweep<CpuOp> sweep(spans);
    std::vector<std::vector<std::int64_t>> seen;  // (start, end) of the open spans, outermost first
    for (std::int64_t at = 0; at <= t; at += 5) {
      std::vector<std::int64_t> here;
      for (std::uint32_t i : sweep.OpenAt(thread, at)) here.insert(here.end(), {spans[i].start, spans[i].end});
      seen.push_back(here);
    }
    return seen;
  };
  for (std::uint32_t thread : {0u, 1u, 2u}) {
    EXPECT_EQ(open(interleaved, thread, 100), open(shuffled, thread, 100)) << thread;
  }
  SpanSweep<CpuOp> sweep(interleaved);
  const auto& at12 = sweep.OpenAt(1, 12);
  ASSERT_EQ(at12.size(), 3u);  // outermost first; of two with one start, the longer is outer
  EXPECT_EQ(at12[0], 0u);
  EXPECT_EQ(at12[1], 2u);
  EXPECT_EQ(at12[2], 5u);
}

// From every guess, on sorted lists with runs of equal values, the search
// from a guess finds what std::lower_bound and std::upper_bound find.
TEST(KinetoPartitionNear, FindsWhatABinarySearchFindsFromEveryGuess) {
  for (std::size_t n : {0u, 1u, 2u, 3u, 7u, 64u, 100u}) {
    std::vector<int> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<int>(i / 3) * 2;  // 0 0 0 2 2 2 4 ...
    for (int target = -1; target <= static_cast<int>(n) + 1; ++target) {
      const auto lower = static_cast<std::size_t>(std::lower_bound(v.begin(), v.end(), target) - v.begin());
      const auto upper = static_cast<std::size_t>(std::upper_bound(v.begin(), v.end(), target) - v.begin());
      for (std::size_t hint = 0; hint <= n + 2; ++hint) {
        std::size_t probes = 0;
        const auto below = [&](std::size_t i) { return ++probes, v.at(i) < target; };
        ASSERT_EQ(PartitionPointNear(n, hint, below), lower) << n << " " << target << " " << hint;
        const auto not_above = [&](std::size_t i) { return !(target < v.at(i)); };
        ASSERT_EQ(PartitionPointNear(n, hint, not_above), upper) << n << " " << target << " " << hint;
        if (hint == lower && n > 0) EXPECT_LE(probes, 2u);  // a right guess costs a probe or two
      }
    }
  }
}

}  // namespace
}  // namespace llmpo::ingest::kineto
