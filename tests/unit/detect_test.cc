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

// Formats known by name only: used when no content sniff matched, never
// over the content (an .nsys-rep that is really SQLite is read as SQLite).
TEST(DetectTest, ByNameOnlyWhenTheContentSaysNothing) {
  const std::string zip("PK\x03\x04\0\0", 6);
  EXPECT_EQ(DetectFormat(zip, "run.nsys-rep"), InputFormat::kNsysReport);
  EXPECT_EQ(DetectFormat(zip, "old.qdrep"), InputFormat::kNsysReport);
  EXPECT_EQ(DetectFormat(zip, "k.ncu-repz"), InputFormat::kNcuReportZstd);
  EXPECT_EQ(DetectFormat(zip, "k.zip"), InputFormat::kUnknown);
  EXPECT_EQ(DetectFormat(std::string("SQLite format 3\0x", 17), "run.nsys-rep"), InputFormat::kNsysSqlite);
  EXPECT_EQ(DetectFormat(zip, "nsys-rep"), InputFormat::kUnknown);  // a name, not an extension
}

// Every row of the table can be reached: by its sniff or by its name, and
// a row read by conversion names a format that has an importer.
TEST(DetectTest, EveryTableRowIsReachableAndConversionsEndInAnImporter) {
  for (const Importer& row : Importers()) {
    EXPECT_TRUE(row.sniff != nullptr || !row.extensions.empty()) << row.name;
    EXPECT_EQ(ImporterFor(row.format).name, row.name);
    if (row.import == nullptr) {
      ASSERT_NE(row.converts_to, InputFormat::kUnknown) << row.name;
      EXPECT_NE(ImporterFor(row.converts_to).import, nullptr) << row.name;
    }
  }
}

}  // namespace
}  // namespace llmpo::ingest
