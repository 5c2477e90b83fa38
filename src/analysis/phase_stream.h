// Kernels reduced per step as they arrive (PhaseInput::Digest), for an
// input whose ranges all came before its kernels (nsys SQLite sends its
// NVTX ranges first): what AnalyzePhases needs of each step, kept per step
// instead of per launch, so memory does not grow with the kernels.
//
// A step's busy time (the union of its kernels) needs the kernels' intervals
// while more may still come: the latest steps keep theirs, merged where they
// touch, and the oldest are folded into a sum once more than kMaxPieces are
// held. Kernels come in launch order per thread, so a folded step rarely gets
// another; one that starts before the folded part makes that step's busy
// time unknown (null) rather than a guess, as IntervalUnion does.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "src/analysis/phase_graphs.h"
#include "src/analysis/phase_internal.h"

namespace llmpo::analysis {

class PhaseStream {
 public:
  static constexpr std::size_t kMaxPieces = std::size_t{1} << 18;

  // Against the steps of the ranges `in` holds now.
  explicit PhaseStream(const PhaseInput& in);
  // Reduces kernel `k` of `in`. False for a kernel of a graph launch: the
  // caller keeps it whole (GraphLaunches needs it, and AnalyzePhases counts
  // its time); only its interval counts here, for its step's span and busy time.
  bool Add(const TimedKernel& k, const PhaseInput& in);
  // Appends the reduced steps, by step, and the kernels outside every step to in.digest.
  void Finish(PhaseInput& in);

 private:
  struct Open {  // a step's kernel intervals while kernels may still come
    std::vector<std::pair<std::int64_t, std::int64_t>> pieces;  // disjoint, by start
    double folded_ns = 0;                                        // length of the pieces folded out
    std::int64_t frontier = 0;                                   // the latest end folded out
    bool folded = false, unknown = false, any = false;
  };
  void AddPiece(std::uint32_t id, std::int64_t start, std::int64_t end);
  void FoldOldest(std::uint32_t keep);
  PhaseInput::StepKernels::Name& NameOf(std::uint32_t id, std::uint32_t name);
  bool Autotunes(const PhaseInput& in, std::uint32_t name);

  phase_detail::Steps steps_;
  phase_detail::StepHint hint_;  // where the last kernel's step is
  std::vector<PhaseInput::StepKernels> digests_;  // by step
  std::vector<Open> open_;                        // by step
  std::deque<std::uint32_t> touched_;             // steps in the order they got pieces (may repeat)
  std::size_t pieces_ = 0;
  PhaseInput::Digest outside_;
  // Where each name sits in the names of step slot_step_ (index + 1; 0: not there).
  std::vector<std::uint32_t> slot_;
  std::uint32_t slot_step_ = kNoPhaseStep;
  std::vector<std::int8_t> autotune_;  // by name: 0 not known yet, 1 no, 2 yes
};

}  // namespace llmpo::analysis
