#include "src/analysis/phases.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string_view>

#include "src/analysis/median.h"
#include "src/analysis/phase_graphs.h"
#include "src/analysis/phase_internal.h"
#include "src/analysis/phase_utilization.h"

namespace llmpo::analysis {

std::string ShortScope(const std::string& scope) {
  const std::size_t paren = scope.find(" (");
  const std::size_t slash = scope.rfind('/', paren == std::string::npos ? scope.size() : paren);
  return slash == std::string::npos ? scope : scope.substr(slash + 1);
}
namespace phase_detail {

bool IsAutotuneKernel(std::string_view name) {
  for (std::size_t i = 0; i + 7 <= name.size(); ++i) {
    std::string_view w = name.substr(i, 7);
    if ((w[0] == 'a' || w[0] == 'A') && w.substr(1) == "utotun") return true;
  }
  return false;
}

double UnionNs(std::vector<std::pair<std::int64_t, std::int64_t>>& v) {
  std::sort(v.begin(), v.end());
  double total = 0;
  std::int64_t lo = 0, hi = 0;
  bool open = false;
  for (const auto& [s, e] : v) {
    if (open && s <= hi) {
      hi = std::max(hi, e);
      continue;
    }
    if (open) total += static_cast<double>(hi - lo);
    lo = s, hi = e, open = true;
  }
  if (open) total += static_cast<double>(hi - lo);
  return total;
}

}  // namespace phase_detail
namespace {

constexpr std::size_t kTopKernels = 5;
constexpr std::size_t kMinStepsForMedian = 3;
constexpr double kWarmupBand = 0.5;  // a leading step further than 50 % from its phase's median is warm-up
constexpr std::uint32_t kNoStep = kNoPhaseStep;
using namespace phase_detail;

std::string SchemeExample(StepScheme s) {
  switch (s) {
    case StepScheme::kConfig:
      return "analysis.phases patterns";
    case StepScheme::kVllm:
      return "vLLM's execute_context_R(T)_generation_M(K)";
    case StepScheme::kSglang:
      return "SGLang's forward_extend / forward_decode";
    case StepScheme::kWorkload:
      return "prefill / decode ranges";
    case StepScheme::kVllmStep:
      return "vLLM's execute_model (phase not named)";
    case StepScheme::kProfiler:
      break;
  }
  return "ProfilerStep#N (phase not named)";
}

}  // namespace

namespace phase_detail {

Steps PickSteps(const PhaseInput& in, const PhaseOptions& options, PhaseReport& report,
                model::Diagnostics& diagnostics) {
  std::vector<std::optional<StepScheme>> best(in.scopes.size());
  for (const auto& r : in.ranges) {
    auto& b = best[r.scope];
    if (!b || r.step.scheme < *b) b = r.step.scheme;
  }
  std::vector<const PhaseInput::Range*> chosen;
  for (const auto& r : in.ranges) {
    if (best[r.scope] && r.step.scheme == *best[r.scope]) chosen.push_back(&r);
  }
  std::stable_sort(chosen.begin(), chosen.end(), [](const auto* a, const auto* b) {
    return a->scope != b->scope ? a->scope < b->scope : a->start < b->start;
  });
  Steps out;
  out.by_scope.resize(in.scopes.size());
  out.steps.reserve(chosen.size());  // a step is 300 bytes and many ranks have tens of thousands: no doubling
  for (const auto* r : chosen) {
    PhaseStep s;
    s.scope = in.scopes[r->scope];
    s.name = r->name;
    s.phase = r->step.phase;
    s.scheme = r->step.scheme;
    s.prefill_requests = r->step.prefill_requests, s.prefill_tokens = r->step.prefill_tokens;
    s.decode_requests = r->step.decode_requests, s.decode_tokens = r->step.decode_tokens;
    if (s.prefill_tokens || s.decode_tokens) s.tokens_from = "annotation";
    if (!r->step.malformed.empty()) {
      diagnostics.Add(model::Diag::phase_counts_malformed,
                      fmt::format("{}: step '{}': {}; its phase and token counts are left unknown", ShortScope(s.scope),
                                  model::Excerpt(r->name), r->step.malformed));
    }
    if (s.phase == Phase::kPrefill && !s.prefill_tokens && options.prefill_tokens_per_step) {
      s.prefill_tokens = static_cast<std::int64_t>(*options.prefill_tokens_per_step);
      s.tokens_from = "config (model.tokens.prefill)";
    }
    if (s.phase == Phase::kDecode && !s.decode_tokens && options.decode_tokens_per_step) {
      s.decode_tokens = static_cast<std::int64_t>(*options.decode_tokens_per_step);
      s.tokens_from = "config (model.tokens.decode)";
    }
    s.cpu_start_ns = r->start, s.cpu_end_ns = r->end;
    out.by_scope[r->scope].push_back(static_cast<std::uint32_t>(out.steps.size()));
    out.steps.push_back(std::move(s));
  }
  for (std::size_t i = 0; i < best.size(); ++i) {
    if (best[i]) report.schemes.push_back(fmt::format("{}: {}", in.scopes[i], SchemeExample(*best[i])));
  }
  return out;
}

std::uint32_t StepAt(const Steps& steps, std::uint32_t scope, std::int64_t t) {
  StepHint unused;
  return StepAt(steps, scope, t, unused);
}

std::uint32_t StepAt(const Steps& steps, std::uint32_t scope, std::int64_t t, StepHint& hint) {
  const auto& ids = steps.by_scope[scope];
  // The search below finds the last step starting at or before t, then the
  // first of it and up to 7 before it that is still open at t: for a t in
  // the hinted step and before the next one starts, that is the hinted step.
  if (hint.scope == scope && hint.pos < ids.size()) {
    const PhaseStep& s = steps.steps[ids[hint.pos]];
    if (s.cpu_start_ns <= t && t <= s.cpu_end_ns &&
        (hint.pos + 1 == ids.size() || t < steps.steps[ids[hint.pos + 1]].cpu_start_ns)) {
      return ids[hint.pos];
    }
  }
  auto it = std::upper_bound(ids.begin(), ids.end(), t,
                             [&](std::int64_t x, std::uint32_t id) { return x < steps.steps[id].cpu_start_ns; });
  for (int back = 0; it != ids.begin() && back < 8; ++back) {
    --it;
    if (t <= steps.steps[*it].cpu_end_ns) {
      hint = StepHint{scope, static_cast<std::size_t>(it - ids.begin())};
      return *it;
    }
  }
  return kNoPhaseStep;
}

}  // namespace phase_detail

namespace {

// The step of a digest entry (PhaseInput::StepKernels); kNoStep when the
// steps do not match it.
std::uint32_t DigestStep(const Steps& steps, const PhaseInput::StepKernels& d) {
  if (d.scope >= steps.by_scope.size() || d.step >= steps.by_scope[d.scope].size()) return kNoStep;
  return steps.by_scope[d.scope][d.step];
}

void SetSpan(PhaseStep& s, std::int64_t lo, std::int64_t hi, std::optional<double> busy_ns) {
  s.gpu_span_ns = static_cast<double>(hi - lo);
  s.gpu_idle_ns = busy_ns ? std::optional<double>(static_cast<double>(hi - lo) - *busy_ns) : std::nullopt;
  if (s.phase == Phase::kPrefill && s.prefill_requests == 1) s.ttft_gpu_ns = s.gpu_span_ns;
}

// Each kernel's step; each step's kernel time, span and idle.
std::vector<std::uint32_t> AttributeKernels(const PhaseInput& in, Steps& steps, PhaseReport& report) {
  std::vector<std::uint32_t> step_of(in.kernels.size(), kNoStep);
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> busy(steps.steps.size());
  std::map<std::pair<std::uint32_t, std::int64_t>, std::uint32_t> graph_launch_step;
  std::uint64_t without_call = in.digest.without_call;
  report.kernels_outside_steps += in.digest.outside;
  report.gpu_ns_outside_steps += in.digest.outside_ns;
  for (std::size_t i = 0; i < in.kernels.size(); ++i) {
    const auto& k = in.kernels[i];
    const double ns = static_cast<double>(k.end - k.start);
    if (!k.call_start) ++without_call;
    const std::uint32_t id = k.call_start ? StepAt(steps, k.scope, *k.call_start) : kNoStep;
    step_of[i] = id;
    if (id == kNoStep) {
      ++report.kernels_outside_steps;
      report.gpu_ns_outside_steps += ns;
      continue;
    }
    PhaseStep& s = steps.steps[id];
    s.gpu_kernel_ns += ns;
    ++s.kernels;
    busy[id].emplace_back(k.start, k.end);
    if (k.graph && k.correlation && graph_launch_step.emplace(std::pair{k.scope, *k.correlation}, id).second) {
      ++s.graph_launches;
    }
  }
  for (std::size_t id = 0; id < busy.size(); ++id) {
    if (busy[id].empty()) continue;
    std::int64_t lo = busy[id].front().first, hi = busy[id].front().second;
    for (const auto& [a, b] : busy[id]) lo = std::min(lo, a), hi = std::max(hi, b);
    SetSpan(steps.steps[id], lo, hi, UnionNs(busy[id]));
  }
  for (const PhaseInput::StepKernels& d : in.digest.steps) {  // a step is digested whole or not at all
    const std::uint32_t id = DigestStep(steps, d);
    if (id == kNoStep) continue;
    PhaseStep& s = steps.steps[id];
    s.gpu_kernel_ns += d.gpu_ns;
    s.kernels += d.kernels;
    SetSpan(s, d.first_start, d.last_end, d.busy_ns);
  }
  if (without_call > 0 && !steps.steps.empty()) {
    report.notes.push_back(fmt::format(
        "{} kernel(s) have no launch call in their input, so no step: counted outside every step", without_call));
  }
  return step_of;
}

// Warm-up: per scope and phase, the leading steps far from the median, and
// any step that ran an autotuning kernel.
void MarkWarmup(const PhaseInput& in, const std::vector<std::uint32_t>& step_of, Steps& steps) {
  // Names are checked once each, not once per launch.
  std::vector<std::int8_t> autotune(in.names.size(), -1);
  const auto is_autotune = [&](std::uint32_t name) {
    if (autotune[name] < 0) autotune[name] = IsAutotuneKernel(in.names[name]) ? 1 : 0;
    return autotune[name] == 1;
  };
  for (std::size_t i = 0; i < in.kernels.size(); ++i) {
    if (step_of[i] == kNoStep || !is_autotune(in.kernels[i].name)) continue;
    PhaseStep& s = steps.steps[step_of[i]];
    if (!s.warmup) s.warmup = true, s.warmup_reason = fmt::format("ran '{}'", in.names[in.kernels[i].name]);
  }
  for (const PhaseInput::StepKernels& d : in.digest.steps) {
    const std::uint32_t id = DigestStep(steps, d);
    if (id == kNoStep || d.autotune == 0) continue;
    PhaseStep& s = steps.steps[id];
    if (!s.warmup) s.warmup = true, s.warmup_reason = fmt::format("ran '{}'", in.names[d.autotune]);
  }
  for (const auto& ids : steps.by_scope) {
    for (Phase phase : {Phase::kPrefill, Phase::kDecode, Phase::kMixed, Phase::kUnknown}) {
      std::vector<std::uint32_t> of_phase;
      std::vector<double> times;
      for (std::uint32_t id : ids) {
        if (steps.steps[id].phase != phase) continue;
        of_phase.push_back(id);
        times.push_back(steps.steps[id].gpu_kernel_ns);
      }
      if (of_phase.size() < kMinStepsForMedian) continue;
      const double median = *Median(times);
      for (std::uint32_t id : of_phase) {
        PhaseStep& s = steps.steps[id];
        if (median <= 0 || std::abs(s.gpu_kernel_ns - median) <= kWarmupBand * median) break;
        if (!s.warmup) {
          s.warmup = true;
          s.warmup_reason = fmt::format("leading step, GPU kernel time {:.1f}x the {} median", s.gpu_kernel_ns / median,
                                        ToString(phase));
        }
      }
    }
  }
}

// What a step adds to its phase's token count; null when unknown.
std::optional<std::int64_t> TokensOf(const PhaseStep& s) {
  switch (s.phase) {
    case Phase::kPrefill:
      return s.prefill_tokens;
    case Phase::kDecode:
      return s.decode_tokens;
    case Phase::kMixed:
      if (s.prefill_tokens && s.decode_tokens) return *s.prefill_tokens + *s.decode_tokens;
      return std::nullopt;
    case Phase::kUnknown:
      break;
  }
  return std::nullopt;
}

bool Counted(const PhaseStep& s, const PhaseOptions& o) { return !o.steady_state || !s.warmup; }

void Summarize(const PhaseInput& in, const std::vector<std::uint32_t>& step_of, const Steps& steps,
               const PhaseOptions& options, const KernelCategorizer& categorizer,
               const std::function<std::string(const std::string&)>& bound_of, PhaseReport& report) {
  constexpr std::array kPhases{Phase::kPrefill, Phase::kDecode, Phase::kMixed, Phase::kUnknown};
  std::array<PhaseSummary, 4> sums;
  std::array<std::map<std::uint32_t, std::pair<double, std::uint64_t>>, 4> by_name;
  std::array<std::vector<double>, 4> step_times;
  std::map<std::int64_t, std::pair<std::size_t, double>> batches;  // decode tokens -> steps, GPU ns
  for (std::size_t p = 0; p < 4; ++p) sums[p].phase = kPhases[p];
  for (const PhaseStep& s : steps.steps) {
    PhaseSummary& sum = sums[static_cast<std::size_t>(s.phase)];
    if (s.warmup) ++sum.warmup_steps;
    if (!Counted(s, options)) continue;
    ++sum.steps;
    sum.gpu_kernel_ns += s.gpu_kernel_ns;
    sum.gpu_idle_ns += s.gpu_idle_ns.value_or(0);
    step_times[static_cast<std::size_t>(s.phase)].push_back(s.gpu_kernel_ns);
    if (auto t = TokensOf(s)) {
      sum.tokens = sum.tokens.value_or(0) + *t;
      ++sum.steps_with_tokens;
      if (sum.tokens_from.empty() || sum.tokens_from == s.tokens_from) {
        sum.tokens_from = s.tokens_from;
      } else {
        sum.tokens_from = "annotation and config";
      }
    }
    if (s.phase == Phase::kDecode && s.decode_tokens && *s.decode_tokens > 0) {
      auto& b = batches[*s.decode_tokens];
      ++b.first;
      b.second += s.gpu_kernel_ns;
    }
  }
  for (std::size_t i = 0; i < in.kernels.size(); ++i) {
    if (step_of[i] == kNoStep || !Counted(steps.steps[step_of[i]], options)) continue;
    auto& n = by_name[static_cast<std::size_t>(steps.steps[step_of[i]].phase)][in.kernels[i].name];
    n.first += static_cast<double>(in.kernels[i].end - in.kernels[i].start);
    ++n.second;
  }
  for (const PhaseInput::StepKernels& d : in.digest.steps) {
    const std::uint32_t id = DigestStep(steps, d);
    if (id == kNoStep || !Counted(steps.steps[id], options)) continue;
    for (const auto& k : d.names) {
      auto& n = by_name[static_cast<std::size_t>(steps.steps[id].phase)][k.name];
      n.first += k.gpu_ns;
      n.second += k.launches;
    }
  }
  double total = 0;
  for (const auto& s : sums) total += s.gpu_kernel_ns;
  for (std::size_t p = 0; p < 4; ++p) {
    PhaseSummary& sum = sums[p];
    if (sum.steps == 0 && sum.warmup_steps == 0) continue;
    sum.share_pct = total > 0 ? 100.0 * sum.gpu_kernel_ns / total : 0;
    if (sum.steps > 0) sum.mean_step_gpu_ns = sum.gpu_kernel_ns / static_cast<double>(sum.steps);
    if (sum.tokens && *sum.tokens > 0 && sum.steps_with_tokens == sum.steps) {
      sum.gpu_ns_per_token = sum.gpu_kernel_ns / static_cast<double>(*sum.tokens);
    }
    std::map<std::string, double> categories;
    std::vector<PhaseKernel> kernels;
    for (const auto& [name, v] : by_name[p]) {
      const std::string& n = in.names[name];
      PhaseKernel k{n, std::string(categorizer.Categorize(n)), bound_of(n), v.first, v.second};
      categories[k.category] += v.first;
      kernels.push_back(std::move(k));
    }
    std::sort(kernels.begin(), kernels.end(), [](const auto& a, const auto& b) {
      return a.gpu_ns != b.gpu_ns ? a.gpu_ns > b.gpu_ns : a.name < b.name;
    });
    if (kernels.size() > kTopKernels) kernels.resize(kTopKernels);
    sum.top_kernels = std::move(kernels);
    sum.categories.assign(categories.begin(), categories.end());
    std::sort(sum.categories.begin(), sum.categories.end(), [](const auto& a, const auto& b) {
      return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    report.phases.push_back(std::move(sum));
  }
  for (const auto& [tokens, b] : batches) {
    const double mean = b.second / static_cast<double>(b.first);
    report.decode_batches.push_back({tokens, b.first, mean, mean / static_cast<double>(tokens)});
  }
}

}  // namespace

PhaseReport AnalyzePhases(const PhaseInput& in, const PhaseOptions& options, const KernelCategorizer& categorizer,
                          const std::function<std::string(const std::string&)>& bound_of,
                          model::Diagnostics& diagnostics) {
  PhaseReport report;
  report.steady_state = options.steady_state;
  Steps steps = PickSteps(in, options, report, diagnostics);
  const std::vector<std::uint32_t> step_of = AttributeKernels(in, steps, report);
  MarkWarmup(in, step_of, steps);
  report.warmup_rule = fmt::format(
      "warm-up: per input and phase, the leading steps whose GPU kernel time is more than {:.0f} % away from the "
      "phase's median step (phases of {} or more steps), and any step that ran a kernel named *autotun*; {}",
      kWarmupBand * 100, kMinStepsForMedian,
      options.steady_state ? "left out of the per-phase numbers (analysis.steady_state=off keeps them)"
                           : "kept (analysis.steady_state=off)");
  Summarize(in, step_of, steps, options, categorizer, bound_of, report);
  AddPhaseUtilization(steps.steps, options, report.phases);
  report.graphs = GraphLaunches(in, step_of, steps.steps);
  report.steps = std::move(steps.steps);
  return report;
}

PhaseInput DigestPhaseKernels(PhaseInput in) {
  const bool graphs = std::any_of(in.kernels.begin(), in.kernels.end(), [](const auto& k) { return k.graph; });
  if (graphs || in.kernels.empty()) return in;
  PhaseReport unused_report;
  model::Diagnostics unused_diagnostics;  // PickSteps' notes come again when the report is built
  const Steps steps = PickSteps(in, PhaseOptions{}, unused_report, unused_diagnostics);
  std::vector<std::optional<PhaseInput::StepKernels>> digests(steps.steps.size());
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> busy(steps.steps.size());
  std::vector<std::map<std::uint32_t, PhaseInput::StepKernels::Name>> names(steps.steps.size());
  for (std::uint32_t scope = 0; scope < steps.by_scope.size(); ++scope) {
    for (std::uint32_t n = 0; n < steps.by_scope[scope].size(); ++n) {
      PhaseInput::StepKernels d;
      d.scope = scope, d.step = n;
      digests[steps.by_scope[scope][n]] = d;
    }
  }
  for (const auto& k : in.kernels) {
    const double ns = static_cast<double>(k.end - k.start);
    const std::uint32_t id = k.call_start ? StepAt(steps, k.scope, *k.call_start) : kNoStep;
    if (id == kNoStep) {
      ++in.digest.outside;
      in.digest.without_call += k.call_start ? 0 : 1;
      in.digest.outside_ns += ns;
      continue;
    }
    PhaseInput::StepKernels& d = *digests[id];
    if (d.kernels == 0) d.first_start = k.start, d.last_end = k.end;
    d.first_start = std::min(d.first_start, k.start), d.last_end = std::max(d.last_end, k.end);
    d.gpu_ns += ns;
    ++d.kernels;
    if (d.autotune == 0 && IsAutotuneKernel(in.names[k.name])) d.autotune = k.name;
    busy[id].emplace_back(k.start, k.end);
    auto& name = names[id][k.name];
    name.name = k.name, name.gpu_ns += ns, ++name.launches;
  }
  for (std::size_t id = 0; id < digests.size(); ++id) {
    if (digests[id]->kernels == 0) continue;
    digests[id]->busy_ns = UnionNs(busy[id]);
    for (const auto& [n, name] : names[id]) digests[id]->names.push_back(name);
    digests[id]->names.Pack();
    in.digest.steps.push_back(std::move(*digests[id]));
  }
  in.kernels = {};
  return in;
}

}  // namespace llmpo::analysis
