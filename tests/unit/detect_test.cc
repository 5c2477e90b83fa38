#include <gtest/gtest.h>

#include <string>

#include "src/ingest/importer.h"

namespace llmpo::ingest {
namespace {

TEST(DetectFormat, ByContentNotName) {
  EXPECT_EQ(DetectFormat(std::string("SQLite format 3\0rest", 20)), InputFormat::kNsysSqlite);
  EXPECT_EQ(DetectFormat(std::string("NVR\0\x02\0\0\0", 8)), InputFormat::kNcuReport);
  EXPECT_EQ(DetectFormat("==PROF== x\n\"ID\",\"Kernel Name\",\"Metric Name\"\n"), InputFormat::kNcuDetailsCsv);
  EXPECT_EQ(DetectFormat("\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n"), InputFormat::kNcuRawCsv);
  EXPECT_EQ(DetectFormat("\"Process ID\",\"Kernel Name\",\"Invocations\"\n"), InputFormat::kNcuSummaryCsv);
  EXPECT_EQ(DetectFormat("Time (%),Total Time (ns),Instances,Name\n"), InputFormat::kNsysStatsCsv);
  EXPECT_EQ(DetectFormat("Range,Style,Total Proj Time (ns)\n"), InputFormat::kNsysStatsCsv);
  EXPECT_EQ(DetectFormat("date,temp\n1,2\n"), InputFormat::kUnknown);
  EXPECT_EQ(DetectFormat(std::string("\x89PNG\0\0", 6)), InputFormat::kUnknown);
  EXPECT_EQ(DetectFormat(""), InputFormat::kUnknown);
}

TEST(DetectTest, OurTrace) {
  EXPECT_EQ(DetectFormat("#llmpo-trace 1\nP\t1\t/bin/x\tCLOCK_MONOTONIC\n"), InputFormat::kLlmpoTrace);
  EXPECT_EQ(DetectFormat("# llmpo-trace 1\n"), InputFormat::kUnknown);
}

}  // namespace
}  // namespace llmpo::ingest
