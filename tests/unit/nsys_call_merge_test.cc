// The nsys SQLite import joins GPU rows to their CUDA API calls by a merge
// where the tables' order allows one, else by SQL: both must give the rows,
// calls and order of the SQL join (ORDER BY the call's thread and start).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>
#include <vector>

#include "src/ingest/importer.h"
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
  const fs::path file = dir / "t.sqlite";
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  const std::string sql =
      "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
      "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'gemm');"
      "CREATE TABLE NVTX_EVENTS(start INT, end INT, eventType INT, rangeId INT, text TEXT, textId INT, "
      "globalTid INT, domainId INT);"
      "INSERT INTO NVTX_EVENTS VALUES (0, 10000, 59, NULL, 'on 301', NULL, 5033165101, 0),"
      "(0, 10000, 59, NULL, 'on 302', NULL, 5033165102, 0);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT, end INT, deviceId INT, streamId INT, correlationId INT, "
      "globalPid INT, demangledName INT, shortName INT);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES " +
      kernels +
      ";CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INT, end INT, eventClass INT, globalTid INT, "
      "correlationId INT, nameId INT);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES " +
      calls + ";";
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
  return file;
}

// The kernel rows (rowid) and call starts the SQL join gives, in its order.
std::vector<std::string> SqlJoinOrder(const fs::path& file) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db,
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

}  // namespace
}  // namespace llmpo
