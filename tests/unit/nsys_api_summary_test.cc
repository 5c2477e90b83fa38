// The nsys SQLite import sums the CUDA API calls per function in one pass
// (nsys_api_summary.cc); its rows must be those of the SQL GROUP BY it
// replaces, bit for bit, for functions summed exactly and for those it
// leaves to SQL (large squares, non-integer times).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "src/ingest/api_call_sums.h"
#include "src/ingest/importer.h"
#include "tests/unit/temp_dir.h"

namespace llmpo {
namespace {

namespace fs = std::filesystem;

struct Collect : model::RecordSink {
  std::vector<model::ApiSummaryRow> rows;
  std::vector<model::LaunchRecord> launches;
  std::vector<model::NvtxRange> ranges;
  void OnLaunch(const model::LaunchRecord& l) override { launches.push_back(l); }
  void OnNvtxRange(const model::NvtxRange& r) override { ranges.push_back(r); }
  void OnKernelSummary(const model::KernelSummaryRow&) override {}
  void OnApiSummary(const model::ApiSummaryRow& r) override { rows.push_back(r); }
};

void Exec(sqlite3* db, const std::string& sql) {
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "");
  sqlite3_free(error);
}

// Functions 1 and 3 (two versions of one name) with short calls, 2 with
// calls of about 0.4 s (their squares add up past 2^53), 5 with a call whose
// start is not an integer, 4 without a name; calls without an end, or
// ending before they start, or without a correlation id, interleaved. With
// `kernels`, every third call up to the 300th (with a correlation id)
// launched a kernel inside an NVTX range: the import sums the calls while it
// checks the merge join (those without a correlation id, and those after the
// last kernel's, too).
fs::path MakeExport(const fs::path& dir, bool kernels = false) {
  const fs::path file = dir / "api.sqlite";
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  Exec(db,
       "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
       "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'cudaMalloc_v3020'), "
       "(3, 'cudaLaunchKernel_v9000'), (5, 'cudaFree_v3020'), (6, 'gemm');"
       "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INT, end INT, eventClass INT, globalTid INT, "
       "correlationId INT, nameId INT);");
  std::mt19937_64 rng(29);
  std::string values;
  for (int i = 0; i < 400; ++i) {
    const std::int64_t start = 1'000'000'000LL * i;
    const int id = 1 + static_cast<int>(rng() % 4);  // 1..4
    const std::int64_t length = id == 2 ? 300'000'000 + static_cast<std::int64_t>(rng() % 200'000'000)
                                        : 1000 + static_cast<std::int64_t>(rng() % 5000);
    std::string end = std::to_string(start + length);
    if (i % 37 == 0) end = "NULL";
    if (i % 41 == 0) end = std::to_string(start - 5);
    const std::string correlation = i % 53 == 7 ? "NULL" : std::to_string(i);
    values += (values.empty() ? "" : ",") + std::string("(") + std::to_string(start) + ", " + end + ", 0, 1, " +
              correlation + ", " + std::to_string(id) + ")";
  }
  values += ", (10.5, 2000, 0, 1, 1000, 5), (3000, 4000, 0, 1, 1001, 5)";
  Exec(db, "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES " + values + ";");
  if (kernels) {
    std::string rows;
    for (int i = 0; i <= 300; i += 3) {
      if (i % 53 == 7) continue;  // a call without a correlation id
      const std::int64_t start = 1'000'000'000LL * i + 900'000'000;
      rows += (rows.empty() ? "" : ",") + std::string("(") + std::to_string(start) + ", " +
              std::to_string(start + 1000) + ", 0, 7, " + std::to_string(i) + ", 0, 6, 6)";
    }
    Exec(db,
         "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT, end INT, deviceId INT, streamId INT, "
         "correlationId INT, globalPid INT, demangledName INT, shortName INT);"
         "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES " +
         rows +
         ";CREATE TABLE NVTX_EVENTS(start INT, end INT, eventType INT, rangeId INT, text TEXT, textId INT, "
         "globalTid INT, domainId INT);"
         "INSERT INTO NVTX_EVENTS VALUES (0, 500000000000, 59, NULL, 'run', NULL, 1, 0);");
  }
  sqlite3_close(db);
  return file;
}

// The rows of the GROUP BY query the import used before, through the same sums.
std::vector<model::ApiSummaryRow> ByGroupBy(const fs::path& file) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db,
                     "SELECT s.value, COUNT(*), SUM(r.end - r.start), MIN(r.end - r.start), MAX(r.end - r.start), "
                     "SUM(CAST(r.end - r.start AS REAL) * (r.end - r.start)) FROM CUPTI_ACTIVITY_KIND_RUNTIME r "
                     "JOIN StringIds s ON s.id = r.nameId WHERE r.end >= r.start GROUP BY r.nameId",
                     -1, &s, nullptr);
  ingest::ApiCallSums sums;
  while (sqlite3_step(s) == SQLITE_ROW) {
    std::string name = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
    name.resize(name.size() - 6);  // the "_vNNNN" suffix
    sums.Add(name, sqlite3_column_int64(s, 1), static_cast<double>(sqlite3_column_int64(s, 2)),
             static_cast<double>(sqlite3_column_int64(s, 3)), static_cast<double>(sqlite3_column_int64(s, 4)),
             sqlite3_column_double(s, 5));
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  Collect sink;
  model::Diagnostics d;
  ingest::ImportContext ctx{file.string(), sink, d};
  sums.Emit(ctx);
  return sink.rows;
}

void ExpectGroupByRows(bool kernels) {
  testing::TempDir dir;
  const fs::path file = MakeExport(dir.path(), kernels);
  const std::vector<model::ApiSummaryRow> expected = ByGroupBy(file);
  ASSERT_EQ(expected.size(), 3u);  // cudaMalloc, cudaLaunchKernel (two versions), cudaFree
  Collect sink;
  model::Diagnostics d;
  ingest::ImportContext ctx{file.string(), sink, d};
  ASSERT_TRUE(ingest::ImportNsysSqlite(file, ctx).ok());
  if (kernels) {  // the merge join was taken: every kernel found its call and range
    ASSERT_EQ(sink.launches.size(), 99u);
    for (const auto& l : sink.launches) {
      ASSERT_TRUE(l.launch_call_start_ns.has_value()) << l.result_id;
      ASSERT_EQ(l.nvtx_stack.size(), 1u) << l.result_id;
    }
  }
  ASSERT_EQ(sink.rows.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const auto &got = sink.rows[i], &want = expected[i];
    EXPECT_EQ(got.name, want.name);
    EXPECT_EQ(got.calls, want.calls) << want.name;
    EXPECT_EQ(got.time.total_ns, want.time.total_ns) << want.name;
    EXPECT_EQ(got.time.min_ns, want.time.min_ns) << want.name;
    EXPECT_EQ(got.time.max_ns, want.time.max_ns) << want.name;
    EXPECT_EQ(got.time.stddev_ns, want.time.stddev_ns) << want.name;  // bit for bit: the sum of squares
    EXPECT_EQ(got.time_pct, want.time_pct) << want.name;
  }
}

TEST(NsysApiSummary, SameRowsAsTheGroupByQuery) { ExpectGroupByRows(false); }

// Summed by the pass that checks the kernels' merge join with their calls.
TEST(NsysApiSummary, SameRowsWhenSummedBesideTheKernels) { ExpectGroupByRows(true); }

// nsys' times count from the capture's start: its Unix time
// (TARGET_INFO_SESSION_START_TIME.utcEpochNs, as nsys 2022.4 and later
// export it) is each range's offset to Unix time; an export without the
// table (2020's) gives none.
TEST(NsysSqliteClock, RangesCarryTheCaptureStartAsTheirUnixOffset) {
  testing::TempDir dir;
  const fs::path file = MakeExport(dir.path(), true);
  for (const bool with_start : {false, true}) {
    if (with_start) {
      sqlite3* db = nullptr;
      ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
      Exec(db,
           "CREATE TABLE TARGET_INFO_SESSION_START_TIME(utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);"
           "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1694763998414956583, '2023-09-15T07:46:38', "
           "'2023-09-15T07:46:38');");
      sqlite3_close(db);
    }
    Collect sink;
    model::Diagnostics d;
    ingest::ImportContext ctx{file.string(), sink, d};
    ASSERT_TRUE(ingest::ImportNsysSqlite(file, ctx).ok());
    ASSERT_EQ(sink.ranges.size(), 1u);
    if (with_start) {
      EXPECT_EQ(sink.ranges[0].unix_offset_ns, 1694763998414956583);
    } else {
      EXPECT_FALSE(sink.ranges[0].unix_offset_ns);
    }
  }
}

}  // namespace
}  // namespace llmpo
