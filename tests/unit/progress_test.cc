#include "src/pipeline/progress.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace llmpo::pipeline {
namespace {

TEST(ToolProgressTest, CountsNcuResultsAndPasses) {
  ToolProgress p("ncu");
  EXPECT_EQ(p.Text(), "[ncu] running");
  EXPECT_TRUE(p.Feed("==PROF== Connected to process 4242 (/usr/bin/app)"));
  EXPECT_EQ(p.Text(), "[ncu] connected to process 4242");
  EXPECT_FALSE(p.Feed("some line the application printed"));
  EXPECT_TRUE(p.Feed(R"(==PROF== Profiling "vectorAdd_A" - 0: 0%....50%....100% - 46 passes)"));
  EXPECT_EQ(p.Text(), "[ncu] 1 result profiled, last: vectorAdd_A (46 passes)");
  EXPECT_TRUE(p.Feed(R"(==PROF== Profiling "gemm" - 11: 0%....50%....100% - 1 pass)"));
  EXPECT_EQ(p.results(), 12);
  EXPECT_EQ(p.Text(), "[ncu] 12 results profiled, last: gemm (1 pass)");
}

TEST(ToolProgressTest, RangeReplayPassesAndErrors) {
  ToolProgress p("ncu");
  p.Feed(R"(==PROF== Profiling "range" - 0: Application replay pass 3)");
  EXPECT_EQ(p.Text(), "[ncu] 1 result profiled, last: range (3 passes)");
  p.Feed("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission");
  EXPECT_EQ(p.Text(),
            "[ncu] 1 result profiled, last: range (3 passes) | error: ERR_NVGPUCTRPERM - The user does not have "
            "permission");
}

TEST(ToolProgressTest, NsysPhases) {
  ToolProgress p("nsys");
  EXPECT_TRUE(p.Feed("Collecting data..."));
  EXPECT_EQ(p.Text(), "[nsys] Collecting data...");
  EXPECT_TRUE(p.Feed("Generating '/tmp/nsys-report-1a2b.qdstrm'"));
  EXPECT_TRUE(p.Feed("Generated:"));
  EXPECT_EQ(p.Text(), "[nsys] Generated:");
}

std::string Captured(std::FILE* f) {
  std::rewind(f);
  std::string s;
  for (int c; (c = std::fgetc(f)) != EOF;) s.push_back(static_cast<char>(c));
  return s;
}

TEST(ProgressDisplayTest, TerminalRewritesOneLine) {
  std::FILE* f = std::tmpfile();
  ProgressDisplay d(f, /*terminal=*/true);
  d.Update("[ncu] running long text");
  d.Update("[ncu] short");
  d.Update("[ncu] short");
  d.Finish();
  EXPECT_EQ(Captured(f), "\r[ncu] running long text\r[ncu] short            \n");
  std::fclose(f);
}

TEST(ProgressDisplayTest, PlainLinesAreThrottledAndTheLastIsKept) {
  std::FILE* f = std::tmpfile();
  ProgressDisplay d(f, /*terminal=*/false, /*plain_interval_s=*/3600);
  d.Update("[ncu] 1 result");
  d.Update("[ncu] 2 results");
  d.Update("[ncu] 3 results");
  d.Finish();
  EXPECT_EQ(Captured(f), "[ncu] 1 result\n[ncu] 3 results\n");
  std::fclose(f);
}

}  // namespace
}  // namespace llmpo::pipeline
