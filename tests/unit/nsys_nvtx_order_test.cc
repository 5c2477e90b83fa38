// The nsys SQLite import reads NVTX ranges without a sort where the table
// already holds them in start (and thread, start) order, and sorts them
// otherwise: in every table order the ranges reach the sink by start and
// each kernel gets the ranges open on its launching thread at its call.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>
#include <vector>

#include "src/ingest/importer.h"
#include "tests/unit/nsys_export_sql.h"
#include "tests/unit/temp_dir.h"

namespace llmpo {
namespace {

namespace fs = std::filesystem;

struct Collect : model::RecordSink {
  std::vector<std::string> ranges;               // names, in the order they came
  std::vector<std::vector<std::string>> stacks;  // per kernel: its push/pop frames, outermost first
  void OnLaunch(const model::LaunchRecord& l) override {
    std::vector<std::string> names;
    for (const auto& f : l.nvtx_stack) names.push_back(f.name);
    stacks.push_back(names);
  }
  void OnNvtxRange(const model::NvtxRange& r) override { ranges.push_back(r.name); }
  void OnKernelSummary(const model::KernelSummaryRow&) override {}
};

// Two threads of process 300 (301, 302): on 301 'outer' [0, 1000] holding
// 'inner' [100, 400]; on 302 'other' [50, 900]. `nvtx_rows`: the VALUES of
// NVTX_EVENTS in the order the table holds them.
fs::path MakeExport(const fs::path& dir, const std::string& nvtx_rows) {
  // thread 301 calls at 200 (inside inner), 301 at 600 (outer only), 302 at 700 (other)
  return testing::WriteSqlite(
      dir / "t.sqlite",
      testing::NsysExportSql(nvtx_rows,
                             "(2000, 2010, 0, 7, 11, 5033164800, 2, 2), (2100, 2110, 0, 7, 12, 5033164800, 2, 2), "
                             "(2200, 2210, 0, 7, 13, 5033164800, 2, 2)",
                             "(200, 210, 1, 5033165101, 11, 1), (600, 610, 1, 5033165101, 12, 1), "
                             "(700, 710, 1, 5033165102, 13, 1)"));
}

const char* kOuter = "(0, 1000, 59, NULL, 'outer', NULL, 5033165101, 0)";
const char* kInner = "(100, 400, 59, NULL, 'inner', NULL, 5033165101, 0)";
const char* kOther = "(50, 900, 59, NULL, 'other', NULL, 5033165102, 0)";

Collect Import(const fs::path& file) {
  Collect sink;
  model::Diagnostics d;
  ingest::ImportContext ctx{file.string(), sink, d};
  EXPECT_TRUE(ingest::ImportNsysSqlite(file, ctx).ok());
  return sink;
}

void ExpectRangesAndStacks(const std::string& nvtx_rows) {
  testing::TempDir dir;
  const Collect got = Import(MakeExport(dir.path(), nvtx_rows));
  EXPECT_EQ(got.ranges, (std::vector<std::string>{"outer", "other", "inner"}));
  ASSERT_EQ(got.stacks.size(), 3u);
  EXPECT_EQ(got.stacks[0], (std::vector<std::string>{"outer", "inner"}));
  EXPECT_EQ(got.stacks[1], (std::vector<std::string>{"outer"}));
  EXPECT_EQ(got.stacks[2], (std::vector<std::string>{"other"}));
}

TEST(NsysNvtxOrder, TableByStartAcrossThreads) {
  // By start, threads interleaved: read without ImportNvtx's sort, RangeCursor sorts.
  ExpectRangesAndStacks(std::string(kOuter) + "," + kOther + "," + kInner);
}

TEST(NsysNvtxOrder, TableByThreadThenStart) {
  // By (thread, start), not by start: RangeCursor reads without a sort, ImportNvtx sorts.
  ExpectRangesAndStacks(std::string(kOuter) + "," + kInner + "," + kOther);
}

TEST(NsysNvtxOrder, TableInNoOrder) { ExpectRangesAndStacks(std::string(kInner) + "," + kOther + "," + kOuter); }

TEST(NsysNvtxOrder, EqualStartsAndRangesWithoutStartAreSorted) {
  // A range without a start comes first in ImportNvtx's order; equal starts keep SQLite's order of ties.
  testing::TempDir dir;
  const Collect got = Import(MakeExport(dir.path(), std::string(kOuter) + "," + kOther + "," + kInner +
                                                        ", (NULL, 500, 59, NULL, 'no start', NULL, 5033165101, 0)"));
  ASSERT_EQ(got.ranges.size(), 4u);
  EXPECT_EQ(got.ranges[0], "no start");
  EXPECT_EQ(got.stacks[0], (std::vector<std::string>{"outer", "inner"}));
}

TEST(NsysNvtxOrder, EqualStartsOnAThreadAndAcrossThreads) {
  // 'outer' and 'inner' both start at 0 on 301 (the longer first), 'other' at 0 on 302.
  ExpectRangesAndStacks(
      "(0, 1000, 59, NULL, 'outer', NULL, 5033165101, 0), (0, 900, 59, NULL, 'other', NULL, 5033165102, 0), "
      "(0, 400, 59, NULL, 'inner', NULL, 5033165101, 0)");
}

}  // namespace
}  // namespace llmpo
