// The native .ncu-rep reader on the real reports in ../shared/fixtures
// (skipped without them) and on hand-built damaged files. The expected
// numbers come from ../shared/docs/ncu-rep-format.md and from the
// independent Python wire decoder tests/fixtures_check/ncu_rep_wire.py
// (a few lines over each fixture), never from this reader's own output.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "src/ingest/ncu_rep/reader.h"

namespace llmpo::ingest::ncurep {
namespace {

namespace fs = std::filesystem;

fs::path Fixture(const std::string& name) {
  return fs::path(LLMPO_SOURCE_DIR) / ".." / "shared" / "fixtures" / "ncu-rep" / name;
}

class Collect : public Visitor {
 public:
  void OnResult(const ProfileResult& r) override { results.push_back(r); }
  void OnSession(const Session& s) override { session = s; }
  std::vector<ProfileResult> results;
  Session session;
};

struct ReadOutcome {
  Result<ReadSummary> summary;
  Collect collected;
  model::Diagnostics diagnostics;
};

std::unique_ptr<ReadOutcome> ReadBytes(const std::string& bytes) {
  auto out = std::make_unique<ReadOutcome>(ReadOutcome{ReadSummary{}, {}, {}});
  std::istringstream in(bytes);
  out->summary = Read(in, bytes.size(), "test.ncu-rep", out->collected, out->diagnostics);
  return out;
}

std::string Slurp(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

#define REQUIRE_FIXTURE(name)                                              \
  const fs::path file = Fixture(name);                                     \
  if (!fs::exists(file)) GTEST_SKIP() << "no shared fixtures at " << file; \
  const auto outcome = ReadBytes(Slurp(file));                             \
  ASSERT_TRUE(outcome->summary.ok()) << outcome->summary.error().Render(); \
  const auto& results = outcome->collected.results;                        \
  [[maybe_unused]] const auto& session = outcome->collected.session

double Duration(const ProfileResult& r) {
  const MetricEntry* m = r.FindMetric("gpu__time_duration.sum");
  return m && m->Scalar() && m->Scalar()->number ? *m->Scalar()->number : -1;
}

std::size_t Messages(const ProfileResult& r) {
  std::size_t n = 0;
  for (const auto& rule : r.rules) n += rule.messages.size();
  return n;
}

TEST(NcuRepReader, GpuDemo2025ResultsNamesDurationsRules) {
  REQUIRE_FIXTURE("gpu-demo-2025.2-ncu_report_optimized.ncu-rep");
  ASSERT_EQ(results.size(), 4u);
  const char* names[] = {"transposeMatrix", "transposeMatrixOptimized", "transposeMatrixHighlyOptimized",
                         "transposeMatrixAdvanced"};
  const double durations_ns[] = {60896, 67136, 65856, 65184};
  const std::uint64_t api_calls[] = {584, 588, 592, 596};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(results[i].function_name, names[i]);
    EXPECT_EQ(Duration(results[i]), durations_ns[i]);
    EXPECT_EQ(results[i].rules.size(), 7u);
    EXPECT_EQ(results[i].api_call_id, api_calls[i]);
    EXPECT_EQ(results[i].thread_id, 21356u);
    EXPECT_EQ(results[i].context_id, 1u);
    EXPECT_EQ(results[i].stream_id, 7u);
    EXPECT_FALSE(results[i].has_nvtx);
  }
  // The Windows process name ends in a NUL inside the protobuf string.
  EXPECT_EQ(results[0].process_name, "F:\\CDUAtest\\MatrixTranspose\\MatrixTranspose\\MatrixTranspose_optimized.exe");
  // 2024.3+: launch metrics are uint64 + a one-element list, the kernel name only in the list.
  const MetricEntry* grid = results[0].FindMetric("launch__grid_size");
  ASSERT_NE(grid, nullptr);
  ASSERT_NE(grid->Scalar(), nullptr);
  ASSERT_TRUE(grid->Scalar()->integer);
  EXPECT_EQ(*grid->Scalar()->number,
            static_cast<double>((*results[0].grid_size)[0] * (*results[0].grid_size)[1] * (*results[0].grid_size)[2]));
  const MetricEntry* name = results[0].FindMetric("launch__kernel_name");
  ASSERT_NE(name, nullptr);
  ASSERT_NE(name->Scalar(), nullptr);
  EXPECT_EQ(name->Scalar()->text.value_or(""), "transposeMatrix");
  // SOLBottleneck: "Latency Issue", type 4 (OPT); AchievedOccupancy: local 37.99 %.
  ASSERT_GE(results[0].rules.size(), 2u);
  bool saw_local = false;
  for (const auto& rule : results[0].rules) {
    for (const auto& f : rule.messages) {
      if (rule.identifier == "SOLBottleneck") {
        EXPECT_EQ(f.title, "Latency Issue");
        EXPECT_EQ(f.type, model::FindingType::kOptimization);
      }
      if (rule.identifier == "AchievedOccupancy") {
        saw_local = true;
        EXPECT_EQ(f.speedup_kind, model::SpeedupKind::kLocal);
        EXPECT_NEAR(f.speedup_pct.value_or(0), 37.994259971310015, 1e-12);
      }
    }
  }
  EXPECT_TRUE(saw_local);
  EXPECT_EQ(session.NcuVersion().substr(0, 8), "2025.2.1");
  ASSERT_EQ(session.devices.size(), 1u);
}

TEST(NcuRepReader, CudaCode2024OneResultSevenRulesTwoGroupsInOneRule) {
  REQUIRE_FIXTURE("cudacode-2024.1-report.ncu-rep");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].function_name, "matmul_tiled");
  EXPECT_EQ(Duration(results[0]), 2496);
  ASSERT_EQ(results[0].rules.size(), 7u);
  EXPECT_EQ(Messages(results[0]), 7u);  // 5 rules with a body, two of them with two messages
  for (const auto& rule : results[0].rules) {
    if (rule.identifier != "LaunchConfiguration") continue;
    ASSERT_EQ(rule.messages.size(), 2u);
    EXPECT_EQ(rule.section, "LaunchStats");
    EXPECT_EQ(rule.messages[0].title, "Block Size");
    EXPECT_EQ(rule.messages[0].speedup_pct, 87.5);
    EXPECT_EQ(rule.messages[0].speedup_kind, model::SpeedupKind::kGlobal);
    EXPECT_EQ(rule.messages[1].title, "Small Grid");
    EXPECT_NEAR(rule.messages[1].speedup_pct.value_or(0), 81.81818181818183, 1e-12);
  }
  EXPECT_EQ(results[0].process_name, "/root/CudaCode/a.out");
  EXPECT_EQ(results[0].process_id, 102285u);
}

TEST(NcuRepReader, CudaMlp2024FullSetRulesAndDeviceAttributes) {
  REQUIRE_FIXTURE("cuda-mlp-inference-2024.2-full.ncu-rep");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].function_name, "matrix_addition2D");
  EXPECT_EQ(Duration(results[0]), 52576);
  EXPECT_EQ(results[0].rules.size(), 21u);
  EXPECT_EQ(session.NcuVersion().substr(0, 8), "2024.2.1");
  ASSERT_EQ(session.devices.size(), 1u);
  const Device& t4 = session.devices[0];
  EXPECT_NE(t4.name.find("T4"), std::string::npos) << t4.name;
  ASSERT_NE(t4.Find("multiprocessor_count"), nullptr);
  EXPECT_EQ(t4.Find("multiprocessor_count")->integer, 40u);  // Tesla T4: 40 SMs
  EXPECT_GE(t4.attributes.size(), 150u);                     // 150-166 in the fixtures (ncu-rep-format.md 10)
  // Rule text as ncu prints it: the report's "@section:ID:Name@" and
  // "@url:Text:URL@" links become "Name" and "Text (URL)".
  bool url = false;
  for (const auto& rule : results[0].rules) {
    for (const auto& f : rule.messages) {
      EXPECT_EQ(f.message.find("@section:"), std::string::npos) << f.message;
      EXPECT_EQ(f.message.find("@url:"), std::string::npos) << f.message;
      url |= f.message.find("See the CUDA Best Practices Guide (https://docs.nvidia.com/cuda/") != std::string::npos;
    }
  }
  EXPECT_TRUE(url);
}

TEST(NcuRepReader, SelfJoin2021NvtxWithEmptyStacksAndA100) {
  REQUIRE_FIXTURE("self-join-2021.2-prof1024.ncu-rep");
  ASSERT_EQ(results.size(), 4u);
  const double durations_ns[] = {8502586816.0, 8653646656.0, 8403108768.0, 2981262112.0};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(results[i].function_name, "distanceCalculationsKernel");
    EXPECT_EQ(Duration(results[i]), durations_ns[i]);
    EXPECT_EQ(results[i].rules.size(), 3u);
    EXPECT_TRUE(results[i].has_nvtx);
    EXPECT_TRUE(results[i].LaunchStack().empty());
  }
  ASSERT_EQ(session.devices.size(), 1u);
  EXPECT_EQ(session.devices[0].name, "NVIDIA A100-PCIE-40GB");
  ASSERT_NE(session.devices[0].Find("max_gpu_frequency_khz"), nullptr);
}

TEST(NcuRepReader, ManualNvtxStacksPerLaunch) {
  REQUIRE_FIXTURE("nsight-training-manual_nvtx.ncu-rep");
  ASSERT_EQ(results.size(), 3u);
  const char* kernels[] = {"init_data_kernel", "daxpy_kernel", "check_results_kernel"};
  const char* inner[] = {"init_data", "daxpy", "check_results"};
  const double durations_ns[] = {84480, 249216, 88512};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(results[i].function_name, kernels[i]);
    EXPECT_EQ(Duration(results[i]), durations_ns[i]);
    EXPECT_EQ(results[i].rules.size(), 6u);
    const auto stack = results[i].LaunchStack();
    ASSERT_EQ(stack.size(), 2u);
    EXPECT_EQ(stack[0].name, "run_test");
    EXPECT_EQ(stack[1].name, inner[i]);
    EXPECT_EQ(stack[0].domain, "");  // "<default domain>"
  }
  EXPECT_EQ(results[0].LaunchStack()[1].last_api_call_id, 503u);
  EXPECT_EQ(results[0].api_call_id, 508u);
}

TEST(NcuRepReader, CuVectorAddDrv) {
  REQUIRE_FIXTURE("nsight-training-CuVectorAddDrv.ncu-rep");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].function_name, "VecAdd_kernel");
  EXPECT_EQ(Duration(results[0]), 3232);
  EXPECT_EQ(results[0].rules.size(), 3u);
}

// Every shared report is consumed to its last byte with no diagnostics of damage.
TEST(NcuRepReader, EverySharedReportReadsWhole) {
  const fs::path dir = Fixture("");
  if (!fs::exists(dir)) GTEST_SKIP() << "no shared fixtures at " << dir;
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".ncu-rep") continue;
    ++files;
    const auto outcome = ReadBytes(Slurp(entry.path()));
    ASSERT_TRUE(outcome->summary.ok()) << entry.path() << ": " << outcome->summary.error().Render();
    EXPECT_EQ(outcome->summary->bytes, fs::file_size(entry.path()));
    EXPECT_EQ(outcome->diagnostics.rows_skipped(), 0u) << entry.path();
    EXPECT_GE(outcome->summary->results, 1u);
  }
  EXPECT_EQ(files, 6u);
}

// ---- hand-built files (the protobuf wire format, written byte by byte) ----

std::string Varint(std::uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}
std::string U32(std::uint32_t v) { return std::string{char(v), char(v >> 8), char(v >> 16), char(v >> 24)}; }
std::string VarintField(int field, std::uint64_t v) { return Varint(field << 3) + Varint(v); }
std::string BytesField(int field, const std::string& b) { return Varint(field << 3 | 2) + Varint(b.size()) + b; }
std::string DoubleField(int field, double d) {
  std::string b(8, '\0');
  std::memcpy(b.data(), &d, 8);
  return Varint(field << 3 | 1) + b;
}

std::string FileHeader(std::uint32_t version = 7) { return std::string("NVR\0", 4) + U32(2) + VarintField(1, version); }

// One block holding `results` (each a ProfileResult message), with a string table.
std::string Block(const std::vector<std::string>& results, const std::vector<std::string>& strings) {
  std::string payload;
  for (const auto& r : results) payload += U32(static_cast<std::uint32_t>(r.size())) + r;
  std::string table;
  for (const auto& s : strings) table += BytesField(1, s);
  const std::string header = VarintField(1, 0) + VarintField(2, results.size()) + BytesField(4, table) +
                             VarintField(5, payload.size()) +
                             BytesField(6, VarintField(1, 42) + BytesField(3, "/bin/app"));
  return U32(static_cast<std::uint32_t>(header.size())) + header + payload;
}

std::string ResultEntry(const std::string& name, double duration_ns, std::uint64_t name_id = 0) {
  const std::string value = DoubleField(3, duration_ns);
  return BytesField(6, name) + BytesField(13, VarintField(1, name_id) + BytesField(2, value));
}

TEST(NcuRepReaderHostile, HandBuiltReportReads) {
  const auto outcome = ReadBytes(FileHeader() + Block({ResultEntry("k", 1500)}, {"gpu__time_duration.sum"}));
  ASSERT_TRUE(outcome->summary.ok()) << outcome->summary.error().Render();
  ASSERT_EQ(outcome->collected.results.size(), 1u);
  EXPECT_EQ(Duration(outcome->collected.results[0]), 1500);
  EXPECT_EQ(outcome->collected.results[0].process_id, 42u);
}

TEST(NcuRepReaderHostile, TruncatedAnywhereIsAClearInputError) {
  const std::string whole =
      FileHeader() + Block({ResultEntry("k", 1500)}, {"gpu__time_duration.sum"}) + Block({ResultEntry("k2", 10)}, {});
  const std::size_t first_block_end =
      FileHeader().size() + Block({ResultEntry("k", 1500)}, {"gpu__time_duration.sum"}).size();
  for (std::size_t cut = 1; cut < whole.size(); ++cut) {
    const auto outcome = ReadBytes(whole.substr(0, cut));
    if (cut == FileHeader().size() || cut == first_block_end) {
      // Cut between blocks: a shorter report, not a damaged one.
      EXPECT_TRUE(outcome->summary.ok());
      EXPECT_EQ(outcome->collected.results.size(), cut == first_block_end ? 1u : 0u);
      continue;
    }
    if (outcome->summary.ok()) {
      ADD_FAILURE() << "a file cut at byte " << cut << " read without error";
      continue;
    }
    const Error& e = outcome->summary.error();
    EXPECT_EQ(e.kind, ExitStatus::kInput);
    if (cut > 8) {
      EXPECT_NE(e.Render().find("truncated"), std::string::npos) << e.Render();
    }
  }
}

TEST(NcuRepReaderHostile, SizeFieldLargerThanTheFile) {
  std::string bytes = FileHeader() + U32(0xFFFFFFF0u) + "x";
  auto outcome = ReadBytes(bytes);
  ASSERT_FALSE(outcome->summary.ok());
  EXPECT_NE(outcome->summary.error().Render().find("runs past the end of the file"), std::string::npos);
  // A payload size past the end, and an entry size past its payload.
  const std::string header = VarintField(2, 1) + VarintField(5, 1u << 30);
  outcome = ReadBytes(FileHeader() + U32(header.size()) + header + U32(4) + "abcd");
  ASSERT_FALSE(outcome->summary.ok());
  EXPECT_NE(outcome->summary.error().Render().find("payload"), std::string::npos);
  const std::string header2 = VarintField(2, 1) + VarintField(5, 8);
  outcome = ReadBytes(FileHeader() + U32(header2.size()) + header2 + U32(1000) + "abcd");
  ASSERT_FALSE(outcome->summary.ok());
  EXPECT_NE(outcome->summary.error().Render().find("entry of 1000 bytes"), std::string::npos);
}

TEST(NcuRepReaderHostile, UnknownVersionAndBadMagic) {
  auto outcome = ReadBytes(FileHeader(8));
  ASSERT_FALSE(outcome->summary.ok());
  EXPECT_NE(outcome->summary.error().Render().find("version 8"), std::string::npos);
  outcome = ReadBytes(std::string("NVX\0", 4) + U32(2) + VarintField(1, 7));
  ASSERT_FALSE(outcome->summary.ok());
  EXPECT_NE(outcome->summary.error().Render().find("not an Nsight Compute report"), std::string::npos);
}

TEST(NcuRepReaderHostile, NameIndexOutOfRangeAndUnknownWireTypeAreCounted) {
  // Metric name index 5 in a table of 1; then a result whose bytes use wire type 7.
  const std::string bad_wire = std::string("\x0f\x01", 2);
  const auto outcome = ReadBytes(
      FileHeader() + Block({ResultEntry("k", 1, 5), bad_wire, ResultEntry("k3", 3)}, {"gpu__time_duration.sum"}));
  ASSERT_TRUE(outcome->summary.ok()) << outcome->summary.error().Render();
  ASSERT_EQ(outcome->collected.results.size(), 2u);
  EXPECT_TRUE(outcome->collected.results[0].metrics.empty());
  EXPECT_EQ(Duration(outcome->collected.results[1]), 3);
  const auto& entries = outcome->diagnostics.entries();
  ASSERT_TRUE(entries.count("ncu_rep_bad_metric_name"));
  ASSERT_TRUE(entries.count("ncu_rep_bad_result"));
  EXPECT_EQ(entries.at("ncu_rep_bad_result").count, 1u);
}

}  // namespace
}  // namespace llmpo::ingest::ncurep

namespace llmpo::ingest::ncurep {
namespace {

// A block as ncu 2026.2 writes them: a source entry (a cubin, passed over), a
// result, then an entry of the third kind (header field 10), skipped and counted.
TEST(NcuRepReaderHostile, SourcesAndThirdKindEntriesAreSkipped) {
  const std::string source = VarintField(1, 99) + BytesField(4, std::string(5000, '\x7f'));
  const std::string result = ResultEntry("k", 250);
  const std::string extra = VarintField(1, 1) + BytesField(6, "graph");
  std::string payload;
  for (const auto* e : {&source, &result, &extra}) payload += U32(static_cast<std::uint32_t>(e->size())) + *e;
  const std::string header = VarintField(1, 1) + VarintField(2, 1) +
                             BytesField(4, BytesField(1, "gpu__time_duration.sum")) + VarintField(5, payload.size()) +
                             VarintField(10, 1);
  const auto outcome = ReadBytes(FileHeader() + U32(static_cast<std::uint32_t>(header.size())) + header + payload);
  ASSERT_TRUE(outcome->summary.ok()) << outcome->summary.error().Render();
  EXPECT_EQ(outcome->summary->sources, 1u);
  EXPECT_EQ(outcome->summary->results, 1u);
  EXPECT_EQ(outcome->summary->extra_entries, 1u);
  ASSERT_EQ(outcome->collected.results.size(), 1u);
  EXPECT_EQ(Duration(outcome->collected.results[0]), 250);
}

// A range-replay result (BlockHeader field 7) after a kernel result: its
// metrics are field 4 and its NVTX state field 10 (ncu 2025.3.1's layout,
// tests/fixtures/h200); it reads as a result named "range".
TEST(NcuRepReaderHostile, RangeResultsReadAsResultsNamedRange) {
  const std::string kernel = ResultEntry("k", 250);
  const std::string range = VarintField(1, 7) + BytesField(4, VarintField(1, 0) + BytesField(2, DoubleField(3, 900)));
  std::string payload;
  for (const auto* e : {&kernel, &range}) payload += U32(static_cast<std::uint32_t>(e->size())) + *e;
  const std::string header = VarintField(1, 0) + VarintField(2, 1) +
                             BytesField(4, BytesField(1, "gpu__time_duration.sum")) + VarintField(5, payload.size()) +
                             VarintField(7, 1);
  const auto outcome = ReadBytes(FileHeader() + U32(static_cast<std::uint32_t>(header.size())) + header + payload);
  ASSERT_TRUE(outcome->summary.ok()) << outcome->summary.error().Render();
  EXPECT_EQ(outcome->summary->results, 2u);
  EXPECT_EQ(outcome->summary->extra_entries, 0u);
  ASSERT_EQ(outcome->collected.results.size(), 2u);
  EXPECT_FALSE(outcome->collected.results[0].range);
  const ProfileResult& r = outcome->collected.results[1];
  EXPECT_TRUE(r.range);
  EXPECT_EQ(r.function_name, "range");
  EXPECT_EQ(r.thread_id, 7u);
  EXPECT_EQ(Duration(r), 900);
  EXPECT_FALSE(outcome->diagnostics.entries().count("ncu_rep_missing_entries"));
}

// The limit on values per result holds for range results too (their metrics
// are another field): one metric with a million and one instances is refused.
TEST(NcuRepReaderHostile, RangeResultPastTheValueLimitIsRefused) {
  std::string instances;
  instances.reserve(2 * (kMaxValuesPerResult + 1));
  for (std::uint64_t i = 0; i <= kMaxValuesPerResult; ++i) instances += BytesField(3, "");
  const std::string range = BytesField(4, VarintField(1, 0) + instances);
  const std::string payload = U32(static_cast<std::uint32_t>(range.size())) + range;
  const std::string header = VarintField(7, 1) + BytesField(4, BytesField(1, "gpu__time_duration.sum")) +
                             VarintField(5, payload.size());
  const auto outcome = ReadBytes(FileHeader() + U32(static_cast<std::uint32_t>(header.size())) + header + payload);
  ASSERT_FALSE(outcome->summary.ok());
  EXPECT_NE(outcome->summary.error().Render().find("values per result"), std::string::npos)
      << outcome->summary.error().Render();
}

// A block announcing more entries than its payload holds.
TEST(NcuRepReaderHostile, MissingEntriesAreCounted) {
  const std::string result = ResultEntry("k", 1);
  const std::string payload = U32(static_cast<std::uint32_t>(result.size())) + result;
  const std::string header =
      VarintField(2, 3) + BytesField(4, BytesField(1, "gpu__time_duration.sum")) + VarintField(5, payload.size());
  const auto outcome = ReadBytes(FileHeader() + U32(static_cast<std::uint32_t>(header.size())) + header + payload);
  ASSERT_TRUE(outcome->summary.ok());
  EXPECT_EQ(outcome->collected.results.size(), 1u);
  EXPECT_TRUE(outcome->diagnostics.entries().count("ncu_rep_missing_entries"));
}

}  // namespace
}  // namespace llmpo::ingest::ncurep
