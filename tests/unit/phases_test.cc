// LLM phases (analysis/phase_steps.h, analysis/phases.h): each naming
// scheme, malformed counts, kernel time per step and phase computed by
// hand, warm-up detection, steady_state=off, and graph launches attributed
// to the launch call's range.
#include "src/analysis/phases.h"

#include <cmath>

#include <gtest/gtest.h>

namespace llmpo::analysis {
namespace {

StepName Must(const std::optional<StepName>& s) {
  EXPECT_TRUE(s.has_value());
  return s.value_or(StepName{});
}

TEST(StepNames, Vllm) {
  const StepNamer namer;
  StepName s = Must(namer.Classify("", "execute_context_1(888_788544)_generation_0(0)"));
  EXPECT_EQ(s.scheme, StepScheme::kVllm);
  EXPECT_EQ(s.phase, Phase::kPrefill);
  EXPECT_EQ(s.prefill_requests, 1);
  EXPECT_EQ(s.prefill_tokens, 888);
  EXPECT_EQ(s.decode_tokens, 0);
  s = Must(namer.Classify("", "execute_context_0(0)_generation_32(32)"));
  EXPECT_EQ(s.phase, Phase::kDecode);
  EXPECT_EQ(s.decode_requests, 32);
  s = Must(namer.Classify("", "execute_context_2(300)_generation_8(8)"));
  EXPECT_EQ(s.phase, Phase::kMixed);
  EXPECT_EQ(s.prefill_tokens, 300);
  EXPECT_EQ(s.decode_tokens, 8);
}

TEST(StepNames, VllmMalformedIsUnknownAndSaid) {
  const StepNamer namer;
  for (const char* bad : {"execute_context_1(x)_generation_0(0)", "execute_context_0(5)_generation_0(0)",
                          "execute_context_1(99999999999999999999)_generation_0(0)", "execute_context_"}) {
    StepName s = Must(namer.Classify("", bad));
    EXPECT_EQ(s.phase, Phase::kUnknown) << bad;
    EXPECT_FALSE(s.malformed.empty()) << bad;
    EXPECT_FALSE(s.prefill_tokens.has_value()) << bad;
  }
}

TEST(StepNames, OtherSchemes) {
  const StepNamer namer;
  EXPECT_EQ(Must(namer.Classify("", "forward_extend")).phase, Phase::kPrefill);
  EXPECT_EQ(Must(namer.Classify("", "forward_decode")).phase, Phase::kDecode);
  EXPECT_EQ(Must(namer.Classify("", "forward_mixed")).phase, Phase::kMixed);
  EXPECT_EQ(Must(namer.Classify("LLM", "prefill")).phase, Phase::kPrefill);
  EXPECT_EQ(Must(namer.Classify("", "decode step 12")).phase, Phase::kDecode);
  EXPECT_EQ(Must(namer.Classify("LLM", "step_3")).phase, Phase::kDecode);
  EXPECT_FALSE(namer.Classify("", "step_3").has_value());  // only tiny_llm's domain says step_N is decode
  EXPECT_FALSE(namer.Classify("LLM", "decode_all").has_value());
  StepName s = Must(namer.Classify("", "execute_model"));
  EXPECT_EQ(s.scheme, StepScheme::kVllmStep);
  EXPECT_EQ(s.phase, Phase::kUnknown);
  s = Must(namer.Classify("", "ProfilerStep#7"));
  EXPECT_EQ(s.scheme, StepScheme::kProfiler);
  EXPECT_EQ(s.phase, Phase::kUnknown);
  EXPECT_FALSE(namer.Classify("", "attention").has_value());
}

// The names SGLang's model runner gives its step spans
// (_build_step_span_name in python/sglang/srt/model_executor/model_runner.py).
TEST(StepNames, SglangStepSpans) {
  const StepNamer namer;
  StepName s = Must(namer.Classify("", "step[EXTEND bs=3 toks=512]"));
  EXPECT_EQ(s.scheme, StepScheme::kSglang);
  EXPECT_EQ(s.phase, Phase::kPrefill);
  EXPECT_EQ(s.prefill_requests, 3);
  EXPECT_EQ(s.prefill_tokens, 512);
  s = Must(namer.Classify("", "step[DECODE bs=32]"));
  EXPECT_EQ(s.phase, Phase::kDecode);
  EXPECT_EQ(s.decode_requests, 32);
  EXPECT_EQ(s.decode_tokens, 32);  // one token per request
  s = Must(namer.Classify("", "step[MIXED bs=9]"));
  EXPECT_EQ(s.phase, Phase::kMixed);
  EXPECT_FALSE(s.prefill_tokens.has_value());  // the span does not split the batch
  for (const char* other : {"step[IDLE bs=0]", "step[TARGET_VERIFY bs=4]", "step[DRAFT_EXTEND bs=4]"}) {
    s = Must(namer.Classify("", other));
    EXPECT_EQ(s.scheme, StepScheme::kSglang) << other;
    EXPECT_EQ(s.phase, Phase::kUnknown) << other;  // never guessed
    EXPECT_TRUE(s.malformed.empty()) << other;
  }
  for (const char* bad : {"step[EXTEND bs=3]", "step[DECODE bs=x]", "step[EXTEND bs=1 toks=9x]"}) {
    s = Must(namer.Classify("", bad));
    EXPECT_EQ(s.phase, Phase::kUnknown) << bad;
    EXPECT_FALSE(s.malformed.empty()) << bad;
  }
  EXPECT_FALSE(namer.Classify("", "step[decode]").has_value());
}

TEST(StepNames, ConfigPatternsFirst) {
  auto namer = StepNamer::Create({"ctx_.*"}, {"gen_.*", "ctx_gen"});
  ASSERT_TRUE(namer.ok());
  EXPECT_EQ(Must(namer->Classify("", "ctx_4")).phase, Phase::kPrefill);
  EXPECT_EQ(Must(namer->Classify("", "gen_1")).scheme, StepScheme::kConfig);
  EXPECT_EQ(Must(namer->Classify("", "ctx_gen")).phase, Phase::kMixed);  // both patterns: mixed
  EXPECT_FALSE(StepNamer::Create({"("}, {}).ok());
}

// A hand-made run: scope 0, steps given as (name, start, end); kernels as
// (call start, start, end, name).
struct HandRun {
  PhaseInput in;
  StepNamer namer;
  HandRun() { in.scopes = {"t.json"}; }
  void Step(const std::string& name, std::int64_t a, std::int64_t b, const std::string& domain = "") {
    in.ranges.push_back({name, a, b, 0, *namer.Classify(domain, name)});
  }
  std::uint32_t Name(const std::string& n) {
    for (std::uint32_t i = 0; i < in.names.size(); ++i) {
      if (in.names[i] == n) return i;
    }
    in.names.push_back(n);
    return static_cast<std::uint32_t>(in.names.size() - 1);
  }
  void Kernel(std::int64_t call, std::int64_t a, std::int64_t b, const std::string& name,
              std::optional<std::int64_t> graph_corr = std::nullopt, const std::string& range = "") {
    PhaseInput::Kernel k;
    k.call_start = call, k.call_end = call + 5;
    k.start = a, k.end = b;
    k.name = Name(name);
    k.range = range.empty() ? 0 : Name(range);
    k.graph = graph_corr.has_value();
    k.correlation = graph_corr;
    in.kernels.push_back(k);
  }
  PhaseReport Analyze(const PhaseOptions& o, model::Diagnostics& d) const {
    auto categorizer = KernelCategorizer::Create();
    return AnalyzePhases(
        in, o, *categorizer, [](const std::string&) { return std::string("unknown"); }, d);
  }
};

const PhaseSummary* Of(const PhaseReport& r, Phase p) {
  for (const auto& s : r.phases) {
    if (s.phase == p) return &s;
  }
  return nullptr;
}

TEST(Phases, VllmStepsTimesTokensAndShares) {
  HandRun run;
  run.Step("execute_context_1(100)_generation_0(0)", 0, 100);
  run.Step("execute_context_0(0)_generation_4(4)", 200, 300);
  run.Step("execute_context_0(0)_generation_4(4)", 400, 500);
  run.Kernel(10, 1000, 1600, "gemm_a");  // prefill: 600 + 200 ns, a 100 ns gap
  run.Kernel(20, 1700, 1900, "flash_fwd");
  run.Kernel(210, 2000, 2100, "gemm_a");  // decode step 1: 100
  run.Kernel(410, 3000, 3100, "gemm_a");  // decode step 2: 100
  run.Kernel(600, 4000, 4050, "outside");
  model::Diagnostics d;
  const PhaseReport r = run.Analyze({}, d);
  ASSERT_EQ(r.steps.size(), 3u);
  EXPECT_DOUBLE_EQ(r.steps[0].gpu_kernel_ns, 800);
  EXPECT_DOUBLE_EQ(*r.steps[0].gpu_span_ns, 900);
  EXPECT_DOUBLE_EQ(*r.steps[0].gpu_idle_ns, 100);
  EXPECT_DOUBLE_EQ(*r.steps[0].ttft_gpu_ns, 900);  // one prefill request: its GPU span
  EXPECT_FALSE(r.steps[1].ttft_gpu_ns.has_value());
  EXPECT_EQ(r.kernels_outside_steps, 1u);
  EXPECT_DOUBLE_EQ(r.gpu_ns_outside_steps, 50);
  const PhaseSummary* prefill = Of(r, Phase::kPrefill);
  const PhaseSummary* decode = Of(r, Phase::kDecode);
  ASSERT_TRUE(prefill && decode);
  EXPECT_DOUBLE_EQ(prefill->share_pct, 80);
  EXPECT_DOUBLE_EQ(*prefill->gpu_ns_per_token, 8);  // 800 ns / 100 tokens
  EXPECT_EQ(decode->tokens, 8);
  EXPECT_DOUBLE_EQ(*decode->gpu_ns_per_token, 25);  // 200 ns / 8 tokens
  EXPECT_EQ(prefill->tokens_from, "annotation");
  ASSERT_EQ(r.decode_batches.size(), 1u);
  EXPECT_DOUBLE_EQ(r.decode_batches[0].mean_step_gpu_ns, 100);
  EXPECT_EQ(prefill->top_kernels.front().name, "gemm_a");
  EXPECT_EQ(prefill->top_kernels.front().category, "gemm");
}

TEST(Phases, ProfilerStepsAreUnknownAndVllmWinsOverThem) {
  HandRun run;
  run.Step("ProfilerStep#1", 0, 1000);
  run.Step("execute_context_0(0)_generation_2(2)", 10, 900);
  run.Kernel(20, 100, 200, "k");
  model::Diagnostics d;
  PhaseReport r = run.Analyze({}, d);
  ASSERT_EQ(r.steps.size(), 1u);  // the more specific scheme only
  EXPECT_EQ(r.steps[0].phase, Phase::kDecode);
  HandRun only;
  only.Step("ProfilerStep#1", 0, 1000);
  only.Kernel(20, 100, 200, "k");
  r = only.Analyze({}, d);
  ASSERT_EQ(r.phases.size(), 1u);
  EXPECT_EQ(r.phases[0].phase, Phase::kUnknown);  // never guessed
  EXPECT_FALSE(r.phases[0].gpu_ns_per_token.has_value());
}

TEST(Phases, MalformedCountsGoToDataQuality) {
  HandRun run;
  run.Step("execute_context_1(abc)_generation_0(0)", 0, 100);
  model::Diagnostics d;
  const PhaseReport r = run.Analyze({}, d);
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.steps[0].phase, Phase::kUnknown);
  EXPECT_EQ(d.entries().count("phase_counts_malformed"), 1u);
}

TEST(Phases, ConfigTokensAndWarmup) {
  HandRun run;
  run.Step("prefill", 0, 100, "LLM");
  for (int i = 0; i < 5; ++i) run.Step("step_" + std::to_string(i), 200 + 100 * i, 290 + 100 * i, "LLM");
  run.Kernel(10, 1000, 1400, "gemm_p");
  run.Kernel(210, 2000, 2300, "gemm_d");  // step_0: 300 ns, 3x the median: warm-up
  for (int i = 1; i < 5; ++i) run.Kernel(210 + 100 * i, 3000 + 200 * i, 3100 + 200 * i, "gemm_d");
  PhaseOptions o;
  o.prefill_tokens_per_step = 8;
  o.decode_tokens_per_step = 1;
  model::Diagnostics d;
  PhaseReport r = run.Analyze(o, d);
  const PhaseSummary* decode = Of(r, Phase::kDecode);
  ASSERT_TRUE(decode);
  EXPECT_TRUE(r.steps[1].warmup);
  EXPECT_EQ(decode->steps, 4u);
  EXPECT_EQ(decode->warmup_steps, 1u);
  EXPECT_DOUBLE_EQ(*decode->gpu_ns_per_token, 100);
  EXPECT_EQ(decode->tokens_from, "config (model.tokens.decode)");
  EXPECT_DOUBLE_EQ(*Of(r, Phase::kPrefill)->gpu_ns_per_token, 50);  // 400 ns / 8 tokens
  o.steady_state = false;
  r = run.Analyze(o, d);
  decode = Of(r, Phase::kDecode);
  EXPECT_EQ(decode->steps, 5u);
  EXPECT_DOUBLE_EQ(*decode->gpu_ns_per_token, 140);  // (300 + 4 * 100) / 5
}

TEST(Phases, AutotuneKernelMarksWarmup) {
  HandRun run;
  run.Step("decode", 0, 100);
  run.Step("decode", 200, 300);
  run.Kernel(10, 1000, 1100, "triton_autotune_probe");
  run.Kernel(210, 2000, 2100, "gemm");
  model::Diagnostics d;
  const PhaseReport r = run.Analyze({}, d);
  EXPECT_TRUE(r.steps[0].warmup);
  EXPECT_FALSE(r.steps[1].warmup);
  EXPECT_EQ(Of(r, Phase::kDecode)->steps, 1u);
}

TEST(Phases, GraphKernelsCountAtTheLaunch) {
  HandRun run;
  run.Step("decode", 0, 100);
  run.Step("decode", 200, 300);
  // Two launches of one graph (same kernel sequence), one of another.
  run.Kernel(10, 1000, 1100, "g1_a", 7, "decode");
  run.Kernel(10, 1100, 1150, "g1_b", 7, "decode");
  run.Kernel(210, 2000, 2100, "g1_a", 9, "decode");
  run.Kernel(210, 2100, 2150, "g1_b", 9, "decode");
  run.Kernel(220, 2200, 2300, "g2_a", 11, "decode");
  model::Diagnostics d;
  const PhaseReport r = run.Analyze({}, d);
  ASSERT_EQ(r.graphs.size(), 2u);
  EXPECT_EQ(r.graphs[0].first_kernel, "g1_a");
  EXPECT_EQ(r.graphs[0].launches, 2u);
  EXPECT_EQ(r.graphs[0].kernels, 4u);
  EXPECT_EQ(r.graphs[0].kernels_per_launch_max, 2u);
  EXPECT_DOUBLE_EQ(r.graphs[0].gpu_kernel_ns, 300);
  EXPECT_DOUBLE_EQ(*r.graphs[0].launch_call_ns, 10);  // 5 ns per launch call, once per launch
  ASSERT_EQ(r.graphs[0].ranges.size(), 1u);
  EXPECT_EQ(r.graphs[0].ranges[0].range, "decode");
  EXPECT_EQ(r.graphs[0].ranges[0].phase, Phase::kDecode);
  EXPECT_EQ(r.steps[1].graph_launches, 2u);
}

// nsys SQLite records graph ids: launches are one graph by id, not by
// their kernel sequence.
TEST(Phases, GraphIdsDecideTheGraph) {
  HandRun run;
  run.Step("decode", 0, 100);
  run.Kernel(10, 1000, 1100, "a", 7, "decode");  // graph 1, 2 kernels
  run.Kernel(10, 1100, 1200, "b", 7, "decode");
  run.Kernel(20, 1300, 1400, "a", 8, "decode");  // graph 1 again, 1 kernel (a conditional node skipped)
  run.Kernel(30, 1500, 1600, "a", 9, "decode");  // graph 2, the same kernel sequence as the launch before
  TimedKernelList with_ids;  // the list is packed: kernels are changed by value
  for (auto k : run.in.kernels) {
    k.graph_id = *k.correlation == 9 ? 2 : 1;
    with_ids.push_back(k);
  }
  run.in.kernels = std::move(with_ids);
  model::Diagnostics d;
  const PhaseReport r = run.Analyze({}, d);
  ASSERT_EQ(r.graphs.size(), 2u);
  EXPECT_EQ(r.graphs[0].graph_id, 1);
  EXPECT_EQ(r.graphs[0].launches, 2u);
  EXPECT_EQ(r.graphs[0].kernels_per_launch_min, 1u);
  EXPECT_EQ(r.graphs[0].kernels_per_launch_max, 2u);
  EXPECT_DOUBLE_EQ(r.graphs[0].gpu_kernel_ns, 300);
  EXPECT_EQ(r.graphs[1].graph_id, 2);
  EXPECT_EQ(r.graphs[1].launches, 1u);
}

// MFU / MBU per phase on hand-made numbers: a 7B-parameter model
// (2 x 7e9 FLOPs per token), 14 GB of weights read per decode step.
TEST(Phases, MfuAndMbuPerPhase) {
  HandRun run;
  run.Step("execute_context_1(512)_generation_0(0)", 0, 100);
  for (int i = 0; i < 3; ++i) run.Step("execute_context_0(0)_generation_2(2)", 200 + 100 * i, 290 + 100 * i);
  run.Step("execute_context_1(10)_generation_2(2)", 600, 700);
  run.Kernel(10, 1'000'000, 11'000'000, "gemm_p");  // prefill: 10 ms
  for (int i = 0; i < 3; ++i) {
    const std::int64_t t0 = 20'000'000 + 10'000'000LL * i;
    run.Kernel(210 + 100 * i, t0, t0 + 5'000'000, "gemv_d");  // each decode step: 5 ms
  }
  run.Kernel(610, 60'000'000, 62'000'000, "gemm_m");  // the mixed step: 2 ms
  PhaseOptions o;
  o.prefill_flops_per_token = o.decode_flops_per_token = 1.4e10;
  o.decode_bytes_per_step = 1.4e10;
  o.peak_tflops = 989;
  o.peak_gbps = 3350;
  model::Diagnostics d;
  PhaseReport r = run.Analyze(o, d);
  const PhaseSummary* prefill = Of(r, Phase::kPrefill);
  const PhaseSummary* decode = Of(r, Phase::kDecode);
  const PhaseSummary* mixed = Of(r, Phase::kMixed);
  ASSERT_TRUE(prefill && decode && mixed);
  // Prefill: 512 tokens x 1.4e10 FLOPs in 10 ms.
  const double prefill_tflops = 512 * 1.4e10 / 10e-3 / 1e12;  // 716.8
  EXPECT_DOUBLE_EQ(*prefill->utilization.model_flops, 512 * 1.4e10);
  EXPECT_NEAR(*prefill->utilization.achieved_tflops, prefill_tflops, 1e-9);
  EXPECT_NEAR(*prefill->utilization.mfu_pct, 100 * prefill_tflops / 989, 1e-9);
  EXPECT_FALSE(prefill->utilization.mbu_pct.has_value());  // no model.bytes_per_step.prefill: null, not 0
  EXPECT_EQ(prefill->utilization.mbu_missing, "model.bytes_per_step.prefill is not set");
  // Decode: 3 steps x 2 tokens, 15 ms; 3 x 14 GB read.
  EXPECT_NEAR(*decode->utilization.mfu_pct, 100 * (6 * 1.4e10 / 15e-3 / 1e12) / 989, 1e-9);
  EXPECT_NEAR(*decode->utilization.achieved_gbps, 3 * 1.4e10 / 15e-3 / 1e9, 1e-9);  // 2800 GB/s
  EXPECT_NEAR(*decode->utilization.mbu_pct, 100 * 2800.0 / 3350, 1e-9);
  // Mixed: 10 prefill + 2 decode tokens in 2 ms; no bytes for mixed steps.
  EXPECT_DOUBLE_EQ(*mixed->utilization.model_flops, 12 * 1.4e10);
  EXPECT_NEAR(*mixed->utilization.achieved_tflops, 12 * 1.4e10 / 2e-3 / 1e12, 1e-9);
  EXPECT_FALSE(mixed->utilization.model_bytes.has_value());
  // Without peaks the rates stay, the shares are null with the key named.
  o.peak_tflops.reset();
  r = run.Analyze(o, d);
  prefill = Of(r, Phase::kPrefill);
  EXPECT_NEAR(*prefill->utilization.achieved_tflops, prefill_tflops, 1e-9);
  EXPECT_FALSE(prefill->utilization.mfu_pct.has_value());
  EXPECT_EQ(prefill->utilization.mfu_missing, "pipeline.mfu.peak_tflops is not set");
}

TEST(Phases, MfuIsNullWhenTokensOrPhaseAreUnknown) {
  HandRun run;
  run.Step("decode", 0, 100);  // no count in the name, none in the config
  run.Kernel(10, 1000, 2000, "gemv");
  PhaseOptions o;
  o.decode_flops_per_token = 1e9;
  o.peak_tflops = 100;
  model::Diagnostics d;
  PhaseReport r = run.Analyze(o, d);
  const PhaseSummary* decode = Of(r, Phase::kDecode);
  ASSERT_TRUE(decode);
  EXPECT_FALSE(decode->utilization.model_flops.has_value());
  EXPECT_FALSE(decode->utilization.mfu_pct.has_value());
  EXPECT_EQ(decode->utilization.mfu_missing, "a counted step has no decode token count");
  HandRun unknown;
  unknown.Step("ProfilerStep#1", 0, 1000);
  unknown.Kernel(10, 1000, 2000, "gemv");
  r = unknown.Analyze(o, d);
  ASSERT_EQ(r.phases.size(), 1u);
  EXPECT_FALSE(r.phases[0].utilization.mfu_pct.has_value());
  EXPECT_EQ(r.phases[0].utilization.mfu_missing, "the steps' phase is unknown");
}

// A step's and a phase's numbers, in one string, to compare two reports.
std::string Describe(const PhaseReport& r) {
  std::string out;
  for (const auto& s : r.steps) {
    out += s.name + " " + std::to_string(s.gpu_kernel_ns) + " " + std::to_string(s.kernels) + " " +
           std::to_string(s.gpu_span_ns.value_or(-1)) + " " + std::to_string(s.gpu_idle_ns.value_or(-1)) + " " +
           std::to_string(s.ttft_gpu_ns.value_or(-1)) + " " + (s.warmup ? s.warmup_reason : "-") + "\n";
  }
  for (const auto& p : r.phases) {
    out += std::string(ToString(p.phase)) + " " + std::to_string(p.steps) + " " + std::to_string(p.warmup_steps) +
           " " + std::to_string(p.gpu_kernel_ns) + " " + std::to_string(p.gpu_idle_ns) + " " +
           std::to_string(p.share_pct) + "\n";
    for (const auto& k : p.top_kernels) out += "  " + k.name + " " + std::to_string(k.gpu_ns) + " " + std::to_string(k.launches) + "\n";
    for (const auto& [c, ns] : p.categories) out += "  " + c + " " + std::to_string(ns) + "\n";
  }
  for (const auto& b : r.decode_batches) out += "batch " + std::to_string(b.tokens_per_step) + " " + std::to_string(b.steps) + "\n";
  for (const auto& n : r.notes) out += n + "\n";
  return out + "outside " + std::to_string(r.kernels_outside_steps) + " " + std::to_string(r.gpu_ns_outside_steps);
}

TEST(Phases, DigestedKernelsGiveTheSameReport) {
  HandRun run;
  run.in.scopes = {"a.json", "b.json"};
  run.Step("execute_context_1(100)_generation_0(0)", 0, 100);
  for (int i = 0; i < 4; ++i) run.Step("execute_context_0(0)_generation_4(4)", 200 + 100 * i, 290 + 100 * i);
  run.Kernel(10, 1000, 1600, "gemm_a");
  run.Kernel(20, 1700, 1900, "flash_fwd");
  run.Kernel(30, 1650, 1800, "gemm_a");  // overlaps both: the union is not the sum
  run.Kernel(210, 2000, 2900, "triton_autotune_probe");
  run.Kernel(215, 2950, 3000, "gemm_a");
  for (int i = 1; i < 4; ++i) run.Kernel(210 + 100 * i, 4000 + 200 * i, 4100 + 200 * i, "gemm_a");
  run.Kernel(900, 9000, 9050, "outside");
  run.Kernel(0, 9100, 9120, "no_call");
  {  // the last kernel without its launch call (the list is append-only: rebuilt with it changed)
    TimedKernelList with_no_call;
    for (std::size_t i = 0; i < run.in.kernels.size(); ++i) {
      PhaseInput::Kernel k = run.in.kernels[i];
      if (i + 1 == run.in.kernels.size()) k.call_start.reset();
      with_no_call.push_back(k);
    }
    run.in.kernels = std::move(with_no_call);
  }
  // A second scope with steps of its own, starting where the first's do.
  run.in.ranges.push_back({"ProfilerStep#1", 0, 1000, 1, *run.namer.Classify("", "ProfilerStep#1")});
  PhaseInput::Kernel k = run.in.kernels[0];
  k.scope = 1;
  run.in.kernels.push_back(k);
  const PhaseInput digested = DigestPhaseKernels(run.in);
  EXPECT_TRUE(digested.kernels.empty());
  EXPECT_EQ(digested.digest.steps.size(), 6u);  // the steps with kernels
  HandRun again;
  again.in = digested;
  for (bool steady : {true, false}) {
    PhaseOptions o;
    o.steady_state = steady;
    model::Diagnostics d1, d2;
    const std::string raw = Describe(run.Analyze(o, d1));
    EXPECT_NE(raw.find("ran 'triton_autotune_probe'"), std::string::npos) << raw;
    EXPECT_NE(raw.find("outside 2 70"), std::string::npos) << raw;
    EXPECT_EQ(Describe(again.Analyze(o, d2)), raw);
  }
}

TEST(Phases, InputsWithGraphLaunchesAreNotDigested) {
  HandRun run;
  run.Step("decode", 0, 100);
  run.Kernel(10, 1000, 1100, "g1_a", 7, "decode");
  run.Kernel(20, 1200, 1300, "plain");
  const PhaseInput same = DigestPhaseKernels(run.in);
  EXPECT_EQ(same.kernels.size(), 2u);
  EXPECT_TRUE(same.digest.steps.empty());
}

}  // namespace
}  // namespace llmpo::analysis
