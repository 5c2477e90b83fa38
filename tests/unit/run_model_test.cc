#include "src/report/run_model.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "src/analysis/kernel_category.h"

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
  kernels.sources = {{"ncu.csv", "ncu-details-csv", std::nullopt, model::SourceFamily::kNcu},
                     {"run.sqlite", "nsys-sqlite", std::nullopt, model::SourceFamily::kTimeline}};
  kernels.kernels = KernelRows(
      {Kernel("ncu.csv", "gemm", 900, 3), Kernel("run.sqlite", "gemm", 300, 3), Kernel("run.sqlite", "relu", 100, 1)});
  const RunModel m = BuildRunModel(RunContext{}, kernels, nullptr);
  EXPECT_EQ(m.times_from, "run.sqlite");
  EXPECT_DOUBLE_EQ(m.gpu_kernel_ns, 400);  // never 1300: ncu's replayed times are not added
  EXPECT_EQ(m.launches, 4u);
  ASSERT_EQ(m.top_kernels.size(), 2u);
  EXPECT_EQ(m.top_kernels[0].kernel.name, "gemm");
  EXPECT_DOUBLE_EQ(m.top_kernels[0].share_pct, 75);
  EXPECT_FALSE(m.has_regions);
}

analysis::KernelAggregate RankKernel(const char* source, const char* name, double total_ns, std::optional<int> rank) {
  analysis::KernelAggregate k = Kernel(source, name, total_ns, 1);
  if (rank) k.process.rank = *rank;
  return k;
}

model::SourceFamily Timeline() { return model::SourceFamily::kTimeline; }

// Rank files are different processes: their kernels add, each rank's from
// its own timing input; rank 0's ncu capture (replayed times) is never added,
// nor an input without ranks that times no rank (here a second ncu page).
TEST(RunModel, RankFilesAddEachRankFromItsOwnTimingInput) {
  KernelsReport kernels;
  kernels.sources = {{"r0.json", "kineto-trace", std::nullopt, Timeline()},
                     {"r1.json", "kineto-trace", std::nullopt, Timeline()},
                     {"ncu.r0.csv", "ncu-details-csv", std::nullopt, model::SourceFamily::kNcu},
                     {"ncu.csv", "ncu-details-csv", std::nullopt, model::SourceFamily::kNcu}};
  kernels.kernels = KernelRows({RankKernel("r0.json", "gemm", 300, 0), RankKernel("r0.json", "relu", 50, std::nullopt),
                                RankKernel("r1.json", "gemm", 400, 1), RankKernel("ncu.r0.csv", "gemm", 900, 0),
                                RankKernel("ncu.csv", "gemm", 700, std::nullopt)});
  const RunModel m = BuildRunModel(RunContext{}, kernels, nullptr);
  EXPECT_EQ(m.times_from, "2 inputs of 2 ranks");
  // r0's gemm, r0's relu without a rank (its input times rank 0), r1's gemm.
  EXPECT_DOUBLE_EQ(m.gpu_kernel_ns, 750);
  EXPECT_EQ(m.launches, 3u);
}

// One input for every rank (a tar of ranks): as TimesFromOneSource, the
// input's every kernel, ranked or not.
TEST(RunModel, OneInputOfEveryRankIsThatInput) {
  KernelsReport kernels;
  kernels.sources = {{"ranks.tar", "kineto-trace", std::nullopt, Timeline()},
                     {"ncu.csv", "ncu-details-csv", std::nullopt, model::SourceFamily::kNcu}};
  kernels.kernels =
      KernelRows({RankKernel("ranks.tar", "gemm", 300, 0), RankKernel("ranks.tar", "gemm", 400, 1),
                  RankKernel("ranks.tar", "relu", 5, std::nullopt), RankKernel("ncu.csv", "gemm", 900, 0)});
  const RunModel m = BuildRunModel(RunContext{}, kernels, nullptr);
  EXPECT_EQ(m.times_from, "ranks.tar");
  EXPECT_DOUBLE_EQ(m.gpu_kernel_ns, 705);
  std::string one;
  const auto same = TimesFromOneSource(kernels, &one);
  double ns = 0;
  for (const auto& k : same) ns += k.total_ns;
  EXPECT_EQ(one, "ranks.tar");
  EXPECT_DOUBLE_EQ(ns, 705);
}

// An input holding two ranks beside a later file of one of them: each rank
// is timed by its own rule, so the file times rank 1 and the archive rank 0
// only (never rank 1 twice). Kernels, launch sequences and devices all ask
// the same choice.
TEST(TimingChoice, EachRankFromItsOwnInputNeverTwice) {
  KernelsReport kernels;
  kernels.sources = {{"ranks.tar", "kineto-trace", std::nullopt, Timeline()},
                     {"r1.json", "kineto-trace", std::nullopt, Timeline()},
                     {"ncu.csv", "ncu-details-csv", std::nullopt, model::SourceFamily::kNcu}};
  kernels.kernels = KernelRows({RankKernel("ranks.tar", "gemm", 300, 0), RankKernel("ranks.tar", "gemm", 400, 1),
                                RankKernel("r1.json", "gemm", 450, 1), RankKernel("ncu.csv", "gemm", 900, 1)});
  const TimingChoice c = TimingChoice::Of(kernels);
  EXPECT_EQ(c.label(), "2 inputs of 2 ranks");
  EXPECT_TRUE(c.Times("ranks.tar", 0));
  EXPECT_FALSE(c.Times("ranks.tar", 1));
  EXPECT_TRUE(c.Times("r1.json", 1));
  EXPECT_FALSE(c.Times("r1.json", 0));
  EXPECT_FALSE(c.Times("ncu.csv", 1));
  EXPECT_TRUE(c.Times("ranks.tar", std::nullopt));  // an unranked kernel of a timing input
  EXPECT_FALSE(c.Times("ncu.csv", std::nullopt));
  EXPECT_TRUE(c.Uses("ranks.tar") && c.Uses("r1.json") && !c.Uses("ncu.csv"));
  std::string label;
  double ns = 0;
  for (const auto& k : TimesFromEachRank(kernels, &label)) ns += k.total_ns;
  EXPECT_DOUBLE_EQ(ns, 750);  // 300 + 450
}

TEST(TimingChoice, OneInputAndNoKernels) {
  KernelsReport none;
  const TimingChoice empty = TimingChoice::Of(none);
  EXPECT_EQ(empty.label(), "");
  EXPECT_TRUE(empty.inputs().empty());
  EXPECT_FALSE(empty.Times("", std::nullopt));
  KernelsReport one;
  one.sources = {{"run.sqlite", "nsys-sqlite", std::nullopt, Timeline()},
                 {"ncu.csv", "ncu-details-csv", std::nullopt, model::SourceFamily::kNcu}};
  one.kernels = KernelRows({RankKernel("run.sqlite", "gemm", 1, 0), RankKernel("ncu.csv", "gemm", 9, 0)});
  const TimingChoice c = TimingChoice::Of(one);
  EXPECT_EQ(c.label(), "run.sqlite");
  EXPECT_TRUE(c.Times("run.sqlite", 5));  // one input times every kernel it holds, whatever its rank
  EXPECT_FALSE(c.Times("ncu.csv", 0));
}

// The ranked actions' measured time over rank files: every rank's kernels,
// each from its own file (no device spans here: GPU kernel time).
TEST(TimingChoice, RankedActionsMeasureEveryRank) {
  auto categorizer = analysis::KernelCategorizer::Create();
  ASSERT_TRUE(categorizer.ok());
  KernelsReport kernels;
  kernels.sources = {{"r0.json", "kineto-trace", std::nullopt, Timeline()},
                     {"r1.json", "kineto-trace", std::nullopt, Timeline()}};
  kernels.kernels = KernelRows({RankKernel("r0.json", "gemm", 300, 0), RankKernel("r1.json", "gemm", 400, 1)});
  AnalyzeKernels(kernels, *categorizer);
  EXPECT_EQ(kernels.times_from, "2 inputs of 2 ranks");
  EXPECT_EQ(kernels.ranked.times_from, "2 inputs of 2 ranks");
  EXPECT_EQ(kernels.ranked.base, RankBase::kGpuKernelTime);
  ASSERT_TRUE(kernels.ranked.base_ns.has_value());
  EXPECT_DOUBLE_EQ(*kernels.ranked.base_ns, 700);  // the old rule measured one file: 400
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

analysis::Region RegionOf(const char* label, std::vector<double> cpu_instances_ns, double total_ns) {
  analysis::Region r;
  r.label = r.name = label;
  r.path = {label};
  r.total_ns = total_ns;
  for (double ns : cpu_instances_ns) r.cpu_instances.Add(ns);
  return r;
}

// TTFT = mean prefill instance, TPOT = mean decode step, tokens/s = tokens
// per step / TPOT; MBU = bytes / region GPU time / peak bandwidth.
TEST(RunModel, ServingMetricsAndMbuFromRegions) {
  const analysis::Region prefill = RegionOf("prefill", {20e6}, 15e6);
  const analysis::Region decode = RegionOf("decode", {5e6, 7e6}, 12e6);
  RegionsReport regions;
  regions.aggregate = std::vector<RegionEntry>{{&prefill, std::nullopt, ""}, {&decode, std::nullopt, ""}};
  RunContext run;
  run.tokens_per_step = 4;
  run.region_bytes = {{"decode", 24e9}, {"missing", 1e9}};
  run.peak_gbps = 4000;
  const RunModel m = BuildRunModel(run, KernelsReport{}, &regions);
  ASSERT_TRUE(m.serving.ttft_ns && m.serving.tpot_ns && m.serving.tokens_per_s);
  EXPECT_DOUBLE_EQ(*m.serving.ttft_ns, 20e6);
  EXPECT_DOUBLE_EQ(*m.serving.tpot_ns, 6e6);
  EXPECT_EQ(m.serving.decode_steps, 2u);
  EXPECT_NEAR(*m.serving.tokens_per_s, 4 / 6e-3, 1e-9);
  ASSERT_EQ(m.mbu.size(), 2u);
  EXPECT_DOUBLE_EQ(*m.mbu[0].achieved_gbps, 2000);
  EXPECT_DOUBLE_EQ(*m.mbu[0].mbu_pct, 50);
  EXPECT_FALSE(m.mbu[1].mbu_pct.has_value());
  EXPECT_EQ(m.mbu[1].missing, "region not in this run");
}

// A region measured only under ncu (range replay) has no serving time.
TEST(RunModel, NoServingTimesFromNcuMeasurements) {
  analysis::Region prefill = RegionOf("prefill", {}, 15e6);
  prefill.measured.Add(15e6);
  RegionsReport regions;
  regions.aggregate = std::vector<RegionEntry>{{&prefill, std::nullopt, ""}};
  const RunModel m = BuildRunModel(RunContext{}, KernelsReport{}, &regions);
  EXPECT_FALSE(m.serving.ttft_ns.has_value());
  EXPECT_NE(m.serving.ttft_missing.find("ncu"), std::string::npos) << m.serving.ttft_missing;
  EXPECT_EQ(m.serving.tpot_missing, "region not in this run");
}

}  // namespace
}  // namespace llmpo::report
