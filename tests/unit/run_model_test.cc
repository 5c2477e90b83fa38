#include "src/report/run_model.h"

#include <gtest/gtest.h>

namespace llmpo::report {
namespace {

analysis::KernelAggregate Kernel(const char* source, const char* name, double total_ns, std::uint64_t calls) {
  analysis::KernelAggregate k;
  k.source = source;
  k.name = name;
  k.total_ns = total_ns;
  k.calls = k.timed_calls = calls;
  return k;
}

TEST(RunModel, KernelTimesComeFromTheTimelineOnly) {
  KernelsReport kernels;
  kernels.sources = {{"ncu.csv", "ncu-details-csv", "ok", model::SourceFamily::kNcu},
                     {"run.sqlite", "nsys-sqlite", "ok", model::SourceFamily::kTimeline}};
  kernels.kernels = {Kernel("ncu.csv", "gemm", 900, 3), Kernel("run.sqlite", "gemm", 300, 3),
                     Kernel("run.sqlite", "relu", 100, 1)};
  const RunModel m = BuildRunModel(RunContext{}, kernels, nullptr);
  EXPECT_EQ(m.times_from, "run.sqlite");
  EXPECT_DOUBLE_EQ(m.gpu_kernel_ns, 400);  // never 1300: ncu's replayed times are not added
  EXPECT_EQ(m.launches, 4u);
  ASSERT_EQ(m.top_kernels.size(), 2u);
  EXPECT_EQ(m.top_kernels[0].kernel.name, "gemm");
  EXPECT_DOUBLE_EQ(m.top_kernels[0].share_pct, 75);
  EXPECT_FALSE(m.has_regions);
}

TEST(RunModel, MfuNeedsAKnownGpuTime) {
  RunContext run;
  run.region_flops = {{"decode", 1e12}};
  run.peak_tflops = 100;
  const RunModel m = BuildRunModel(run, KernelsReport{}, nullptr);
  EXPECT_TRUE(m.mfu_configured);
  EXPECT_TRUE(m.mfu_without_regions);
  EXPECT_TRUE(m.mfu.empty());
}

}  // namespace
}  // namespace llmpo::report
