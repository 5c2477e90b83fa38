// The nsys SQLite import joins GPU rows to their CUDA API calls by a merge
// where the tables' order allows one, else by SQL: both must give the rows,
// calls and order of the SQL join (ORDER BY the call's thread and start).
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
  std::vector<model::LaunchRecord> launches;
  void OnLaunch(const model::LaunchRecord& l) override { launches.push_back(l); }
  void OnKernelSummary(const model::KernelSummaryRow&) override {}
};

// Process 300 (globalPid 300 << 24), threads 301 and 302, one push/pop
// range per thread; `kernels` and `calls` are VALUES lists.
fs::path MakeExport(const fs::path& dir, const std::string& kernels, const std::string& calls) {
  return testing::WriteSqlite(dir / "t.sqlite",
                              testing::NsysExportSql("(0, 10000, 59, NULL, 'on 301', NULL, 5033165101, 0),"
                                                     "(0, 10000, 59, NULL, 'on 302', NULL, 5033165102, 0)",
                                                     kernels, calls));
}

// The kernel rows (rowid) and call starts the SQL join gives, in its order.
std::vector<std::string> SqlJoinOrder(const fs::path& file) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(
      db,
      "SELECT k.rowid, r.start FROM CUPTI_ACTIVITY_KIND_KERNEL k LEFT JOIN CUPTI_ACTIVITY_KIND_RUNTIME r "
      "ON r.correlationId = k.correlationId AND (r.globalTid & ~16777215) = k.globalPid "
      "ORDER BY r.globalTid, r.start",
      -1, &s, nullptr);
  std::vector<std::string> rows;
  while (sqlite3_step(s) == SQLITE_ROW) {
    const bool call = sqlite3_column_type(s, 1) != SQLITE_NULL;
    rows.push_back(std::to_string(sqlite3_column_int64(s, 0)) + "@" +
                   (call ? std::to_string(sqlite3_column_int64(s, 1)) : "none"));
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return rows;
}

std::vector<std::string> ImportedOrder(const fs::path& file, std::vector<model::LaunchRecord>* launches) {
  Collect sink;
  model::Diagnostics d;
  ingest::ImportContext ctx{file.string(), sink, d};
  EXPECT_TRUE(ingest::ImportNsysSqlite(file, ctx).ok());
  std::vector<std::string> rows;
  for (const auto& l : sink.launches) {
    rows.push_back(l.result_id + "@" +
                   (l.launch_call_start_ns ? std::to_string(*l.launch_call_start_ns) : std::string("none")));
  }
  *launches = sink.launches;
  return rows;
}

const char* kCalls =
    "(100, 110, 1, 5033165101, 11, 1), (200, 210, 1, 5033165101, 12, 1), (150, 160, 1, 5033165102, 13, 1)";

// In id and call order, one call launching two kernels (a graph) and a
// kernel without a call first: the merge's case.
TEST(NsysCallMerge, KernelsInCallOrderKeepTheJoinOrder) {
  testing::TempDir dir;
  const fs::path file = MakeExport(dir.path(),
                                   "(500, 510, 0, 7, NULL, 5033164800, 2, 2), (1000, 1010, 0, 7, 11, 5033164800, 2, 2),"
                                   "(2000, 2010, 0, 7, 12, 5033164800, 2, 2), (2100, 2110, 0, 7, 12, 5033164800, 2, 2),"
                                   "(3000, 3010, 0, 7, 13, 5033164800, 2, 2)",
                                   kCalls);
  std::vector<model::LaunchRecord> launches;
  const auto expected = SqlJoinOrder(file);
  ASSERT_EQ(expected.size(), 5u);
  EXPECT_EQ(ImportedOrder(file, &launches), expected);
  ASSERT_EQ(launches.size(), 5u);
  EXPECT_TRUE(launches[0].nvtx_stack.empty());  // no call: outside every range
  ASSERT_EQ(launches[3].nvtx_stack.size(), 1u);
  EXPECT_EQ(launches[3].nvtx_stack[0].name, "on 301");
  EXPECT_EQ(launches[3].launch_call_name, "cudaLaunchKernel");
  EXPECT_EQ(launches[3].launch_call_end_ns, 210);
  ASSERT_EQ(launches[4].nvtx_stack.size(), 1u);
  EXPECT_EQ(launches[4].nvtx_stack[0].name, "on 302");
  EXPECT_EQ(launches[4].launch_thread, "302");
}

// Kernels not in call order (ids going back, threads interleaved): the SQL
// join orders them.
TEST(NsysCallMerge, KernelsOutOfCallOrderAreSortedByTheirCalls) {
  testing::TempDir dir;
  const fs::path file = MakeExport(dir.path(),
                                   "(1000, 1010, 0, 7, 13, 5033164800, 2, 2), (2000, 2010, 0, 7, 11, 5033164800, 2, 2),"
                                   "(3000, 3010, 0, 7, 12, 5033164800, 2, 2)",
                                   kCalls);
  std::vector<model::LaunchRecord> launches;
  const auto expected = SqlJoinOrder(file);
  ASSERT_EQ(expected.size(), 3u);
  EXPECT_EQ(ImportedOrder(file, &launches), expected);
  EXPECT_EQ(expected.front(), "2@100");
}

// Copies merged with their calls: a damaged copy (end before start) is
// skipped with a diagnostic, and the copies after it keep their calls; a
// memory kind listed twice in the export's enum repeats a copy's row, and
// the repeat gets the same call.
TEST(NsysCallMerge, CopiesAfterADamagedOneKeepTheirCalls) {
  testing::TempDir dir;
  const std::string sql =
      testing::NsysExportSql("(0, 10000, 59, NULL, 'on 301', NULL, 5033165101, 0)",
                             "(1000, 1010, 0, 7, 11, 5033164800, 2, 2)",
                             "(100, 110, 1, 5033165101, 11, 1), (200, 210, 1, 5033165101, 21, 1), "
                             "(300, 310, 1, 5033165101, 22, 1), (400, 410, 1, 5033165101, 23, 1)") +
      "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INT, end INT, deviceId INT, streamId INT, correlationId INT, "
      "globalPid INT, srcKind INT, dstKind INT);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (3000, 3010, 0, 7, 21, 5033164800, 1, 2), "
      "(3100, 3050, 0, 7, 22, 5033164800, 1, 1), (3200, 3210, 0, 7, 23, 5033164800, 1, 2);"
      "CREATE TABLE ENUM_CUDA_MEM_KIND(id INT, name TEXT, label TEXT);"
      "INSERT INTO ENUM_CUDA_MEM_KIND VALUES (1, 'PAGEABLE', 'Pageable'), (2, 'DEVICE', 'Device'), "
      "(2, 'DEVICE', 'Device (again)');";
  const fs::path file = testing::WriteSqlite(dir.path() / "t.sqlite", sql);
  Collect sink;
  model::Diagnostics d;
  ingest::ImportContext ctx{file.string(), sink, d};
  const Status status = ingest::ImportNsysSqlite(file, ctx);
  ASSERT_TRUE(status.ok()) << status.error().message;
  std::vector<std::string> copies;  // row id and innermost range of each copy
  for (const auto& l : sink.launches) {
    if (l.kind != model::LaunchKind::kMemcpy) continue;
    copies.push_back(l.result_id + " " + (l.nvtx_stack.empty() ? "outside" : l.nvtx_stack.back().name));
  }
  EXPECT_EQ(copies, (std::vector<std::string>{"1 on 301", "1 on 301", "3 on 301", "3 on 301"}));
  const auto damaged = d.entries().find(model::Describe(model::Diag::bad_gpu_op_row).code);
  ASSERT_NE(damaged, d.entries().end());
  EXPECT_EQ(damaged->second.count, 1u);
}

}  // namespace
}  // namespace llmpo
