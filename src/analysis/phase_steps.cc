#include "src/analysis/phase_steps.h"

#include <fmt/format.h>
#include <re2/re2.h>

#include <charconv>
#include <tuple>

namespace llmpo::analysis {
namespace {

constexpr std::string_view kVllmPrefix = "execute_context_";

// One count of a vLLM annotation; null when it is not a number that fits.
std::optional<std::int64_t> Count(const std::string& text) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

Phase PhaseOf(std::int64_t prefill_requests, std::int64_t decode_requests) {
  if (prefill_requests > 0 && decode_requests > 0) return Phase::kMixed;
  if (prefill_requests > 0) return Phase::kPrefill;
  if (decode_requests > 0) return Phase::kDecode;
  return Phase::kUnknown;
}

}  // namespace

std::string_view ToString(Phase phase) {
  switch (phase) {
    case Phase::kPrefill:
      return "prefill";
    case Phase::kDecode:
      return "decode";
    case Phase::kMixed:
      return "mixed";
    case Phase::kUnknown:
      break;
  }
  return "unknown";
}

std::string_view ToString(StepScheme scheme) {
  switch (scheme) {
    case StepScheme::kConfig:
      return "config";
    case StepScheme::kVllm:
      return "vllm";
    case StepScheme::kSglang:
      return "sglang";
    case StepScheme::kWorkload:
      return "workload";
    case StepScheme::kVllmStep:
      return "vllm_step";
    case StepScheme::kProfiler:
      break;
  }
  return "profiler";
}

struct StepNamer::Impl {
  std::vector<std::unique_ptr<RE2>> prefill, decode;
  RE2 vllm{R"(execute_context_(\d+)\((\d+)(?:_(\d+))?\)_generation_(\d+)\((\d+)\))"};
  RE2 workload_prefill{R"(prefill(?:[ _#-]*step)?(?:[ _#-]*\d+)?)"};
  RE2 workload_decode{R"(decode(?:[ _#-]*step)?(?:[ _#-]*\d+)?)"};
  RE2 llm_step{R"(step_\d+)"};
  RE2 profiler{R"(ProfilerStep(?:#\d+)?)"};
  // SGLang's step span (model_runner.py, _build_step_span_name):
  // "step[EXTEND bs=B toks=T]", else "step[MODE bs=B]".
  RE2 sglang{R"(step\[([A-Z_0-9]+) bs=([^ \]]*)(?: toks=([^ \]]*))?\])"};

  static bool Any(const std::vector<std::unique_ptr<RE2>>& set, std::string_view name) {
    for (const auto& re : set) {
      if (RE2::FullMatch(name, *re)) return true;
    }
    return false;
  }

  StepName Vllm(std::string_view name) const {
    StepName step{StepScheme::kVllm};
    std::string r, t, extra, m, k;
    if (!RE2::FullMatch(name, vllm, &r, &t, &extra, &m, &k)) {
      step.malformed = "not execute_context_R(T)_generation_M(K) with whole numbers";
      return step;
    }
    step.prefill_requests = Count(r), step.prefill_tokens = Count(t);
    step.decode_requests = Count(m), step.decode_tokens = Count(k);
    if (!step.prefill_requests || !step.prefill_tokens || !step.decode_requests || !step.decode_tokens) {
      step.malformed = "a count too large for a 64-bit number";
    } else if ((*step.prefill_requests == 0) != (*step.prefill_tokens == 0) ||
               (*step.decode_requests == 0) != (*step.decode_tokens == 0)) {
      step.malformed = "requests and tokens disagree (requests without tokens, or tokens without requests)";
    }
    if (!step.malformed.empty()) {
      step.prefill_requests.reset(), step.prefill_tokens.reset();
      step.decode_requests.reset(), step.decode_tokens.reset();
      return step;
    }
    step.phase = PhaseOf(*step.prefill_requests, *step.decode_requests);
    return step;
  }

  // EXTEND: B prefill requests of T new tokens; DECODE: B requests of one
  // token each; MIXED: chunked prefill with decode, counts not named;
  // SPLIT_PREFILL: prefill, tokens not named; any other mode (IDLE,
  // TARGET_VERIFY, DRAFT_EXTEND, ...): phase unknown.
  StepName Sglang(const std::string& mode, const std::string& bs, const std::string& toks) const {
    StepName step{StepScheme::kSglang};
    const std::optional<std::int64_t> requests = Count(bs);
    const std::optional<std::int64_t> tokens = toks.empty() ? std::nullopt : Count(toks);
    if (!requests || (!toks.empty() && !tokens) || (mode == "EXTEND" && !tokens)) {
      step.malformed = "not step[MODE bs=B] / step[EXTEND bs=B toks=T] with whole numbers";
      return step;
    }
    if (mode == "EXTEND") {
      step.phase = Phase::kPrefill;
      step.prefill_requests = requests, step.prefill_tokens = tokens;
    } else if (mode == "DECODE") {
      step.phase = Phase::kDecode;
      step.decode_requests = requests, step.decode_tokens = requests;
    } else if (mode == "MIXED") {
      step.phase = Phase::kMixed;
    } else if (mode == "SPLIT_PREFILL") {
      step.phase = Phase::kPrefill;
      step.prefill_requests = requests;
    }
    return step;
  }
};

StepNamer::StepNamer() : impl_(std::make_shared<Impl>()) {}
StepNamer::~StepNamer() = default;
StepNamer::StepNamer(StepNamer&&) noexcept = default;
StepNamer& StepNamer::operator=(StepNamer&&) noexcept = default;

Result<StepNamer> StepNamer::Create(const std::vector<std::string>& prefill, const std::vector<std::string>& decode) {
  auto impl = std::make_shared<Impl>();
  for (auto [patterns, out, key] : {std::tuple{&prefill, &impl->prefill, "analysis.phases.prefill"},
                                    std::tuple{&decode, &impl->decode, "analysis.phases.decode"}}) {
    for (const std::string& p : *patterns) {
      auto re = std::make_unique<RE2>(p, RE2::Quiet);
      if (!re->ok()) {
        return MakeError(ExitStatus::kUsage, fmt::format("config key '{}': pattern '{}' is not a valid regular "
                                                         "expression: {}",
                                                         key, p, re->error()));
      }
      out->push_back(std::move(re));
    }
  }
  StepNamer namer;
  namer.impl_ = std::move(impl);
  return namer;
}

std::optional<StepName> StepNamer::Classify(std::string_view domain, std::string_view name) const {
  const Impl& s = *impl_;
  const bool prefill = Impl::Any(s.prefill, name), decode = Impl::Any(s.decode, name);
  if (prefill || decode) {
    return StepName{StepScheme::kConfig, prefill && decode ? Phase::kMixed
                                         : prefill         ? Phase::kPrefill
                                                           : Phase::kDecode};
  }
  if (name.starts_with(kVllmPrefix)) return s.Vllm(name);
  if (name.starts_with("step[")) {
    std::string mode, bs, toks;
    if (RE2::FullMatch(name, s.sglang, &mode, &bs, &toks)) return s.Sglang(mode, bs, toks);
  }
  if (name == "forward_extend") return StepName{StepScheme::kSglang, Phase::kPrefill};
  if (name == "forward_decode") return StepName{StepScheme::kSglang, Phase::kDecode};
  if (name == "forward_mixed") return StepName{StepScheme::kSglang, Phase::kMixed};
  if (RE2::FullMatch(name, s.workload_prefill)) return StepName{StepScheme::kWorkload, Phase::kPrefill};
  if (RE2::FullMatch(name, s.workload_decode)) return StepName{StepScheme::kWorkload, Phase::kDecode};
  if (domain == "LLM" && RE2::FullMatch(name, s.llm_step)) return StepName{StepScheme::kWorkload, Phase::kDecode};
  if (name == "execute_model") return StepName{StepScheme::kVllmStep, Phase::kUnknown};
  if (RE2::FullMatch(name, s.profiler)) return StepName{StepScheme::kProfiler, Phase::kUnknown};
  return std::nullopt;
}

}  // namespace llmpo::analysis
