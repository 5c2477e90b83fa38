// LLM phases (analysis/phase_steps.h, analysis/phases.h): each naming
// scheme, malformed counts, kernel time per step and phase computed by
// hand, warm-up detection, steady_state=off, and graph launches attributed
// to the launch call's range.
#include "src/analysis/phases.h"

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

}  // namespace
}  // namespace llmpo::analysis
