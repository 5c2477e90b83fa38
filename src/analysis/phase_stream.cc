#include "src/analysis/phase_stream.h"

#include <algorithm>
#include <iterator>

#include "src/analysis/interval_union.h"

namespace llmpo::analysis {

using phase_detail::StepAt;

PhaseStream::PhaseStream(const PhaseInput& in) {
  PhaseReport unused_report;
  model::Diagnostics unused_diagnostics;  // PickSteps' notes come again when the report is built
  steps_ = phase_detail::PickSteps(in, PhaseOptions{}, unused_report, unused_diagnostics);
  digests_.resize(steps_.steps.size());
  open_.resize(steps_.steps.size());
  for (std::uint32_t scope = 0; scope < steps_.by_scope.size(); ++scope) {
    for (std::uint32_t n = 0; n < steps_.by_scope[scope].size(); ++n) {
      PhaseInput::StepKernels& d = digests_[steps_.by_scope[scope][n]];
      d.scope = scope, d.step = n;
    }
  }
}

bool PhaseStream::Add(const TimedKernel& k, const PhaseInput& in) {
  const double ns = static_cast<double>(k.end - k.start);
  const bool known_scope = k.scope < steps_.by_scope.size();
  const std::uint32_t id = k.call_start && known_scope ? StepAt(steps_, k.scope, *k.call_start, hint_) : kNoPhaseStep;
  if (k.graph) {
    if (id != kNoPhaseStep) AddPiece(id, k.start, k.end);
    return false;
  }
  if (id == kNoPhaseStep) {
    ++outside_.outside;
    outside_.without_call += k.call_start ? 0 : 1;
    outside_.outside_ns += ns;
    return true;
  }
  PhaseInput::StepKernels& d = digests_[id];
  d.gpu_ns += ns;
  ++d.kernels;
  if (d.autotune == 0 && Autotunes(in, k.name)) d.autotune = k.name;
  AddPiece(id, k.start, k.end);
  PhaseInput::StepKernels::Name& name = NameOf(id, k.name);
  name.name = k.name, name.gpu_ns += ns, ++name.launches;
  return true;
}

// As IntervalUnion::Add, per step, with the oldest steps folded when too
// many pieces are held.
void PhaseStream::AddPiece(std::uint32_t id, std::int64_t start, std::int64_t end) {
  Open& o = open_[id];
  PhaseInput::StepKernels& d = digests_[id];
  if (!o.any) d.first_start = start, d.last_end = end;
  d.first_start = std::min(d.first_start, start), d.last_end = std::max(d.last_end, end);
  o.any = true;
  if (o.unknown) return;
  if (o.folded && start < o.frontier) {  // could overlap what was folded, unseen
    o.unknown = true;
    pieces_ -= o.pieces.size();
    std::vector<std::pair<std::int64_t, std::int64_t>>().swap(o.pieces);  // frees it
    return;
  }
  auto& seg = o.pieces;
  const std::size_t before = seg.size();
  if (seg.empty()) touched_.push_back(id);
  AddToSegments(seg, start, end);
  pieces_ = pieces_ + seg.size() - before;
  if (pieces_ > kMaxPieces) FoldOldest(id);
}

// Folds whole steps, the longest untouched first, never the one being added to.
void PhaseStream::FoldOldest(std::uint32_t keep) {
  std::size_t passes = touched_.size();
  while (pieces_ > kMaxPieces / 2 && passes-- > 0) {
    const std::uint32_t id = touched_.front();
    touched_.pop_front();
    Open& o = open_[id];
    if (o.pieces.empty()) continue;  // folded already, or unknown
    if (id == keep) {
      touched_.push_back(id);
      continue;
    }
    for (const auto& [s, e] : o.pieces) o.folded_ns += static_cast<double>(e - s);
    o.frontier = std::max(o.frontier, o.pieces.back().second);
    o.folded = true;
    pieces_ -= o.pieces.size();
    std::vector<std::pair<std::int64_t, std::int64_t>>().swap(o.pieces);
  }
}

PhaseInput::StepKernels::Name& PhaseStream::NameOf(std::uint32_t id, std::uint32_t name) {
  if (slot_step_ != id) {
    if (slot_step_ != kNoPhaseStep) {  // left for now: packed (a step rarely gets kernels again)
      for (const auto& n : digests_[slot_step_].names) slot_[n.name] = 0;
      digests_[slot_step_].names.Pack();
    }
    slot_step_ = id;
    const auto& names = digests_[id].names.Open();
    for (std::uint32_t i = 0; i < names.size(); ++i) slot_[names[i].name] = i + 1;
  }
  if (name >= slot_.size()) slot_.resize(std::max<std::size_t>(name + 1, slot_.size() * 2), 0);
  auto& names = digests_[id].names.Open();
  if (slot_[name] == 0) {
    names.push_back({0, name, 0});
    slot_[name] = static_cast<std::uint32_t>(names.size());
  }
  return names[slot_[name] - 1];
}

bool PhaseStream::Autotunes(const PhaseInput& in, std::uint32_t name) {
  if (name >= autotune_.size()) autotune_.resize(std::max<std::size_t>(name + 1, autotune_.size() * 2), 0);
  if (autotune_[name] == 0) autotune_[name] = phase_detail::IsAutotuneKernel(in.names[name]) ? 2 : 1;
  return autotune_[name] == 2;
}

void PhaseStream::Finish(PhaseInput& in) {
  for (std::size_t id = 0; id < digests_.size(); ++id) {
    Open& o = open_[id];
    if (!o.any) continue;
    PhaseInput::StepKernels& d = digests_[id];
    if (o.unknown) {
      d.busy_ns = std::nullopt;
    } else {
      double busy = o.folded_ns;
      for (const auto& [s, e] : o.pieces) busy += static_cast<double>(e - s);
      d.busy_ns = busy;
    }
    auto& names = d.names.Open();
    std::sort(names.begin(), names.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    d.names.Pack();
    in.digest.steps.push_back(std::move(d));
  }
  in.digest.outside += outside_.outside;
  in.digest.without_call += outside_.without_call;
  in.digest.outside_ns += outside_.outside_ns;
}

}  // namespace llmpo::analysis
