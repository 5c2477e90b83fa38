// `import` of a .ncu-rep through the importer table: what reaches the
// record sink. Device figures are checked against the vendors' published
// specifications (Tesla T4: 40 SMs, 4 MiB L2, 256-bit memory bus; A100 PCIe
// 40 GB: 108 SMs, 40 MiB L2, 5120-bit bus, 1410 MHz boost clock); durations
// and NVTX stacks against tests/fixtures_check/ncu_rep_wire.py's decoding.
#include <gtest/gtest.h>

#include <filesystem>

#include "src/ingest/importer.h"
#include "src/model/sink.h"

namespace llmpo::ingest {
namespace {

namespace fs = std::filesystem;

class Collect : public model::RecordSink {
 public:
  void OnLaunch(const model::LaunchRecord& l) override { launches.push_back(l); }
  void OnKernelSummary(const model::KernelSummaryRow&) override {}
  void OnDevice(const model::DeviceInfo& d) override { devices.push_back(d); }
  std::vector<model::LaunchRecord> launches;
  std::vector<model::DeviceInfo> devices;
};

struct Imported {
  Collect sink;
  model::Diagnostics diagnostics;
  bool ok = false;
};

std::unique_ptr<Imported> Import(const fs::path& file) {
  auto out = std::make_unique<Imported>();
  ImportContext ctx{file.string(), out->sink, out->diagnostics};
  out->ok = ImporterFor(InputFormat::kNcuReport).import(file, ctx).ok();
  return out;
}

fs::path Fixture(const std::string& name) {
  return fs::path(LLMPO_SOURCE_DIR) / ".." / "shared" / "fixtures" / "ncu-rep" / name;
}

const model::Metric* Find(const model::LaunchRecord& l, std::string_view name) {
  for (const auto& m : l.metrics) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

TEST(NcuRepImport, TeslaT4FullSetLaunchAndDevice) {
  const fs::path file = Fixture("cuda-mlp-inference-2024.2-full.ncu-rep");
  if (!fs::exists(file)) GTEST_SKIP() << "no shared fixtures at " << file;
  const auto got = Import(file);
  ASSERT_TRUE(got->ok);
  ASSERT_EQ(got->sink.launches.size(), 1u);
  const model::LaunchRecord& l = got->sink.launches[0];
  EXPECT_EQ(l.kernel_name.substr(0, 17), "matrix_addition2D");
  EXPECT_EQ(l.duration_ns, 52576);
  EXPECT_EQ(l.process.Label(), "cuda_example (5816)");
  EXPECT_EQ(l.process.pid, 5816);
  EXPECT_EQ(l.device, "Tesla T4");
  EXPECT_EQ(l.stream, 7);
  EXPECT_FALSE(l.has_nvtx);
  // Every rule message became a finding of this launch.
  EXPECT_FALSE(l.findings.empty());
  const model::Metric* duration = Find(l, "gpu__time_duration.sum");
  ASSERT_NE(duration, nullptr);
  EXPECT_EQ(duration->value.dimension, Dimension::kTime);
  EXPECT_EQ(duration->value.unit, "ns");
  const model::Metric* sol = Find(l, "sm__throughput.avg.pct_of_peak_sustained_elapsed");
  ASSERT_NE(sol, nullptr);
  EXPECT_EQ(sol->value.dimension, Dimension::kPercent);
  // Metrics a section header lists carry its display name, as on ncu's details page.
  EXPECT_EQ(sol->section, "GPU Speed Of Light Throughput");
  EXPECT_EQ(duration->section, "GPU Speed Of Light Throughput");
  const model::Metric* grid = Find(l, "launch__grid_size");
  ASSERT_NE(grid, nullptr);
  EXPECT_EQ(grid->section, "Launch Statistics");
  ASSERT_EQ(got->sink.devices.size(), 1u);
  const model::DeviceInfo& t4 = got->sink.devices[0];
  EXPECT_EQ(t4.name, "Tesla T4");
  EXPECT_EQ(t4.sm_count, 40);
  EXPECT_EQ(t4.l2_cache_bytes, 4 * 1024 * 1024);
  EXPECT_EQ(t4.memory_bus_width_bits, 256);
  EXPECT_EQ(t4.compute_capability_major, 7);
  EXPECT_EQ(t4.compute_capability_minor, 5);
}

TEST(NcuRepImport, A100SelfJoinDevice) {
  const fs::path file = Fixture("self-join-2021.2-prof1024.ncu-rep");
  if (!fs::exists(file)) GTEST_SKIP() << "no shared fixtures at " << file;
  const auto got = Import(file);
  ASSERT_TRUE(got->ok);
  EXPECT_EQ(got->sink.launches.size(), 4u);
  ASSERT_EQ(got->sink.devices.size(), 1u);
  const model::DeviceInfo& a100 = got->sink.devices[0];
  EXPECT_EQ(a100.sm_count, 108);
  EXPECT_EQ(a100.l2_cache_bytes, 40 * 1024 * 1024);
  EXPECT_EQ(a100.memory_bus_width_bits, 5120);
  EXPECT_EQ(a100.sm_clock_max_khz, 1410000);
  EXPECT_EQ(a100.compute_capability_major, 8);
  for (const auto& l : got->sink.launches) {
    EXPECT_TRUE(l.has_nvtx);
    EXPECT_TRUE(l.nvtx_stack.empty());
  }
}

TEST(NcuRepImport, CudaCodeFindingsWithSpeedups) {
  const fs::path file = Fixture("cudacode-2024.1-report.ncu-rep");
  if (!fs::exists(file)) GTEST_SKIP() << "no shared fixtures at " << file;
  const auto got = Import(file);
  ASSERT_TRUE(got->ok);
  ASSERT_EQ(got->sink.launches.size(), 1u);
  const auto& findings = got->sink.launches[0].findings;
  ASSERT_EQ(findings.size(), 7u);  // 7 messages over the 5 rules that have a body
  std::size_t local = 0, global = 0;
  for (const auto& f : findings) {
    EXPECT_EQ(f.type, model::FindingType::kOptimization);
    local += f.speedup_kind == model::SpeedupKind::kLocal;
    global += f.speedup_kind == model::SpeedupKind::kGlobal;
  }
  EXPECT_EQ(local, 2u);   // AchievedOccupancy, TheoreticalOccupancy
  EXPECT_EQ(global, 4u);  // LaunchConfiguration x2, WorkloadImbalance x2
}

TEST(NcuRepImport, ManualNvtxStacks) {
  const fs::path file = Fixture("nsight-training-manual_nvtx.ncu-rep");
  if (!fs::exists(file)) GTEST_SKIP() << "no shared fixtures at " << file;
  const auto got = Import(file);
  ASSERT_TRUE(got->ok);
  ASSERT_EQ(got->sink.launches.size(), 3u);
  const char* inner[] = {"init_data", "daxpy", "check_results"};
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& stack = got->sink.launches[i].nvtx_stack;
    ASSERT_EQ(stack.size(), 2u);
    EXPECT_EQ(stack[0], (model::NvtxFrame{"", "run_test", std::nullopt}));
    EXPECT_EQ(stack[1], (model::NvtxFrame{"", inner[i], std::nullopt}));
  }
}

TEST(NcuRepImport, WindowsProcessNameWithoutNul) {
  const fs::path file = Fixture("gpu-demo-2025.2-ncu_report_optimized.ncu-rep");
  if (!fs::exists(file)) GTEST_SKIP() << "no shared fixtures at " << file;
  const auto got = Import(file);
  ASSERT_TRUE(got->ok);
  ASSERT_EQ(got->sink.launches.size(), 4u);
  EXPECT_EQ(got->sink.launches[0].process.Label(), "MatrixTranspose_optimized.exe (21192)");
  EXPECT_EQ(got->sink.launches[0].grid_size.empty(), false);
  const model::Metric* grid = Find(got->sink.launches[0], "launch__grid_size");
  ASSERT_NE(grid, nullptr);
  EXPECT_TRUE(grid->value.value.has_value());  // uint64 + one-element list (2024.3+)
}

}  // namespace
}  // namespace llmpo::ingest
