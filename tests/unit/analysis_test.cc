// The analysis layer: ncu findings, bound classes, kernel categories,
// rooflines and ranked actions, on hand-made cases and on the shared real
// ncu exports (skipped when ../shared/fixtures is absent).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "src/analysis/bound_class.h"
#include "src/analysis/gpu_timeline.h"
#include "src/analysis/kernel_aggregator.h"
#include "src/analysis/kernel_category.h"
#include "src/analysis/model_utilization.h"
#include "src/analysis/roofline.h"
#include "src/ingest/importer.h"
#include "src/report/analysis_model.h"
#include "src/report/kernels_report.h"

namespace llmpo {
namespace {

namespace fs = std::filesystem;
using analysis::BoundClass;

struct Collect : model::RecordSink {
  std::vector<model::LaunchRecord> launches;
  void OnLaunch(const model::LaunchRecord& l) override { launches.push_back(l); }
  void OnKernelSummary(const model::KernelSummaryRow&) override {}
};

fs::path Fixture(const std::string& relative) {
  return fs::path(LLMPO_SOURCE_DIR) / ".." / "shared" / "fixtures" / "ncu-csv" / relative;
}

std::vector<model::LaunchRecord> ImportFile(const fs::path& file, model::Diagnostics& d) {
  std::ifstream in(file, std::ios::binary);
  Collect sink;
  ingest::ImportContext ctx{file.string(), sink, d};
  EXPECT_TRUE(ingest::ImportNcuCsv(in, ctx).ok());
  return sink.launches;
}

model::Metric M(std::string name, std::string section, const std::string& value, const std::string& unit) {
  return model::Metric{std::move(name), std::move(section), ParseValue(value, unit)};
}

analysis::KernelAggregate KernelOf(const std::vector<model::LaunchRecord>& launches) {
  analysis::KernelAggregate k;
  for (const auto& l : launches) analysis::AddLaunch(k, l);
  k.name = launches.empty() ? "" : launches.front().kernel_name;
  return k;
}

// ---------------------------------------------------------------- findings

TEST(Findings, RuleRowsOfEveryTypeBecomeFindings) {
  std::istringstream in(
      "\"ID\",\"Kernel Name\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\",\"Rule Name\","
      "\"Rule Type\",\"Rule Description\",\"Estimated Speedup Type\",\"Estimated Speedup\"\n"
      "\"0\",\"k\",\"S\",\"gpu__time_duration.sum\",\"ns\",\"1,000\",,,,,\n"
      "\"0\",\"k\",\"SpeedOfLight\",,,,\"SOLBottleneck\",\"OPT\",\"grid too small\",,\n"
      "\"0\",\"k\",\"LaunchStats\",,,,\"LaunchConfiguration\",\"OPT\",\"few blocks\",\"global\",\"39.39\"\n"
      "\"0\",\"k\",\"SchedulerStats\",,,,\"IssueSlotUtilization\",\"OPT\",\"issue\",\"local\",\"80.34\"\n"
      "\"0\",\"k\",\"PmSampling\",,,,\"PMSamplingData\",\"WRN\",\"interval\",,\n"
      "\"0\",\"k\",\"SpeedOfLight_RooflineChart\",,,,\"SOLFPRoofline\",\"INF\",\"ratio\",,\n"
      "\"0\",\"k\",\"X\",,,,\"Broken\",\"ERR\",\"failed\",,\n"
      "\"0\",\"k\",\"X\",,,,\"BadSpeedup\",\"OPT\",\"m\",\"global\",\"lots\"\n"
      "\"0\",\"k\",\"X\",,,,\"BadType\",\"MAYBE\",\"m\",,\n");
  Collect sink;
  model::Diagnostics d;
  ingest::ImportContext ctx{"d.csv", sink, d};
  ASSERT_TRUE(ingest::ImportNcuCsv(in, ctx).ok());
  ASSERT_EQ(sink.launches.size(), 1u);
  const auto& f = sink.launches[0].findings;
  ASSERT_EQ(f.size(), 7u);  // BadType skipped
  EXPECT_EQ(f[0].rule, "SOLBottleneck");
  EXPECT_EQ(f[0].section, "SpeedOfLight");
  EXPECT_EQ(f[0].type, model::FindingType::kOptimization);
  EXPECT_FALSE(f[0].speedup_pct.has_value());
  EXPECT_EQ(f[1].speedup_kind, model::SpeedupKind::kGlobal);
  EXPECT_DOUBLE_EQ(*f[1].speedup_pct, 39.39);
  EXPECT_EQ(f[2].speedup_kind, model::SpeedupKind::kLocal);
  EXPECT_EQ(f[3].type, model::FindingType::kWarning);
  EXPECT_EQ(f[4].type, model::FindingType::kInfo);
  EXPECT_EQ(f[5].type, model::FindingType::kError);
  EXPECT_FALSE(f[6].speedup_pct.has_value());  // "lots" is no percentage
  EXPECT_EQ(d.entries().count("bad_rule_speedup"), 1u);
  EXPECT_EQ(d.entries().count("bad_rule_row"), 1u);
  EXPECT_EQ(sink.launches[0].metrics.size(), 1u);
}

TEST(Findings, KernelKeepsTheLargestSpeedupMessageAndADurationWeightedMean) {
  model::LaunchRecord a, b;
  a.kernel_name = b.kernel_name = "k";
  a.duration_ns = 1000;
  b.duration_ns = 3000;
  a.findings = {{"R", "S", model::FindingType::kOptimization, "up to 10.0% faster", 10.0, model::SpeedupKind::kGlobal}};
  b.findings = {{"R", "S", model::FindingType::kOptimization, "up to 30.0% faster", 30.0, model::SpeedupKind::kGlobal}};
  const auto k = KernelOf({a, b});
  ASSERT_EQ(k.findings.size(), 1u);
  EXPECT_EQ(k.findings[0].finding.message, "up to 30.0% faster");
  EXPECT_EQ(k.findings[0].launches, 2u);
  EXPECT_DOUBLE_EQ(*k.findings[0].MeanSpeedupPct(), (10.0 * 1000 + 30.0 * 3000) / 4000);
}

TEST(Findings, MessageShapeMasksEveryNumber) {
  EXPECT_EQ(analysis::MessageShape("value is 7.79% above, 1,024 blocks, 0.39 full waves."),
            "value is #% above, # blocks, # full waves.");
}

// The shape, byte by byte, as the rule reads: digits with '.' or ',' between
// digits are one number; anything else is kept.
std::string ShapeByteByByte(std::string_view m) {
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::string out;
  for (std::size_t i = 0; i < m.size();) {
    if (!digit(m[i])) {
      out += m[i++];
      continue;
    }
    while (i < m.size() && (digit(m[i]) || ((m[i] == '.' || m[i] == ',') && i + 1 < m.size() && digit(m[i + 1])))) ++i;
    out += '#';
  }
  return out;
}

TEST(Findings, MessageShapeOfAnyTextIsTheByteByByteRule) {
  std::mt19937 rng(29);
  const std::string pieces[] = {"0", "7", "9", ".", ",", " ", "a", "/", ":", "\xc3\xa9", "\xff", "%", "1,024", "6.334"};
  for (int trial = 0; trial < 2000; ++trial) {
    std::string m;
    const int parts = static_cast<int>(rng() % 60);
    for (int p = 0; p < parts; ++p) m += pieces[rng() % std::size(pieces)];
    ASSERT_EQ(analysis::MessageShape(m), ShapeByteByByte(m)) << m;
  }
}

// Launches of one kernel whose rule gave different messages keep each message
// with its own launches, never paired by row position (sglang-h200 fused_moe).
TEST(Findings, DifferentMessagesOfOneRuleAreNotMergedByRowPosition) {
  model::LaunchRecord a, b;
  a.kernel_name = b.kernel_name = "fused_moe";
  a.duration_ns = b.duration_ns = 1000;
  const auto opt = model::FindingType::kOptimization;
  const auto global = model::SpeedupKind::kGlobal;
  a.findings = {{"SOLBottleneck", "SpeedOfLight", opt, "Memory is more heavily utilized", {}, {}},
                {"WorkloadImbalance", "WD", opt, "One or more SMs ... 7.79% above", 6.334, global},
                {"WorkloadImbalance", "WD", opt, "One or more SMSPs ... 9.41% above", 7.764, global}};
  b.findings = {{"SOLBottleneck", "SpeedOfLight", opt, "grid is too small: 0.39 full waves", {}, {}},
                {"WorkloadImbalance", "WD", opt, "One or more SMSPs ... 9.51% above", 6.98, global}};
  const auto k = KernelOf({a, b});
  ASSERT_EQ(k.findings.size(), 4u);
  std::map<std::string, const analysis::KernelFinding*> by_start;
  for (const auto& f : k.findings) by_start[f.finding.message.substr(0, 16)] = &f;
  EXPECT_EQ(by_start.at("Memory is more h")->launches, 1u);
  EXPECT_EQ(by_start.at("grid is too smal")->launches, 1u);
  EXPECT_EQ(by_start.at("One or more SMs ")->launches, 1u);
  EXPECT_DOUBLE_EQ(*by_start.at("One or more SMs ")->MeanSpeedupPct(), 6.334);  // not mixed with 6.98
  EXPECT_EQ(by_start.at("One or more SMSP")->launches, 2u);
  EXPECT_DOUBLE_EQ(*by_start.at("One or more SMSP")->MeanSpeedupPct(), (7.764 + 6.98) / 2);
}

// The 426 rule rows of the real sglang-h200 details page (analysis-reference §3.4).
TEST(Findings, SglangH200DetailsKeepsEveryRuleRow) {
  const fs::path file = Fixture("sglang-h200/details.csv");
  if (!fs::exists(file)) GTEST_SKIP() << "no shared fixtures at " << file;
  model::Diagnostics d;
  const auto launches = ImportFile(file, d);
  ASSERT_EQ(launches.size(), 30u);
  std::size_t rows = 0;
  std::map<std::string, std::size_t> by_rule;
  for (const auto& l : launches) {
    rows += l.findings.size();
    for (const auto& f : l.findings) ++by_rule[f.rule];
  }
  EXPECT_EQ(rows, 426u);
  EXPECT_EQ(by_rule["SOLBottleneck"], 30u);
  EXPECT_EQ(by_rule["MemoryL2Compression"], 45u);
  EXPECT_EQ(by_rule["CPIStall"], 28u + 26u);
  EXPECT_EQ(by_rule["PMSamplingData"], 29u);
  EXPECT_EQ(d.entries().count("bad_rule_row"), 0u);
}

// ------------------------------------------------------------- bound class

analysis::BoundInputs In(double sm, double mem, std::optional<double> waves) {
  analysis::BoundInputs in;
  in.sm_pct = sm;
  in.memory_pct = mem;
  in.waves_per_sm = waves;
  in.missing_waves = "launch__waves_per_multiprocessor not captured";
  return in;
}

TEST(Bound, EachClassAtItsThresholds) {
  EXPECT_EQ(analysis::Classify(In(80, 10, 4)).cls, BoundClass::kHighThroughput);
  EXPECT_EQ(analysis::Classify(In(10, 85, 4)).cls, BoundClass::kHighThroughput);
  EXPECT_EQ(analysis::Classify(In(75, 65, 4)).cls, BoundClass::kCompute);  // 10 points apart
  EXPECT_EQ(analysis::Classify(In(61, 71, 4)).cls, BoundClass::kMemory);
  EXPECT_EQ(analysis::Classify(In(65, 70, 4)).cls, BoundClass::kBalanced);
  EXPECT_EQ(analysis::Classify(In(59.9, 20, 1)).cls, BoundClass::kLatency);
  EXPECT_EQ(analysis::Classify(In(2.4, 1.3, 0.61)).cls, BoundClass::kSmallGrid);
  // Below 60 on both, the 10-point difference does not matter (ncu's order).
  EXPECT_EQ(analysis::Classify(In(5, 50, 2)).cls, BoundClass::kLatency);
}

TEST(Bound, MissingWavesOrThroughputIsUnknownAndNamed) {
  const auto no_waves = analysis::Classify(In(2.4, 1.3, std::nullopt));
  EXPECT_EQ(no_waves.cls, BoundClass::kUnknown);
  EXPECT_NE(no_waves.reason.find("launch__waves_per_multiprocessor"), std::string::npos) << no_waves.reason;
  // With enough throughput the waves do not matter.
  EXPECT_EQ(analysis::Classify(In(70, 20, std::nullopt)).cls, BoundClass::kCompute);
  analysis::BoundInputs in;
  in.sm_pct = 50;
  in.missing_memory = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed not captured";
  const auto b = analysis::Classify(in);
  EXPECT_EQ(b.cls, BoundClass::kUnknown);
  EXPECT_EQ(b.reason, in.missing_memory);
}

TEST(Bound, AMetricAbsentInOneLaunchIsUnknown) {
  model::LaunchRecord a, b;
  a.metrics = {M("sm__throughput.avg.pct_of_peak_sustained_elapsed", "", "50", "%"),
               M("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "", "70", "%")};
  b.metrics = {M("sm__throughput.avg.pct_of_peak_sustained_elapsed", "", "50", "%")};
  const auto bound = analysis::ClassifyKernel(KernelOf({a, b}));
  EXPECT_EQ(bound.cls, BoundClass::kUnknown);
  EXPECT_NE(bound.reason.find("absent in 1 of 2 launches"), std::string::npos) << bound.reason;
}

TEST(Bound, MemoryUnitIsTheBreakdownItemThatEqualsMemoryThroughput) {
  analysis::BoundInputs in = In(11.68, 63.78, 0.29);
  in.dram_pct = 63.78;
  in.l2_pct = 65.41;  // L2 Cache Throughput is not part of the breakdown maximum
  in.l1_pct = 34.98;
  EXPECT_EQ(analysis::Classify(in).unit, "DRAM");
}

// .ncu-rep files hold the Speed Of Light section's name for DRAM throughput
// (gpu__dram_throughput); read as DRAM, not left out (which made L1 the
// "busiest" unit of a DRAM-bound kernel). Values from the shared
// cuda-mlp-inference-2024.2-full.ncu-rep.
TEST(Bound, SpeedOfLightDramNameIsDramThroughput) {
  model::LaunchRecord l;
  l.kernel_name = "matrix_addition2D";
  l.duration_ns = 1000;
  l.metrics = {M("sm__throughput.avg.pct_of_peak_sustained_elapsed", "", "27.80", "%"),
               M("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "", "88.39", "%"),
               M("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "", "88.39", "%"),
               M("lts__throughput.avg.pct_of_peak_sustained_elapsed", "", "30.1", "%"),
               M("l1tex__throughput.avg.pct_of_peak_sustained_active", "", "46.8", "%")};
  const analysis::KernelAggregate k = KernelOf({l});
  const analysis::BoundInputs in = analysis::BoundInputsOf(k);
  ASSERT_TRUE(in.dram_pct);
  EXPECT_DOUBLE_EQ(*in.dram_pct, 88.39);
  EXPECT_EQ(analysis::Classify(in).unit, "DRAM");
  const auto first = k.FirstValue(analysis::kDramThroughputPct);
  ASSERT_TRUE(first);
  EXPECT_DOUBLE_EQ(*first, 88.39);
}

// What ncu's own SOLBottleneck message says.
BoundClass FromRuleText(const std::string& text) {
  if (text.find("too small to fill") != std::string::npos) return BoundClass::kSmallGrid;
  if (text.find("low compute throughput and memory bandwidth") != std::string::npos) return BoundClass::kLatency;
  if (text.starts_with("Memory is more heavily utilized")) return BoundClass::kMemory;
  if (text.starts_with("Compute is more heavily utilized")) return BoundClass::kCompute;
  if (text.find("greater than 80") != std::string::npos) return BoundClass::kHighThroughput;
  return BoundClass::kBalanced;
}

TEST(Bound, AgreesWithNcuSolBottleneckOnSglangH200PerLaunchAndPerKernel) {
  const fs::path file = Fixture("sglang-h200/details.csv");
  if (!fs::exists(file)) GTEST_SKIP() << "no shared fixtures at " << file;
  model::Diagnostics d;
  const auto launches = ImportFile(file, d);
  std::map<std::string, std::vector<model::LaunchRecord>> by_kernel;
  std::map<BoundClass, int> seen;
  for (const auto& l : launches) {
    by_kernel[l.kernel_name].push_back(l);
    for (const auto& f : l.findings) {
      if (f.rule != "SOLBottleneck") continue;
      const auto bound = analysis::ClassifyKernel(KernelOf({l}));
      EXPECT_EQ(bound.cls, FromRuleText(f.message)) << l.result_id << ": " << bound.reason << " / " << f.message;
      ++seen[bound.cls];
    }
  }
  EXPECT_EQ(seen[BoundClass::kSmallGrid], 28);
  EXPECT_EQ(seen[BoundClass::kMemory], 1);
  EXPECT_EQ(seen[BoundClass::kLatency], 1);
  // Per kernel (launches aggregated): wherever ncu gave all its launches the
  // same verdict. fused_moe_kernel's two launches differ (memory at 63.8 %,
  // small grid at 50.5 %), so no single ncu verdict exists for it.
  int kernels_checked = 0;
  for (const auto& [name, ls] : by_kernel) {
    std::set<BoundClass> verdicts;
    for (const auto& l : ls) {
      for (const auto& f : l.findings) {
        if (f.rule == "SOLBottleneck") verdicts.insert(FromRuleText(f.message));
      }
    }
    if (verdicts.size() != 1) continue;
    EXPECT_EQ(analysis::ClassifyKernel(KernelOf(ls)).cls, *verdicts.begin()) << name;
    ++kernels_checked;
  }
  EXPECT_EQ(kernels_checked, 26);  // 27 distinct kernels, fused_moe_kernel left out
}

// The RTX 5090 details page has no Launch Statistics: ncu said Small Grid,
// a replica without the waves must say unknown, naming the metric.
TEST(Bound, Rtx5090WithoutWavesIsUnknownNamingTheMetric) {
  const fs::path file = Fixture("llm-perf-opt-rtx5090/ncu.details.csv");
  if (!fs::exists(file)) GTEST_SKIP() << "no shared fixtures at " << file;
  model::Diagnostics d;
  const auto launches = ImportFile(file, d);
  ASSERT_EQ(launches.size(), 1u);
  const auto b = analysis::ClassifyKernel(KernelOf(launches));
  EXPECT_EQ(b.cls, BoundClass::kUnknown);
  EXPECT_NE(b.reason.find("waves"), std::string::npos) << b.reason;
}

// -------------------------------------------------------------- categories

TEST(Categories, ReferenceExamplesLandInTheirCategory) {
  auto c = analysis::KernelCategorizer::Create();
  ASSERT_TRUE(c.ok());
  const std::pair<const char*, const char*> cases[] = {
      {"ncclKernel_AllReduce_RING_LL_Sum_float", "communication"},
      {"multimem_all_reduce_kernel", "communication"},
      {"[CUDA memcpy Host-to-Device]", "memcpy/memset"},
      {"cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<...>>>", "attention"},
      {"flash::prepare_varlen_num_blocks_kernel", "attention"},
      {"vllm::reshape_and_cache_flash_kernel", "kv-cache"},
      {"nvjet_tst_64x8_64x16_4x1_v_bz_TNT", "gemm"},
      {"ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x3_nn", "gemm"},
      {"cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64>", "gemm"},
      {"cublasLt::splitKreduce_kernel", "gemm"},
      {"fused_moe_kernel", "moe"},
      {"topkGatingSoftmax", "moe-routing"},
      {"moe_align_block_size_kernel", "moe-routing"},
      {"norm::FusedAddRMSNormKernel", "normalization"},
      {"flashinfer::BatchQKApplyRotaryPosIdsCosSinCacheEnhancedHeadParallelismKernel", "rotary"},
      {"activation::act_and_mul_kernel<__nv_bfloat16, &silu<float>>", "activation"},
      {"at::native::reduce_kernel<512, 1, ArgMaxOps>", "reduction"},
      {"triton_per_fused_copy__mul_sum_0", "reduction"},
      {"indexSelectSmallIndex", "embedding"},
      {"at::native::vectorized_elementwise_kernel<4, FillFunctor<float>>", "elementwise"},
      {"triton_poi_fused_add_cos_sin_0", "elementwise"},
      {"gdn_chunk_kernel", "other"},
  };
  for (const auto& [name, category] : cases) EXPECT_EQ(c->Categorize(name), category) << name;
}

TEST(Categories, UserRulesComeFirstAndBadOnesAreRefused) {
  auto c = analysis::KernelCategorizer::Create({{"my-attention", "^my_attn"}});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->Categorize("my_attn_gemm"), "my-attention");
  EXPECT_EQ(c->Categorize("gemm"), "gemm");
  auto bad = analysis::KernelCategorizer::Create({{"x", "(unclosed"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("(unclosed"), std::string::npos);
  EXPECT_EQ(bad.error().kind, ExitStatus::kUsage);
  EXPECT_FALSE(analysis::KernelCategorizer::Create({{"", "x"}}).ok());
}

// ---------------------------------------------------------------- roofline

const analysis::RooflinePrecision* Precision(const analysis::Roofline& r, const std::string& name) {
  for (const auto& p : r.precisions) {
    if (p.precision == name) return &p;
  }
  return nullptr;
}

const analysis::RooflineLevel* Level(const analysis::RooflinePrecision& p, const std::string& name) {
  for (const auto& l : p.levels) {
    if (l.level == name) return &l;
  }
  return nullptr;
}

// analysis-reference §2.3 A: recomputed by hand from the section export.
TEST(Roofline, Rtx5090SectionExportFp32) {
  const fs::path file = Fixture("llm-perf-opt-rtx5090/ncu.section_SpeedOfLight_RooflineChart.csv");
  if (!fs::exists(file)) GTEST_SKIP() << "no shared fixtures at " << file;
  model::Diagnostics d;
  const auto r = analysis::ComputeRoofline(KernelOf(ImportFile(file, d)));
  const auto* fp32 = Precision(r, "fp32");
  ASSERT_NE(fp32, nullptr) << r.missing;
  EXPECT_NEAR(*fp32->achieved_per_s, 160.09 * 2.15e9, 1e8);
  EXPECT_NEAR(*fp32->peak_per_s, 93.57e12, 0.01e12);
  const auto* dram = Level(*fp32, "DRAM");
  ASSERT_NE(dram, nullptr);
  EXPECT_NEAR(*dram->intensity, 0.997, 0.001);
  EXPECT_NEAR(*dram->ridge, 53.3, 0.05);
  EXPECT_NEAR(*dram->pct_of_roof, 19.7, 0.05);
  // No L2/L1 traffic metrics in this export: null with the reason.
  const auto* l2 = Level(*fp32, "L2");
  ASSERT_NE(l2, nullptr);
  EXPECT_FALSE(l2->intensity.has_value());
  EXPECT_NE(l2->missing.find("lts__lts2xbar_cycles_active"), std::string::npos) << l2->missing;
  EXPECT_EQ(Precision(r, "fp64"), nullptr);  // no FP64 work
}

// analysis-reference §2.3 B: the H200 tensor kernels from base metrics.
TEST(Roofline, SglangH200RawTensorKernels) {
  const fs::path file = Fixture("sglang-h200/raw.csv");
  if (!fs::exists(file)) GTEST_SKIP() << "no shared fixtures at " << file;
  model::Diagnostics d;
  const auto launches = ImportFile(file, d);
  ASSERT_EQ(launches.size(), 30u);
  struct Expect {
    const char* id;
    const char* instruction;
    double tops, ai_dram, ai_l2, peak_tops, ridge, pct;
  };
  const Expect expected[] = {
      {"14", "wgmma", 19.49, 7.99, 7.61, 998, 209, 51.0},      {"19", "wgmma", 17.03, 8.24, 7.71, 1031, 215, 43.2},
      {"26", "mma.sync", 46.60, 15.22, 15.72, 646, 135, 63.8}, {"28", "mma.sync", 38.60, 15.94, 15.57, 655, 137, 50.5},
      {"18", "wgmma", 7.81, 134.3, 77.1, 1029, 215, 1.2},
  };
  for (const auto& e : expected) {
    const model::LaunchRecord* launch = nullptr;
    for (const auto& l : launches) {
      if (l.result_id == e.id) launch = &l;
    }
    ASSERT_NE(launch, nullptr) << e.id;
    const auto r = analysis::ComputeRoofline(KernelOf({*launch}));
    const auto* t = Precision(r, "tensor");
    ASSERT_NE(t, nullptr) << e.id << ": " << r.missing;
    EXPECT_EQ(t->instruction, e.instruction) << e.id << " " << t->path;
    EXPECT_FALSE(t->sparse);
    EXPECT_NEAR(*t->achieved_per_s / 1e12, e.tops, e.tops * 0.005) << e.id;
    EXPECT_NEAR(*t->peak_per_s / 1e12, e.peak_tops, e.peak_tops * 0.005) << e.id;
    const auto* dram = Level(*t, "DRAM");
    const auto* l2 = Level(*t, "L2");
    ASSERT_TRUE(dram && l2 && dram->intensity && l2->intensity && dram->ridge && dram->pct_of_roof) << e.id;
    EXPECT_NEAR(*dram->intensity, e.ai_dram, e.ai_dram * 0.005) << e.id;
    EXPECT_NEAR(*l2->intensity, e.ai_l2, e.ai_l2 * 0.01) << e.id;
    EXPECT_NEAR(*dram->ridge, e.ridge, e.ridge * 0.01) << e.id;
    EXPECT_NEAR(*dram->pct_of_roof, e.pct, std::max(0.1, e.pct * 0.005)) << e.id;
  }
}

TEST(Roofline, ZeroPeakOrClockAndNoCountersAreExplainedNulls) {
  model::LaunchRecord l;
  l.metrics = {M("smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed", "", "0", "inst/cycle"),
               M("smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed", "", "0", "inst/cycle"),
               M("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed", "", "10", "inst/cycle"),
               M("smsp__cycles_elapsed.avg.per_second", "", "2", "Ghz"),
               M("sm__cycles_elapsed.avg.per_second", "", "0", "Ghz"),  // a clock of 0
               M("sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained", "", "100", "inst/cycle"),
               M("dram__bytes.sum.per_second", "", "0", "byte/s"),  // no traffic
               M("dram__bytes.sum.peak_sustained", "", "0", "byte/cycle"),
               M("dram__cycles_elapsed.avg.per_second", "", "1", "Ghz")};
  const auto r = analysis::ComputeRoofline(KernelOf({l}));
  const auto* fp32 = Precision(r, "fp32");
  ASSERT_NE(fp32, nullptr);
  EXPECT_DOUBLE_EQ(*fp32->achieved_per_s, 40e9);
  const auto* dram = Level(*fp32, "DRAM");
  ASSERT_NE(dram, nullptr);
  EXPECT_FALSE(dram->intensity.has_value());
  EXPECT_FALSE(dram->ridge.has_value());
  EXPECT_FALSE(dram->pct_of_roof.has_value());
  EXPECT_NE(dram->missing.find("traffic is 0"), std::string::npos) << dram->missing;
  EXPECT_NE(dram->missing.find("peak is 0"), std::string::npos) << dram->missing;
  const auto none = analysis::ComputeRoofline(analysis::KernelAggregate{});
  EXPECT_TRUE(none.precisions.empty());
  EXPECT_NE(none.missing.find("not captured"), std::string::npos) << none.missing;
}

analysis::KernelAggregate Fp32Kernel(const char* ffma_per_cycle, const char* dram_bytes_per_s, double ns) {
  model::LaunchRecord l;
  l.duration_ns = ns;
  l.metrics = {
      M("smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed", "", "0", "inst/cycle"),
      M("smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed", "", "0", "inst/cycle"),
      M("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed", "", ffma_per_cycle, "inst/cycle"),
      M("smsp__cycles_elapsed.avg.per_second", "", "1", "Ghz"),
      M("sm__cycles_elapsed.avg.per_second", "", "1", "Ghz"),
      M("sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained", "", "100", "inst/cycle"),
      M("dram__bytes.sum.per_second", "", dram_bytes_per_s, "byte/s"),
      M("dram__bytes.sum.peak_sustained", "", "100", "byte/cycle"),
      M("dram__cycles_elapsed.avg.per_second", "", "1", "Ghz")};
  return KernelOf({l});
}

// Hand computation: A does 20 GFLOP/s at 10 GB/s for 1 us (AI 2, 10 % of a
// 200 GFLOP/s roof), B 80 GFLOP/s at 20 GB/s for 3 us (AI 4, 40 %).
TEST(Roofline, TimeWeightedOverARegionsKernels) {
  const auto a = Fp32Kernel("10", "10000000000", 1000);
  const auto b = Fp32Kernel("40", "20000000000", 3000);
  const auto summary = analysis::TimeWeightedRoofline({&a, &b});
  const analysis::RooflineSummary* dram = nullptr;
  for (const auto& s : summary) {
    if (s.precision == "fp32" && s.level == "DRAM") dram = &s;
  }
  ASSERT_NE(dram, nullptr);
  EXPECT_EQ(dram->kernels, 2u);
  EXPECT_NEAR(*dram->achieved_per_s, 65e9, 1);
  EXPECT_NEAR(*dram->intensity, 260.0 / 70.0, 1e-9);
  EXPECT_NEAR(*dram->pct_of_roof, 32.5, 1e-9);
}

// ----------------------------------------------------------------- actions

TEST(Actions, ShareTimesGlobalSpeedupElseHeadroomRanked) {
  auto categorizer = analysis::KernelCategorizer::Create();
  ASSERT_TRUE(categorizer.ok());
  // Times from a timeline; findings and metrics from ncu kernels of the same names.
  analysis::KernelAggregate t1, t2, n1, n2;
  t1.name = n1.name = "gemm_a";
  t2.name = n2.name = "rmsnorm_b";
  t1.source = t2.source = "nsys";
  n1.source = n2.source = "ncu";
  t1.total_ns = 600, t1.timed_calls = t1.calls = 1;
  t2.total_ns = 400, t2.timed_calls = t2.calls = 1;
  model::LaunchRecord l1;
  l1.duration_ns = 5000;  // an ncu duration: never used for the share
  l1.findings = {{"LaunchConfiguration", "LaunchStats", model::FindingType::kOptimization, "few blocks", 10.0,
                  model::SpeedupKind::kGlobal},
                 {"IssueSlotUtilization", "SchedulerStats", model::FindingType::kOptimization, "issue", 90.0,
                  model::SpeedupKind::kLocal}};
  analysis::AddLaunch(n1, l1);
  model::LaunchRecord l2;
  l2.metrics = {M("sm__throughput.avg.pct_of_peak_sustained_elapsed", "", "20", "%"),
                M("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "", "70", "%")};
  analysis::AddLaunch(n2, l2);
  std::vector<report::KernelRow> all = report::KernelRows({n1, n2, t1, t2});
  for (auto& row : all) row.insight = report::InsightFor(row, *categorizer);
  const auto actions = report::RankActions({t1, t2}, all);
  ASSERT_EQ(actions.size(), 2u);
  // rmsnorm: 40 % share x (100 - 70) % headroom = 12 %; gemm: 60 % x 10 % = 6 %.
  EXPECT_EQ(actions[0].kernel, "rmsnorm_b");
  EXPECT_EQ(actions[0].basis, "throughput headroom");
  EXPECT_NEAR(actions[0].saving_pct_of_gpu, 12.0, 1e-9);
  EXPECT_EQ(actions[0].category, "normalization");
  EXPECT_EQ(actions[1].kernel, "gemm_a");
  EXPECT_EQ(actions[1].rule, "LaunchConfiguration");  // the global one, not the larger local one
  EXPECT_NEAR(actions[1].saving_pct_of_gpu, 6.0, 1e-9);
  EXPECT_EQ(actions[1].message, "few blocks");
}

// Shares take their times from an input that measured kernels as they ran:
// an nsys summary given with an ncu page wins even when ncu's (serialised)
// kernel sorts first; ncu is the time source only when nothing else is.
TEST(Actions, TimingSourceIsNeverNcuWhenASummaryOrTimelineHasKernels) {
  report::KernelsReport r;
  r.sources = {{"ncu.csv", "ncu-details", std::nullopt, model::SourceFamily::kNcu},
               {"kern_sum.csv", "nsys-stats", std::nullopt, model::SourceFamily::kSummary},
               {"empty.sqlite", "nsys-sqlite", std::nullopt, model::SourceFamily::kTimeline}};  // no kernels
  analysis::KernelAggregate from_ncu, from_nsys;
  from_ncu.name = from_nsys.name = "gemv";
  from_ncu.source = "ncu.csv";
  from_ncu.total_ns = 9e9;  // sorts first
  from_nsys.source = "kern_sum.csv";
  from_nsys.total_ns = 1e6;
  r.kernels = report::KernelRows({from_ncu, from_nsys});
  EXPECT_EQ(report::TimingSource(r), "kern_sum.csv");
  analysis::KernelAggregate from_trace = from_nsys;
  from_trace.source = "empty.sqlite";
  r.kernels.push_back(report::KernelRow{from_trace, std::nullopt});
  EXPECT_EQ(report::TimingSource(r), "empty.sqlite");  // a timeline with kernels wins
  r.kernels = report::KernelRows({from_ncu});
  r.sources[1].failure = "cut";
  EXPECT_EQ(report::TimingSource(r), "ncu.csv");
}

// ----------------------------------------------------------- GPU timeline

model::LaunchRecord Interval(std::int64_t start, std::int64_t end,
                             model::LaunchKind kind = model::LaunchKind::kKernel) {
  model::LaunchRecord l;
  l.kind = kind;
  l.device = "0";
  l.start_ns = start;
  l.end_ns = end;
  return l;
}

TEST(GpuTimeline, BusyIsTheUnionOfKernelAndCopyIntervals) {
  analysis::GpuTimeline t;
  t.SetSource("s");
  t.OnLaunch(Interval(0, 10));
  t.OnLaunch(Interval(5, 20));  // overlaps on another stream: counted once
  t.OnLaunch(Interval(30, 40, model::LaunchKind::kMemcpy));
  t.OnLaunch(Interval(32, 35));  // inside the copy
  model::LaunchRecord ncu;       // no start/end (ncu): never counted
  ncu.duration_ns = 1000;
  t.OnLaunch(ncu);
  const auto busy = t.Busy();
  ASSERT_EQ(busy.size(), 1u);
  EXPECT_EQ(busy[0].kernels, 3u);
  EXPECT_EQ(busy[0].copies, 1u);
  EXPECT_DOUBLE_EQ(busy[0].span_ns, 40);
  EXPECT_DOUBLE_EQ(*busy[0].busy_ns, 30);
  EXPECT_DOUBLE_EQ(*busy[0].idle_ns, 10);
  EXPECT_DOUBLE_EQ(*busy[0].idle_pct, 25);
  // Memory stays bounded: old segments fold into a sum, exactly.
  analysis::GpuTimeline many;
  for (std::int64_t i = 0; i < 100000; ++i) many.OnLaunch(Interval(10 * i, 10 * i + 4));
  EXPECT_DOUBLE_EQ(*many.Busy()[0].busy_ns, 4.0 * 100000);
  // An operation starting inside the folded part could overlap it unseen: unknown, said.
  many.OnLaunch(Interval(0, 3));
  EXPECT_FALSE(many.Busy()[0].busy_ns.has_value());
  EXPECT_FALSE(many.Busy()[0].missing.empty());
  analysis::GpuTimeline instant;
  instant.OnLaunch(Interval(5, 5));
  EXPECT_FALSE(instant.Busy()[0].idle_pct.has_value());  // a span of 0: no share
}

// Independent computation: python3 sqlite3 over CUPTI_ACTIVITY_KIND_KERNEL
// (16 kernels on 4 streams): span 76,929 ns, union 63,073 ns.
TEST(GpuTimeline, StreamSimpleSqlite) {
  const fs::path file = fs::path(LLMPO_SOURCE_DIR) / ".." / "shared" / "fixtures" / "nsys-sqlite" /
                        "cudaprogramming-2023.3-streamSimple.sqlite";
  if (!fs::exists(file)) GTEST_SKIP() << "no shared fixtures at " << file;
  analysis::GpuTimeline t;
  model::Diagnostics d;
  ingest::ImportContext ctx{file.string(), t, d};
  ASSERT_TRUE(ingest::ImportNsysSqlite(file, ctx).ok());
  const auto busy = t.Busy();
  ASSERT_EQ(busy.size(), 1u);
  EXPECT_EQ(busy[0].kernels, 16u);
  EXPECT_DOUBLE_EQ(busy[0].span_ns, 76929);
  EXPECT_DOUBLE_EQ(*busy[0].busy_ns, 63073);
  EXPECT_NEAR(*busy[0].idle_pct, 18.011, 0.001);
}

// MFU/MBU of a region: its work over its GPU kernel time, in the unit asked,
// and as a share of the peak; no rate (and why) without the region or its time.
TEST(RegionUtilization, WorkOverGpuKernelTimeAndItsShareOfThePeak) {
  analysis::Region r;
  r.total_ns = 2e6;  // 2 ms
  const auto mfu = analysis::RegionUtilization(&r, 4e12, 1e12, 1000.0);  // 4 TFLOP in 2 ms
  ASSERT_TRUE(mfu.achieved.has_value());
  EXPECT_DOUBLE_EQ(*mfu.achieved, 2000.0);  // TFLOP/s
  EXPECT_DOUBLE_EQ(*mfu.pct_of_peak, 200.0);
  EXPECT_EQ(mfu.gpu_kernel_ns, 2e6);
  const auto no_peak = analysis::RegionUtilization(&r, 1e9, 1e9, std::nullopt);  // 1 GB in 2 ms
  EXPECT_DOUBLE_EQ(*no_peak.achieved, 500.0);                                 // GB/s
  EXPECT_FALSE(no_peak.pct_of_peak.has_value());
  EXPECT_EQ(analysis::RegionUtilization(nullptr, 1, 1, 1.0).missing, "region not in this run");
  analysis::Region untimed;  // a region from an input without kernel times
  const auto none = analysis::RegionUtilization(&untimed, 1, 1, 1.0);
  EXPECT_EQ(none.missing, "no GPU time");
  EXPECT_FALSE(none.achieved.has_value());
  EXPECT_FALSE(none.gpu_kernel_ns.has_value());
}

}  // namespace
}  // namespace llmpo
