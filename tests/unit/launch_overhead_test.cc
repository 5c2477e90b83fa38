// Launch overhead from timelines: the statistics (nsys' cuda_kern_exec_sum
// definitions), the launch call each timeline importer attaches to a kernel
// (hand-made nsys SQLite, our trace, Kineto), the precedence against
// cuda_kern_exec_sum rows, and the shared real nsys SQLite exports
// (skipped when ../shared/fixtures is absent).
#include "src/analysis/launch_overhead.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "src/analysis/kernel_aggregator.h"
#include "src/ingest/importer.h"
#include "src/ingest/llmpo_trace.h"
#include "tests/unit/temp_dir.h"

namespace llmpo {
namespace {

namespace fs = std::filesystem;
using model::LaunchOverheadFrom;
using model::LaunchOverheadRow;

model::LaunchRecord Launch(std::int64_t call_start, std::int64_t call_end, std::int64_t start, std::int64_t end,
                           const std::string& kernel = "k") {
  model::LaunchRecord l;
  l.kernel_name = kernel;
  l.process = model::ProcessId{.name = "app", .pid = 300};
  l.device = "0";
  l.start_ns = start;
  l.end_ns = end;
  l.duration_ns = static_cast<double>(end - start);
  l.launch_call_start_ns = call_start;
  l.launch_call_end_ns = call_end;
  l.launch_call_name = "cudaLaunchKernel";
  l.launch_thread = "301";
  return l;
}

struct Collect : model::RecordSink {
  std::vector<model::LaunchRecord> launches;
  std::vector<LaunchOverheadRow> overhead;
  void OnLaunch(const model::LaunchRecord& l) override { launches.push_back(l); }
  void OnKernelSummary(const model::KernelSummaryRow&) override {}
  void OnLaunchOverhead(const LaunchOverheadRow& r) override { overhead.push_back(r); }
};

// ------------------------------------------------------------ statistics

TEST(LaunchOverhead, ApiAndQueueTimesAsCudaKernExecSumDefinesThem) {
  analysis::LaunchOverheadBuilder b;
  b.Add(Launch(0, 10, 30, 40));       // API 10, queue 20, kernel 10, total 40
  b.Add(Launch(100, 104, 110, 115));  // API 4, queue 6, kernel 5, total 15
  b.Add(Launch(200, 230, 220, 225));  // API 30; the kernel started before the call returned: no queue time
  model::LaunchRecord ncu;            // an ncu result: no times, no call
  ncu.kernel_name = "k";
  ncu.duration_ns = 1000;
  b.Add(ncu);
  model::LaunchRecord copy = Launch(0, 1, 5, 6);
  copy.kind = model::LaunchKind::kMemcpy;
  b.Add(copy);
  model::LaunchRecord no_call = Launch(0, 1, 5, 6);
  no_call.launch_call_start_ns.reset();
  b.Add(no_call);
  const auto rows = b.Rows();
  ASSERT_EQ(rows.size(), 1u);
  const LaunchOverheadRow& r = rows[0];
  EXPECT_EQ(r.from, LaunchOverheadFrom::kTimeline);
  EXPECT_EQ(r.process.Label(), "app (300)");
  EXPECT_EQ(r.thread, "301");
  EXPECT_EQ(r.api_name, "cudaLaunchKernel");
  EXPECT_EQ(r.count, 3);
  EXPECT_EQ(r.queue_count, 2);
  EXPECT_DOUBLE_EQ(*r.api_mean_ns, (10 + 4 + 30) / 3.0);
  EXPECT_DOUBLE_EQ(*r.api_median_ns, 10);
  EXPECT_DOUBLE_EQ(*r.api_max_ns, 30);
  EXPECT_DOUBLE_EQ(*r.queue_mean_ns, 13);    // (20 + 6) / 2: the third launch is left out, not counted as 0
  EXPECT_DOUBLE_EQ(*r.queue_median_ns, 13);  // an even count: the mean of the two middle values
  EXPECT_DOUBLE_EQ(*r.queue_max_ns, 20);
  EXPECT_DOUBLE_EQ(*r.kernel_mean_ns, (10 + 5 + 5) / 3.0);
  EXPECT_DOUBLE_EQ(*r.total_mean_ns, (40 + 15 + 30) / 3.0);  // max(call end, kernel end) - call start
}

TEST(LaunchOverhead, NoQueuedLaunchLeavesTheQueueStatisticsUnknown) {
  analysis::LaunchOverheadBuilder b;
  b.Add(Launch(0, 50, 10, 20));
  const auto rows = b.Rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].queue_count, 0);
  EXPECT_FALSE(rows[0].queue_mean_ns.has_value());  // null, never 0
  EXPECT_FALSE(rows[0].queue_max_ns.has_value());
}

TEST(LaunchOverhead, ProcessesOfOnePidMatch) {
  using model::ProcessId;
  EXPECT_EQ(analysis::ProcessMatchKey(ProcessId{.name = "python3", .pid = 1740670}), "pid 1740670");
  EXPECT_EQ(analysis::ProcessMatchKey(ProcessId{.pid = 1740670}), "pid 1740670");
  EXPECT_EQ(analysis::ProcessMatchKey(ProcessId{.rank = 3}), "rank 3");
  EXPECT_EQ(analysis::ProcessMatchKey(model::ProcessFromPidText("odd", "name")), "odd (name)");
}

// ------------------------------------------------------------ precedence

LaunchOverheadRow ExecSumRow(const std::string& kernel) {
  LaunchOverheadRow r;
  r.process.pid = 300;
  r.thread = "301";
  r.device = "0";
  r.api_name = "cudaLaunchKernel";
  r.kernel_name = kernel;
  r.count = 7;
  r.api_mean_ns = 1;
  return r;
}

TEST(LaunchOverhead, AnEarlierInputsRowOfTheSameLaunchesIsKept) {
  // The timeline first: its row stays; the cuda_kern_exec_sum row of the same launches is counted, not added.
  analysis::KernelAggregator a;
  a.SetSource("run.sqlite");
  a.OnLaunch(Launch(0, 10, 30, 40));
  a.SetSource("run_cuda_kern_exec_sum.csv");
  a.OnLaunchOverhead(ExecSumRow("k"));
  a.OnLaunchOverhead(ExecSumRow("other"));  // launches the timeline does not have: added
  auto r = a.runtime();
  ASSERT_EQ(r.launch_overhead.size(), 2u);
  EXPECT_EQ(r.launch_overhead[0].source, "run.sqlite");
  EXPECT_EQ(r.launch_overhead[0].row.from, LaunchOverheadFrom::kTimeline);
  EXPECT_EQ(r.launch_overhead[1].row.kernel_name, "other");
  EXPECT_EQ(r.repeated_launch_paths, 1u);
  EXPECT_EQ(r.repeated_rows, 0u);

  // The other order: the cuda_kern_exec_sum row stays.
  analysis::KernelAggregator b;
  b.SetSource("run_cuda_kern_exec_sum.csv");
  b.OnLaunchOverhead(ExecSumRow("k"));
  b.SetSource("run.sqlite");
  b.OnLaunch(Launch(0, 10, 30, 40));
  r = b.runtime();
  ASSERT_EQ(r.launch_overhead.size(), 1u);
  EXPECT_EQ(r.launch_overhead[0].row.from, LaunchOverheadFrom::kKernExecSum);
  EXPECT_EQ(r.launch_overhead[0].row.count, 7);
  EXPECT_EQ(r.repeated_launch_paths, 1u);

  // One nsys report twice: the repeated summary rows, as before.
  analysis::KernelAggregator c;
  c.SetSource("a.csv");
  c.OnLaunchOverhead(ExecSumRow("k"));
  c.SetSource("b.csv");
  c.OnLaunchOverhead(ExecSumRow("k"));
  r = c.runtime();
  EXPECT_EQ(r.launch_overhead.size(), 1u);
  EXPECT_EQ(r.repeated_rows, 1u);
  EXPECT_EQ(r.repeated_launch_paths, 0u);
}

TEST(LaunchOverhead, CudaKernExecSumCsvGivesMediansMaximaAndQueuedLaunches) {
  std::istringstream in(
      "PID,TID,DevId,Count,QCount,TAvg (ns),TMed (ns),TMin (ns),TMax (ns),TStdDev (ns),AAvg (ns),AMed (ns),AMin "
      "(ns),AMax (ns),AStdDev (ns),QAvg (ns),QMed (ns),QMin (ns),QMax (ns),QStdDev (ns),KAvg (ns),KMed (ns),KMin "
      "(ns),KMax (ns),KStdDev (ns),API Name,Kernel Name\n"
      "300,301,0,10,9,25.0,24.0,9,90,5.0,7.0,3.0,2,90,2.5,15.0,14.0,0,80,4.0,3.0,3.0,2,4,0.5,cudaLaunchKernel,k\n");
  Collect sink;
  model::Diagnostics d;
  ingest::ImportContext ctx{"x.csv", sink, d};
  ASSERT_TRUE(ingest::ImportNsysStatsCsv(in, ctx).ok());
  ASSERT_EQ(sink.overhead.size(), 1u);
  const auto& r = sink.overhead[0];
  EXPECT_EQ(r.from, LaunchOverheadFrom::kKernExecSum);
  EXPECT_EQ(r.count, 10);
  EXPECT_EQ(r.queue_count, 9);
  EXPECT_DOUBLE_EQ(*r.api_median_ns, 3);
  EXPECT_DOUBLE_EQ(*r.api_max_ns, 90);
  EXPECT_DOUBLE_EQ(*r.queue_mean_ns, 15);
  EXPECT_DOUBLE_EQ(*r.queue_median_ns, 14);
  EXPECT_DOUBLE_EQ(*r.queue_max_ns, 80);
}

// ------------------------------------------------------------ importers

void Exec(sqlite3* db, const char* sql) {
  char* error = nullptr;
  ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "");
}

// A hand-made export in the 2023 schema's shape (only the columns we read):
// process 300 (globalPid 300 << 24), thread 301; two kernels launched by
// cudaLaunchKernel_v7000 and one whose correlation has no API call; no NVTX.
TEST(LaunchOverhead, NsysSqliteJoinsTheLaunchCallWithoutNvtx) {
  testing::TempDir dir;
  const fs::path file = dir.path() / "t.sqlite";
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  Exec(db,
       "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
       "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'gemm'), (3, 'cuLaunchKernel');"
       "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT, end INT, deviceId INT, streamId INT, correlationId INT, "
       "globalPid INT, demangledName INT, shortName INT);"
       "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 1500, 0, 7, 11, 5033164800, 2, 2),"
       "(2000, 2100, 0, 7, 12, 5033164800, 2, 2), (3000, 3100, 0, 7, 99, 5033164800, 2, 2);"
       "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INT, end INT, eventClass INT, globalTid INT, "
       "correlationId INT, nameId INT);"
       "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (900, 950, 1, 5033165101, 11, 1),"
       "(1990, 2050, 1, 5033165101, 12, 3);");
  sqlite3_close(db);
  Collect sink;
  model::Diagnostics d;
  ingest::ImportContext ctx{file.string(), sink, d};
  ASSERT_TRUE(ingest::ImportNsysSqlite(file, ctx).ok());
  ASSERT_EQ(sink.launches.size(), 3u);
  std::map<std::int64_t, model::LaunchRecord> by_correlation;
  for (const auto& l : sink.launches) by_correlation[*l.correlation_id] = l;
  const auto& first = by_correlation.at(11);
  EXPECT_EQ(first.launch_call_name, "cudaLaunchKernel");  // the _v7000 suffix dropped, as nsys prints it
  EXPECT_EQ(first.launch_thread, "301");
  EXPECT_EQ(first.launch_call_start_ns, 900);
  EXPECT_EQ(first.launch_call_end_ns, 950);
  EXPECT_EQ(by_correlation.at(12).launch_call_name, "cuLaunchKernel");
  EXPECT_FALSE(by_correlation.at(99).launch_call_start_ns.has_value());  // unknown: null
  EXPECT_TRUE(by_correlation.at(99).launch_call_name.empty());
  EXPECT_FALSE(first.has_nvtx);  // no NVTX table: nothing is attributed to ranges
}

TEST(LaunchOverhead, OurTraceNamesTheCallByItsCallbackId) {
  std::istringstream in(
      "#llmpo-trace 1\nP\t7\t/bin/app\tx\n"
      "A\t8\t1\t100\t130\truntime\t211\nA\t8\t2\t200\t210\tdriver\t307\nA\t8\t3\t300\t310\truntime\t999\n"
      "K\t0\t1\t7\t1\t150\t170\t1,1,1\t1,1,1\tk\nK\t0\t1\t7\t2\t205\t220\t1,1,1\t1,1,1\tk\n"
      "K\t0\t1\t7\t3\t320\t330\t1,1,1\t1,1,1\tk\nK\t0\t1\t7\t4\t400\t410\t1,1,1\t1,1,1\tk\nE\t500\texit\n");
  Collect sink;
  model::Diagnostics d;
  ingest::ImportContext ctx{"t.tsv", sink, d};
  ASSERT_TRUE(ingest::ImportLlmpoTraceRecords(in, ctx).ok());
  std::map<std::int64_t, model::LaunchRecord> by_correlation;
  for (const auto& l : sink.launches) by_correlation[*l.correlation_id] = l;
  ASSERT_EQ(by_correlation.size(), 4u);
  EXPECT_EQ(by_correlation[1].launch_call_name, "cudaLaunchKernel");
  EXPECT_EQ(by_correlation[1].launch_call_start_ns, 100);
  EXPECT_EQ(by_correlation[1].launch_call_end_ns, 130);
  EXPECT_EQ(by_correlation[1].launch_thread, "8");
  EXPECT_EQ(by_correlation[2].launch_call_name, "cuLaunchKernel");
  EXPECT_EQ(by_correlation[3].launch_call_name, "runtime API cbid 999");
  EXPECT_FALSE(by_correlation[4].launch_call_start_ns.has_value());  // no call recorded
  analysis::LaunchOverheadBuilder b;
  for (const auto& l : sink.launches) b.Add(l);
  const auto rows = b.Rows();
  ASSERT_EQ(rows.size(), 3u);  // one per API function
  for (const auto& r : rows) {
    if (r.api_name != "cudaLaunchKernel") continue;
    EXPECT_DOUBLE_EQ(*r.api_mean_ns, 30);
    EXPECT_DOUBLE_EQ(*r.queue_mean_ns, 20);  // 150 - 130
  }
}

TEST(LaunchOverhead, KinetoPairsKernelsWithTheirRuntimeCall) {
  testing::TempDir dir;
  const fs::path file = dir.path() / "t.json";
  std::ofstream(file) << R"({"schemaVersion": 1, "traceEvents": [
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 101, "ts": 4, "dur": 2,
   "args": {"correlation": 11}},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 10, "dur": 3,
   "args": {"correlation": 11, "device": 0, "stream": 7}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 100, "tid": 101, "ts": 20, "dur": 2,
   "args": {"correlation": 12}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 7, "ts": 30, "dur": 1,
   "args": {"correlation": 12, "device": 0, "stream": 7}}
 ], "baseTimeNanoseconds": 1000000000})";
  Collect sink;
  model::Diagnostics d;
  ingest::ImportContext ctx{file.string(), sink, d};
  ASSERT_TRUE(ingest::ImportKinetoTrace(file, ctx).ok());
  ASSERT_EQ(sink.launches.size(), 2u);
  for (const auto& l : sink.launches) {
    if (l.kind != model::LaunchKind::kKernel) {
      EXPECT_FALSE(l.launch_call_start_ns.has_value());  // launch overhead is about kernels
      continue;
    }
    EXPECT_EQ(l.launch_call_name, "cudaLaunchKernel");
    EXPECT_EQ(l.launch_thread, "101");
    EXPECT_EQ(l.launch_call_start_ns, 1000000000 + 4000);
    EXPECT_EQ(l.launch_call_end_ns, 1000000000 + 6000);
    EXPECT_EQ(*l.start_ns - *l.launch_call_end_ns, 4000);  // the queue time
  }
}

// ------------------------------------------------------------ real exports

fs::path SqliteFixture(const std::string& name) {
  return fs::path(LLMPO_SOURCE_DIR) / ".." / "shared" / "fixtures" / "nsys-sqlite" / name;
}

std::map<std::string, LaunchOverheadRow> RowsByKernel(const fs::path& file) {
  analysis::KernelAggregator a;
  a.SetSource(file.string());
  model::Diagnostics d;
  ingest::ImportContext ctx{file.string(), a, d};
  EXPECT_TRUE(ingest::ImportNsysSqlite(file, ctx).ok());
  std::map<std::string, LaunchOverheadRow> rows;
  for (const auto& r : a.runtime().launch_overhead) rows[r.row.kernel_name] = r.row;
  return rows;
}

// Mean, median and max of the API and queue times, in ns, against the
// independent script's numbers below.
struct Stats {
  double mean, median, max;
};
void ExpectOverhead(const LaunchOverheadRow& r, Stats api, Stats queue) {
  ASSERT_TRUE(r.api_mean_ns && r.api_median_ns && r.api_max_ns);
  ASSERT_TRUE(r.queue_mean_ns && r.queue_median_ns && r.queue_max_ns);
  EXPECT_NEAR(*r.api_mean_ns, api.mean, 1e-9);
  EXPECT_DOUBLE_EQ(*r.api_median_ns, api.median);
  EXPECT_DOUBLE_EQ(*r.api_max_ns, api.max);
  EXPECT_NEAR(*r.queue_mean_ns, queue.mean, 1e-9);
  EXPECT_DOUBLE_EQ(*r.queue_median_ns, queue.median);
  EXPECT_DOUBLE_EQ(*r.queue_max_ns, queue.max);
}

// Expected numbers computed independently with python3's sqlite3 and
// statistics modules (a throwaway script, not in the repository): for each
// kernel row, the CUPTI_ACTIVITY_KIND_RUNTIME row of the same correlationId
// and process; API = r.end - r.start; queue = k.start - r.end where >= 0;
// key (pid, tid, deviceId, nameId's value without "_vNNNNN", demangledName):
//   python3 expect_overhead.py cudaprogramming-2023.3-streamSimple.sqlite
// (6168, 6168, 0, 'cudaLaunchKernel', 'kernel_1()') count 4 qcount 4
//   api mean/med/max 27583.5 2334.5 103462 queue mean/med/max 5249 5681.0 9455
// ... 'kernel_4()' count 4 qcount 4 api 2290.25 1439.5 4936 queue 27592.75 33449.0 35304
TEST(LaunchOverheadFixtures, StreamSimpleSqlite) {
  const fs::path file = SqliteFixture("cudaprogramming-2023.3-streamSimple.sqlite");
  if (!fs::exists(file)) GTEST_SKIP() << "no shared fixtures at " << file;
  const auto rows = RowsByKernel(file);
  ASSERT_EQ(rows.size(), 4u);
  const auto& k1 = rows.at("kernel_1()");
  EXPECT_EQ(k1.thread, "6168");
  EXPECT_EQ(k1.device, "0");
  EXPECT_EQ(k1.api_name, "cudaLaunchKernel");
  EXPECT_EQ(k1.count, 4);
  EXPECT_EQ(k1.queue_count, 4);
  ExpectOverhead(k1, {27583.5, 2334.5, 103462}, {5249, 5681, 9455});
  EXPECT_DOUBLE_EQ(*k1.kernel_mean_ns, 4232);
  ExpectOverhead(rows.at("kernel_4()"), {2290.25, 1439.5, 4936}, {27592.75, 33449, 35304});
  EXPECT_DOUBLE_EQ(*rows.at("kernel_2()").api_mean_ns, 3096.75);
  EXPECT_DOUBLE_EQ(*rows.at("kernel_2()").queue_mean_ns, 11969.25);
  EXPECT_DOUBLE_EQ(*rows.at("kernel_3()").api_mean_ns, 2439.25);
  EXPECT_DOUBLE_EQ(*rows.at("kernel_3()").queue_mean_ns, 20496.25);
}

// The same script on nvtx-examples-2020-cupy.sqlite: driver launches
// (cuLaunchKernel); one of the 8 subtract launches started before its call
// returned, so 7 have a queue time:
// (138107, 138107, 0, 'cuLaunchKernel', 'cupy_subtract__int64_int64_int64') count 8 qcount 7
//   api mean/med/max 7561.125 6641.0 11389 queue mean/med/max 1447.142857142857 1555 1863
// ... 'cupy_multiply__int64_int64_int64' count 4 qcount 4 api 7231.25 6896.0 10785 queue 1443.75 1552.5 1919
TEST(LaunchOverheadFixtures, CupySqliteLeavesOutTheLaunchWithoutQueueTime) {
  const fs::path file = SqliteFixture("nvtx-examples-2020-cupy.sqlite");
  if (!fs::exists(file)) GTEST_SKIP() << "no shared fixtures at " << file;
  const auto rows = RowsByKernel(file);
  ASSERT_EQ(rows.size(), 5u);
  const auto& sub = rows.at("cupy_subtract__int64_int64_int64");
  EXPECT_EQ(sub.api_name, "cuLaunchKernel");
  EXPECT_EQ(sub.thread, "138107");
  EXPECT_EQ(sub.count, 8);
  EXPECT_EQ(sub.queue_count, 7);
  ExpectOverhead(sub, {7561.125, 6641, 11389}, {1447.142857142857, 1555, 1863});
  ExpectOverhead(rows.at("cupy_multiply__int64_int64_int64"), {7231.25, 6896, 10785}, {1443.75, 1552.5, 1919});
  EXPECT_DOUBLE_EQ(*rows.at("fill").api_mean_ns, 19545);
  EXPECT_DOUBLE_EQ(*rows.at("fill").queue_mean_ns, 1090);
}

model::ApiSummaryRow ApiRow(const char* name, std::int64_t calls, std::optional<std::int64_t> rank) {
  model::ApiSummaryRow row;
  row.name = name;
  row.calls = calls;
  row.time.total_ns = 100.0 * static_cast<double>(calls);
  row.rank = rank;
  return row;
}

// CUDA API rows of different ranks are different processes' calls: each is
// kept. The same function again for the same rank (or from inputs naming
// none) is one measurement given twice: counted, not added.
TEST(ApiSummaryRows, EachRanksRowsKeptTheSameRankTwiceNot) {
  analysis::KernelAggregator a;
  a.SetSource("rank0.json");
  a.OnApiSummary(ApiRow("cudaLaunchKernel", 10, 0));
  a.SetSource("rank1.json");
  a.OnApiSummary(ApiRow("cudaLaunchKernel", 12, 1));
  a.SetSource("rank1-again.json");
  a.OnApiSummary(ApiRow("cudaLaunchKernel", 12, 1));
  a.SetSource("run_cuda_api_sum.csv");
  a.OnApiSummary(ApiRow("cudaLaunchKernel", 3, std::nullopt));
  a.SetSource("run.sqlite");
  a.OnApiSummary(ApiRow("cudaLaunchKernel", 3, std::nullopt));
  const auto r = a.runtime();
  ASSERT_EQ(r.api_calls.size(), 3u);
  EXPECT_EQ(r.api_calls[0].source, "rank0.json");
  EXPECT_EQ(r.api_calls[1].source, "rank1.json");
  EXPECT_EQ(r.api_calls[1].row.calls, 12);
  EXPECT_EQ(r.api_calls[2].source, "run_cuda_api_sum.csv");
  EXPECT_EQ(r.repeated_rows, 2u);
}

}  // namespace
}  // namespace llmpo
