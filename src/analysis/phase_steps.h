// Which NVTX / annotation ranges are steps of an LLM run, and what each step
// is: prefill, decode, mixed (chunked prefill batched with decode) or
// unknown, from its name alone (docs/analysis.md, "Phases"). Never a guess:
// a step whose name says nothing of its phase is unknown.
//
// Schemes, most specific first (a source's steps come from the most
// specific scheme it has, so ProfilerStep#N around vLLM's annotations is
// not counted twice):
//   config   analysis.phases.prefill / .decode: RE2 patterns, whole name
//   vllm     execute_context_R(T)_generation_M(K): R prefill requests of T
//            tokens, M decode requests of K tokens (vLLM's profiler
//            annotation); counts that do not parse: unknown, and said
//   sglang   SGLang's step span "step[EXTEND bs=B toks=T]" (prefill, B
//            requests, T tokens), "step[DECODE bs=B]" (decode, B requests of
//            one token), "step[MIXED bs=B]" (mixed, counts unknown), other
//            modes (IDLE, TARGET_VERIFY, ...): unknown; and the names
//            forward_extend / forward_decode / forward_mixed
//   workload prefill, decode (optionally "step" and a number: "decode step
//            12", "prefill_3"), and step_N in the domain LLM (tiny_llm)
//   vllm_step execute_model: a step, phase unknown
//   profiler ProfilerStep#N: a step, phase unknown
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/result.h"

namespace llmpo::analysis {

enum class Phase { kPrefill, kDecode, kMixed, kUnknown };
std::string_view ToString(Phase phase);

enum class StepScheme { kConfig, kVllm, kSglang, kWorkload, kVllmStep, kProfiler };
std::string_view ToString(StepScheme scheme);

// What a step's name says. Counts are null when the name does not give them.
struct StepName {
  StepScheme scheme = StepScheme::kProfiler;
  Phase phase = Phase::kUnknown;
  std::optional<std::int64_t> prefill_requests, prefill_tokens;
  std::optional<std::int64_t> decode_requests, decode_tokens;
  std::string malformed;  // non-empty: the name looked like a counted annotation but its counts did not parse
};

class StepNamer {
 public:
  // Patterns are RE2 expressions matched against the whole range name; a
  // bad one is a usage error naming it.
  static Result<StepNamer> Create(const std::vector<std::string>& prefill, const std::vector<std::string>& decode);
  StepNamer();
  ~StepNamer();
  StepNamer(StepNamer&&) noexcept;
  StepNamer& operator=(StepNamer&&) noexcept;

  // Null: the range is not a step of any scheme.
  std::optional<StepName> Classify(std::string_view domain, std::string_view name) const;

 private:
  struct Impl;
  std::shared_ptr<const Impl> impl_;
};

}  // namespace llmpo::analysis
