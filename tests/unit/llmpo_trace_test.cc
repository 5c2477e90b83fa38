#include "src/ingest/llmpo_trace.h"

#include <gtest/gtest.h>

#include <sstream>

#include "src/analysis/trace_summary.h"

namespace llmpo::ingest {
namespace {

Result<TraceData> Parse(const std::string& text, model::Diagnostics& d) {
  std::istringstream in(text);
  return ImportLlmpoTrace(in, "t.tsv", d);
}

TEST(LlmpoTraceTest, ReadsRecordsAndUnescapesNames) {
  model::Diagnostics d;
  auto t = Parse(
      "#llmpo-trace 1\nP\t7\t/bin/app\tCLOCK_MONOTONIC\nD\t1\tAlpha\nR\t7\t1\t0\t10\t30\ta\\tb\\\\c\n"
      "S\t4\t0\t7\t8\t5\t50\tse\nM\t7\t0\t12\tmark\nE\t60\texit\n",
      d);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->pid, 7);
  EXPECT_TRUE(t->complete);
  ASSERT_EQ(t->ranges.size(), 2u);
  EXPECT_EQ(t->ranges[0].name, "a\tb\\c");
  EXPECT_EQ(t->DomainName(t->ranges[0].domain), "Alpha");
  EXPECT_FALSE(t->ranges[1].push_pop);
  EXPECT_EQ(t->ranges[1].end_tid, 8u);
  EXPECT_EQ(t->marks.size(), 1u);
  EXPECT_TRUE(d.entries().empty());
}

TEST(LlmpoTraceTest, BadLinesAreCountedAndAMissingEndIsTruncation) {
  model::Diagnostics d;
  auto t = Parse("#llmpo-trace 1\nR\t7\t0\t0\t30\t10\tend_before_start\nQ\tunknown\nR\t7\t0\t0\t1\t2\tok\topen\n", d);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->ranges.size(), 1u);
  EXPECT_EQ(d.entries().at("bad_trace_line").count, 2u);
  EXPECT_EQ(d.entries().at("trace_truncated").severity, model::Severity::kDataLoss);
  EXPECT_TRUE(d.entries().count("range_open_at_exit"));
}

// W records (both clocks read together, at the start and the end) are kept
// as samples; one that does not parse is a bad line like any other.
TEST(LlmpoTraceTest, KeepsTheWallClockSamples) {
  model::Diagnostics d;
  auto t = Parse(
      "#llmpo-trace 1\nP\t7\t/bin/app\tCLOCK_MONOTONIC\th\t\nW\t100\t1796000000000000100\n"
      "R\t7\t0\t0\t110\t120\ta\nW\t130\tnot-a-number\nW\t140\t1796000000000000141\nE\t150\texit\n",
      d);
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->wall_clock.size(), 2u);
  EXPECT_EQ(t->wall_clock[0].monotonic_ns, 100);
  EXPECT_EQ(t->wall_clock[0].unix_ns, 1796000000000000100);
  EXPECT_EQ(t->wall_clock[1].unix_ns - t->wall_clock[1].monotonic_ns, 1796000000000000001);
  EXPECT_EQ(d.entries().at("bad_trace_line").count, 1u);
  EXPECT_EQ(t->ranges.size(), 1u);
}

TEST(LlmpoTraceTest, RefusesOtherFilesAndOtherVersions) {
  model::Diagnostics d;
  auto other = Parse("ID,Name\n", d);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().kind, ExitStatus::kInput);
  auto newer = Parse("#llmpo-trace 2\n", d);
  ASSERT_FALSE(newer.ok());
  EXPECT_NE(newer.error().message.find("unsupported trace version '2'"), std::string::npos);
}

TEST(LlmpoTraceTest, ShiftsCuptiRecordsOntoTheTraceClock) {
  model::Diagnostics d;
  auto t = Parse(
      "#llmpo-trace 1\nC\t1000000\nA\t7\t1\t1000150\t1000160\truntime\t1\n"
      "K\t0\t1\t7\t1\t1000300\t1000400\t1,1,1\t1,1,1\tk\nE\t500\texit\n",
      d);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->api_calls[0].start, 150u);
  EXPECT_EQ(t->gpu_ops[0].start, 300u);
  EXPECT_EQ(t->gpu_ops[0].end, 400u);
}

TEST(TraceSummaryTest, ProjectionUsesTheLaunchingThreadAndCallTime) {
  model::Diagnostics d;
  // Range r on thread 7 [100, 200]; kernels launched at 150 (thread 7, inside),
  // 160 (thread 8: another thread) and 250 (after r ended).
  auto t = Parse(
      "#llmpo-trace 1\nP\t7\t/bin/app\tx\nR\t7\t0\t0\t100\t200\tr\n"
      "A\t7\t1\t150\t151\truntime\t1\nA\t8\t2\t160\t161\truntime\t1\nA\t7\t3\t250\t251\truntime\t1\n"
      "K\t0\t1\t7\t1\t300\t400\t1,1,1\t1,1,1\tk\nK\t0\t1\t7\t2\t410\t500\t1,1,1\t1,1,1\tk\n"
      "K\t0\t1\t7\t3\t510\t600\t1,1,1\t1,1,1\tk\nE\t700\texit\n",
      d);
  ASSERT_TRUE(t.ok());
  const auto s = analysis::Summarize({*t});
  ASSERT_EQ(s.projection.size(), 1u);
  EXPECT_EQ(s.projection[0].gpu_ops, 1u);
  EXPECT_EQ(s.projection[0].projected.total, 100);  // the one kernel: 300..400
  EXPECT_EQ(s.projection[0].total_range_ns, 100);
  ASSERT_EQ(s.kernels.size(), 1u);
  EXPECT_EQ(s.kernels[0].stats.count, 3u);
  EXPECT_EQ(s.kernels[0].stats.total, 280);
  EXPECT_EQ(s.kernels[0].stats.med, 90);
}

}  // namespace
}  // namespace llmpo::ingest
