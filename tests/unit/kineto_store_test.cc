// The Kineto reader's compact records (trace_store.h): a GPU op keeps its
// (device, stream) as a number into the trace's lanes, and the packed fields
// hold the whole range of times the reader accepts.
#include <gtest/gtest.h>

#include <cstdint>

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

}  // namespace
}  // namespace llmpo::ingest::kineto
