#include "src/analysis/launch_sequence.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "src/analysis/region_tree.h"

namespace llmpo::analysis {
namespace {

struct SignatureView {
  std::string_view name, grid, block;
};

// The sequence key depends on the frames' names and domains only, not on
// which instance of them a launch ran in.
bool SameLabels(const std::vector<model::NvtxFrame>& a, const std::vector<model::NvtxFrame>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const model::NvtxFrame& x, const model::NvtxFrame& y) {
    return x.name == y.name && x.domain == y.domain;
  });
}

}  // namespace

std::string FoldInstanceNumber(const std::string& label, bool* numbered) {
  const auto hash = label.rfind('#');
  if (hash == std::string::npos || hash + 1 == label.size()) return label;
  const bool digits = std::all_of(label.begin() + static_cast<std::ptrdiff_t>(hash) + 1, label.end(),
                                  [](unsigned char c) { return std::isdigit(c) != 0; });
  if (!digits) return label;
  if (numbered) *numbered = true;
  return label.substr(0, hash) + "#N";
}

void LaunchSequenceRecorder::SetSource(const std::string& label) {
  Close();
  current_.emplace();
  current_->source = label;
  cursors_.clear();
  sequence_ids_.clear();
  signature_ids_.clear();
  signature_by_key_.Clear();
  last_stack_.clear();
  last_sequence_.reset();
  last_unrecorded_ = false;
  last_context_key_ = 0;
}

void LaunchSequenceRecorder::Remember(const model::LaunchRecord& launch, std::optional<std::size_t> sequence) {
  last_stack_ = launch.nvtx_stack;
  last_process_ = launch.process;
  last_device_ = launch.device;
  last_sequence_ = sequence;
  last_unrecorded_ = !sequence;
}

std::optional<std::size_t> LaunchSequenceRecorder::SequenceFor(const model::LaunchRecord& launch) {
  // Launches come in runs of one stack (of one instance or the next): the last key is checked first.
  // Equal context keys have equal stacks, processes and devices: nothing to compare.
  const bool same_key = (last_sequence_ || last_unrecorded_) &&
                        ((launch.context_key != 0 && launch.context_key == last_context_key_) ||
                         (SameLabels(launch.nvtx_stack, last_stack_) && launch.process == last_process_ &&
                          launch.device == last_device_));
  last_context_key_ = launch.context_key;
  if (same_key && last_unrecorded_) return std::nullopt;
  std::size_t id = 0;
  if (same_key) {
    id = *last_sequence_;
  } else {
    std::vector<std::string> path;
    path.reserve(launch.nvtx_stack.size());
    for (const auto& frame : launch.nvtx_stack) path.push_back(FoldInstanceNumber(RegionLabel(frame)));
    auto key = std::make_tuple(std::move(path), launch.process, launch.device);
    auto it = sequence_ids_.find(key);
    if (it == sequence_ids_.end()) {
      if (current_->sequences.size() >= kMaxSequences) {
        Remember(launch, std::nullopt);
        return std::nullopt;
      }
      LaunchSequence& fresh = current_->sequences.emplace_back();
      fresh.path = std::get<0>(key);
      fresh.process = launch.process;
      fresh.device = launch.device;
      cursors_.emplace_back();
      it = sequence_ids_.emplace(std::move(key), current_->sequences.size() - 1).first;
    }
    id = it->second;
    Remember(launch, id);
  }
  // A new instance of the region starts its pass from the first position.
  const std::optional<std::int64_t> instance =
      launch.nvtx_stack.empty() ? std::nullopt : launch.nvtx_stack.back().instance;
  Cursor& cursor = cursors_[id];
  LaunchSequence& sequence = current_->sequences[id];
  if (sequence.instances == 0 || cursor.instance != instance) {
    cursor = Cursor{instance, 0, sequence.instances == 0, false, std::nullopt};
    ++sequence.instances;
  }
  return id;
}

std::uint32_t LaunchSequenceRecorder::SignatureId(const model::LaunchRecord& launch) {
  const KeyedSignature* known = signature_by_key_.Find(launch.kernel_name_key);
  if (known != nullptr && known->grid == launch.grid_size && known->block == launch.block_size) return known->id;
  const std::uint32_t id = SignatureIdByName(launch);
  signature_by_key_.Put(launch.kernel_name_key, KeyedSignature{launch.grid_size, launch.block_size, id});
  return id;
}

std::uint32_t LaunchSequenceRecorder::SignatureIdByName(const model::LaunchRecord& launch) {
  const SignatureView view{launch.kernel_name, launch.grid_size, launch.block_size};
  if (const auto it = signature_ids_.find(view); it != signature_ids_.end()) return it->second;
  const auto id = static_cast<std::uint32_t>(current_->signatures.size());
  current_->signatures.push_back({launch.kernel_name, launch.grid_size, launch.block_size});
  signature_ids_.emplace(current_->signatures.back(), id);
  return id;
}

void LaunchSequenceRecorder::Advance(std::size_t id, const model::LaunchRecord& launch) {
  Cursor& cursor = cursors_[id];
  LaunchSequence& sequence = current_->sequences[id];
  if (launch.start_ns) {
    if (cursor.last_start && *launch.start_ns < *cursor.last_start) sequence.ordered = false;
    cursor.last_start = launch.start_ns;
  }
  if (cursor.diverged) return;
  const std::uint32_t signature = SignatureId(launch);
  SequenceStep* step = nullptr;
  if (cursor.position < sequence.steps.size()) {
    step = &sequence.steps[cursor.position];
    if (step->signature != signature) step = nullptr;
  } else if (cursor.defining) {
    if (sequence.steps.size() == kMaxSequenceSteps) {
      ++sequence.beyond_cap;
      return;
    }
    step = &sequence.steps.emplace_back();
    step->signature = signature;
  }
  if (step == nullptr) {  // a different kernel here, or more launches than the first instance
    cursor.diverged = true;
    ++sequence.diverged;
    return;
  }
  ++cursor.position;
  if (!launch.duration_ns) return;
  // Welford's update of the position's mean and spread.
  const double x = *launch.duration_ns;
  ++step->samples;
  const double delta = x - step->mean_ns;
  step->mean_ns += delta / static_cast<double>(step->samples);
  step->sum_sq_dev_ns2 += delta * (x - step->mean_ns);
}

void LaunchSequenceRecorder::OnLaunch(const model::LaunchRecord& launch) {
  if (launch.kind != model::LaunchKind::kKernel || !current_) return;
  const std::optional<std::size_t> id = SequenceFor(launch);
  if (!id) {
    ++current_->launches_not_recorded;
    return;
  }
  Advance(*id, launch);
}

// An input's sequences are kept until the reports (one per rank file): the
// room their vectors grew into goes first.
void LaunchSequenceRecorder::Close() {
  if (!current_) return;
  current_->signatures.shrink_to_fit();
  current_->sequences.shrink_to_fit();
  for (LaunchSequence& s : current_->sequences) s.steps.shrink_to_fit();
  done_.push_back(std::move(*current_));
  current_.reset();
}

std::vector<SourceSequences> LaunchSequenceRecorder::Finish() {
  Close();
  return std::move(done_);
}

}  // namespace llmpo::analysis
