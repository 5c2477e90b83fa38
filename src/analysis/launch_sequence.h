// The order kernels were launched in, per NVTX region, so that compare can
// align two runs' launch sequences (docs/compare.md, "Launch order").
//
// A sequence belongs to a region path (the labels of the push/pop stack
// around a launch, numbered instances folded: `ProfilerStep#3` ->
// `ProfilerStep#N`); launches outside every region form the path []. Each
// instance of the region (one NVTX range instance in one process on one
// device) is one pass over the sequence: the first instance seen sets the
// kernel at each position, and every later instance adds its launch
// duration to a position while its launches agree with it. An instance that
// launches a different kernel at some position (or more launches than the
// first) stops adding there and is counted as diverged. So position k's
// mean is over the instances that agreed up to k.
//
// Memory is bounded: at most kMaxSequenceSteps positions per sequence and
// kMaxSequences sequences (paths x scopes) per input; what falls beyond is counted.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "src/core/key_cache.h"
#include "src/model/sink.h"

namespace llmpo::analysis {

inline constexpr std::size_t kMaxSequenceSteps = 2048;
inline constexpr std::size_t kMaxSequences = 128;

// What identifies a launch in a sequence: the kernel name as the input
// printed it, and its grid and block where the input records them ("" when not).
struct KernelSignature {
  std::string name, grid, block;
  auto operator<=>(const KernelSignature&) const = default;
};

struct SequenceStep {
  std::uint32_t signature = 0;  // index into SourceSequences::signatures
  std::uint64_t samples = 0;    // instances that launched it here, with a known duration
  double mean_ns = 0;           // their mean launch duration
  double sum_sq_dev_ns2 = 0;    // their spread (Welford)
  bool operator==(const SequenceStep&) const = default;
};

struct LaunchSequence {
  std::vector<std::string> path;       // folded labels, outermost first; [] outside every region
  model::ProcessId process;            // the scope: one process on one device
  std::string device;
  std::uint64_t instances = 0;         // range instances seen
  std::uint64_t diverged = 0;          // instances whose launches left the first instance's sequence
  std::uint64_t beyond_cap = 0;        // launches past kMaxSequenceSteps in the first instance
  bool ordered = true;                 // false: an instance's launches came out of start-time order
  std::vector<SequenceStep> steps;
  bool operator==(const LaunchSequence&) const = default;
};

// One input's sequences.
struct SourceSequences {
  std::string source;
  std::vector<KernelSignature> signatures;
  std::vector<LaunchSequence> sequences;  // in the order their first launch came
  std::uint64_t launches_not_recorded = 0;  // in regions beyond kMaxSequences
  bool operator==(const SourceSequences&) const = default;
};

// A label with a `#<digits>` ending folded to `#N`; `numbered` set when it was.
std::string FoldInstanceNumber(const std::string& label, bool* numbered = nullptr);

// Records every input's kernel launches (LaunchKind::kKernel) in order.
class LaunchSequenceRecorder : public model::RecordSink {
 public:
  void SetSource(const std::string& label);
  void OnLaunch(const model::LaunchRecord& launch) override;
  void OnKernelSummary(const model::KernelSummaryRow&) override {}
  std::vector<SourceSequences> Finish();

 private:
  // Where the current instance of a sequence is.
  struct Cursor {
    std::optional<std::int64_t> instance;
    std::size_t position = 0;
    bool defining = false;  // the first instance: it sets the kernels
    bool diverged = false;
    std::optional<std::int64_t> last_start;
  };
  struct SignatureLess {
    using is_transparent = void;
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return std::tie(a.name, a.grid, a.block) < std::tie(b.name, b.grid, b.block);
    }
  };
  std::optional<std::size_t> SequenceFor(const model::LaunchRecord& launch);
  // Keeps the launch's stack and scope as the last key, and what it led to (none: not recorded).
  void Remember(const model::LaunchRecord& launch, std::optional<std::size_t> sequence);
  std::uint32_t SignatureId(const model::LaunchRecord& launch);
  std::uint32_t SignatureIdByName(const model::LaunchRecord& launch);
  void Advance(std::size_t sequence, const model::LaunchRecord& launch);
  void Close();  // the current input's sequences into done_

  std::vector<SourceSequences> done_;
  std::optional<SourceSequences> current_;
  std::vector<Cursor> cursors_;  // by sequence
  std::map<std::tuple<std::vector<std::string>, model::ProcessId, std::string>, std::size_t> sequence_ids_;
  std::map<KernelSignature, std::uint32_t, SignatureLess> signature_ids_;
  struct KeyedSignature {  // signature_ids_' answer for a kernel_name_key with this grid and block
    std::string grid, block;
    std::uint32_t id = 0;
  };
  KeyCache<KeyedSignature> signature_by_key_;  // cleared with signature_ids_
  // The last launch's stack and scope and the sequence they led to: launches come in runs of one stack.
  std::vector<model::NvtxFrame> last_stack_;
  model::ProcessId last_process_;
  std::string last_device_;
  std::optional<std::size_t> last_sequence_;
  std::uint64_t last_context_key_ = 0;  // the last launch's context key, whose stack, process and device those are
  bool last_unrecorded_ = false;  // that key found no sequence and kMaxSequences were full: nor will it later
};

}  // namespace llmpo::analysis
