// Kernels reduced per step as they arrive (analysis/phase_stream.h): the
// report equals the one from every kernel kept, with overlapping kernels,
// autotuning, graph launches, kernels outside steps and without a launch
// call, and past the point where old steps' intervals are folded; a kernel
// that comes before a folded step's end makes that step's idle time null.
#include "src/analysis/phase_stream.h"

#include <gtest/gtest.h>

#include "src/analysis/phases.h"

namespace llmpo::analysis {
namespace {

struct StreamRun {
  PhaseInput in;
  StepNamer namer;
  std::vector<TimedKernel> kernels;  // in arrival order
  StreamRun() { in.scopes = {"t.sqlite (python3 (1))"}; }
  void Step(const std::string& name, std::int64_t a, std::int64_t b) {
    in.ranges.push_back({name, a, b, 0, *namer.Classify("", name)});
  }
  std::uint32_t Name(const std::string& n) {
    for (std::uint32_t i = 0; i < in.names.size(); ++i) {
      if (in.names[i] == n) return i;
    }
    in.names.push_back(n);
    return static_cast<std::uint32_t>(in.names.size() - 1);
  }
  void Kernel(std::optional<std::int64_t> call, std::int64_t a, std::int64_t b, const std::string& name,
              std::optional<std::int64_t> graph_corr = std::nullopt) {
    TimedKernel k;
    k.call_start = call;
    if (call) k.call_end = *call + 5;
    k.start = a, k.end = b;
    k.name = Name(name);
    k.graph = graph_corr.has_value();
    k.correlation = graph_corr;
    kernels.push_back(k);
  }
  PhaseInput Kept() const {
    PhaseInput out = in;
    for (const auto& k : kernels) out.kernels.push_back(k);
    return out;
  }
  PhaseInput Streamed() const {
    PhaseInput out = in;
    PhaseStream stream(out);
    for (const auto& k : kernels) {
      if (!stream.Add(k, out)) out.kernels.push_back(k);
    }
    stream.Finish(out);
    return out;
  }
};

PhaseReport Analyze(const PhaseInput& in, bool steady = true) {
  auto categorizer = KernelCategorizer::Create();
  PhaseOptions o;
  o.steady_state = steady;
  model::Diagnostics d;
  return AnalyzePhases(in, o, *categorizer, [](const std::string&) { return std::string("unknown"); }, d);
}

std::string Describe(const PhaseReport& r) {
  std::string out;
  for (const auto& s : r.steps) {
    out += s.name + " " + std::to_string(s.gpu_kernel_ns) + " " + std::to_string(s.kernels) + " " +
           std::to_string(s.gpu_span_ns.value_or(-1)) + " " + std::to_string(s.gpu_idle_ns.value_or(-1)) + " " +
           std::to_string(s.graph_launches) + " " + (s.warmup ? s.warmup_reason : "-") + "\n";
  }
  for (const auto& p : r.phases) {
    out += std::string(ToString(p.phase)) + " " + std::to_string(p.steps) + " " + std::to_string(p.warmup_steps) +
           " " + std::to_string(p.gpu_kernel_ns) + " " + std::to_string(p.gpu_idle_ns) + "\n";
    for (const auto& k : p.top_kernels) out += "  " + k.name + " " + std::to_string(k.gpu_ns) + " " + std::to_string(k.launches) + "\n";
  }
  for (const auto& g : r.graphs) out += "graph " + g.first_kernel + " " + std::to_string(g.launches) + "\n";
  for (const auto& n : r.notes) out += n + "\n";
  return out + "outside " + std::to_string(r.kernels_outside_steps) + " " + std::to_string(r.gpu_ns_outside_steps);
}

TEST(PhaseStream, SameReportAsEveryKernelKept) {
  StreamRun run;
  run.Step("decode", 0, 100);
  for (int i = 0; i < 4; ++i) run.Step("decode", 200 + 100 * i, 290 + 100 * i);
  run.Kernel(10, 1000, 1600, "gemm_a");
  run.Kernel(20, 1700, 1900, "flash_fwd");
  run.Kernel(30, 1650, 1800, "gemm_a");  // overlaps both: the union is not the sum
  run.Kernel(210, 2000, 2900, "triton_autotune_probe");
  run.Kernel(215, 2950, 3000, "gemm_a");
  run.Kernel(220, 3000, 3050, "g1_a", 7);  // a graph launch's kernels, in a step with plain ones
  run.Kernel(220, 3040, 3100, "g1_b", 7);
  for (int i = 1; i < 4; ++i) run.Kernel(210 + 100 * i, 4000 + 200 * i, 4100 + 200 * i, "gemm_a");
  run.Kernel(900, 9000, 9050, "outside");
  run.Kernel(std::nullopt, 9100, 9120, "no_call");
  run.Kernel(20, 1500, 1550, "late");  // a second launching thread back in the first step
  const PhaseInput streamed = run.Streamed();
  EXPECT_EQ(streamed.kernels.size(), 2u);  // the graph launch's, kept whole
  for (bool steady : {true, false}) {
    const std::string kept = Describe(Analyze(run.Kept(), steady));
    EXPECT_NE(kept.find("ran 'triton_autotune_probe'"), std::string::npos) << kept;
    EXPECT_NE(kept.find("graph g1_a 1"), std::string::npos) << kept;
    EXPECT_EQ(Describe(Analyze(streamed, steady)), kept);
  }
}

// More intervals than PhaseStream holds: old steps are folded, exactly,
// as kernels come in launch order.
TEST(PhaseStream, FoldedStepsStayExact) {
  StreamRun run;
  const std::int64_t steps = 64, per_step = static_cast<std::int64_t>(PhaseStream::kMaxPieces / 16);
  for (std::int64_t s = 0; s < steps; ++s) {
    const std::int64_t t0 = s * per_step * 100;
    run.Step("decode", t0, t0 + per_step * 100 - 1);
    for (std::int64_t i = 0; i < per_step; ++i) {
      const std::int64_t t = t0 + i * 100;
      run.Kernel(t, 1'000'000'000 + t, 1'000'000'000 + t + 40 + (i % 3) * 30, i % 2 ? "gemm" : "norm");
    }
  }
  const PhaseReport kept = Analyze(run.Kept());
  const PhaseReport streamed = Analyze(run.Streamed());
  EXPECT_EQ(Describe(streamed), Describe(kept));
  ASSERT_EQ(streamed.steps.size(), static_cast<std::size_t>(steps));
  EXPECT_TRUE(streamed.steps.front().gpu_idle_ns.has_value());
}

TEST(PhaseStream, KernelBeforeAFoldedPartMakesIdleUnknown) {
  StreamRun run;
  const std::int64_t per_step = static_cast<std::int64_t>(PhaseStream::kMaxPieces);
  run.Step("decode", 0, 99);
  run.Step("decode", 100, 1'000'000'000);
  run.Kernel(10, 1000, 1010, "first");
  run.Kernel(20, 1020, 1030, "first");
  for (std::int64_t i = 0; i < per_step + 8; ++i) run.Kernel(200 + i, 5000 + i * 20, 5010 + i * 20, "second");
  run.Kernel(30, 1005, 1040, "first");  // the first step was folded meanwhile: its union is not known
  const PhaseReport r = Analyze(run.Streamed());
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_FALSE(r.steps[0].gpu_idle_ns.has_value());
  EXPECT_DOUBLE_EQ(*r.steps[0].gpu_span_ns, 40);
  EXPECT_DOUBLE_EQ(r.steps[0].gpu_kernel_ns, 55);
  EXPECT_EQ(r.steps[0].kernels, 3u);
  const PhaseReport kept = Analyze(run.Kept());
  EXPECT_EQ(r.steps[1].gpu_idle_ns, kept.steps[1].gpu_idle_ns);
}

}  // namespace
}  // namespace llmpo::analysis
