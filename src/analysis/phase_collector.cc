// PhaseCollector (analysis/phases.h): keeps each timed kernel compactly
// (names interned), or reduces it per step (phase_stream.h), and each range
// a step scheme names.
#include "src/analysis/phase_stream.h"
#include "src/analysis/phases.h"

namespace llmpo::analysis {

PhaseCollector::PhaseCollector(StepNamer namer) : namer_(std::move(namer)) {}
PhaseCollector::~PhaseCollector() = default;

std::uint32_t PhaseCollector::Name(const std::string& name) {
  auto [it, added] = name_ids_.try_emplace(name, static_cast<std::uint32_t>(in_.names.size()));
  if (added) in_.names.push_back(name);
  return it->second;
}

std::uint32_t PhaseCollector::KernelName(const model::LaunchRecord& launch) {
  if (const std::uint32_t* id = name_by_key_.Find(launch.kernel_name_key)) return *id;
  const std::uint32_t id = Name(launch.kernel_name);
  name_by_key_.Put(launch.kernel_name_key, id);
  return id;
}

std::uint32_t PhaseCollector::RangeName(const std::string& name) {
  if (last_range_id_ != 0 && name == last_range_) return last_range_id_;
  last_range_ = name;
  return last_range_id_ = Name(name);
}

std::uint32_t PhaseCollector::Scope(const model::ProcessId& process) {
  if (last_process_ && *last_process_ == process) return last_scope_;
  const std::string label = process.Known() ? source_ + " (" + process.Label() + ")" : source_;
  auto [it, added] = scope_ids_.try_emplace(label, static_cast<std::uint32_t>(in_.scopes.size()));
  if (added) in_.scopes.push_back(label);
  last_process_ = process;
  last_scope_ = it->second;
  return it->second;
}

void PhaseCollector::SetSource(std::string label) {
  EndStream();
  source_ = std::move(label);
  last_process_.reset();
  last_context_key_ = 0;
  last_origin_key_ = 0;
}

void PhaseCollector::OnLaunch(const model::LaunchRecord& l) {
  if (l.kind != model::LaunchKind::kKernel || !l.start_ns || !l.end_ns || *l.end_ns < *l.start_ns) return;
  PhaseInput::Kernel k;
  k.start = *l.start_ns, k.end = *l.end_ns;
  k.call_start = l.launch_call_start_ns, k.call_end = l.launch_call_end_ns;
  k.correlation = l.correlation_id;
  k.name = KernelName(l);
  // Equal context keys have equal stacks, equal origin keys equal processes: the last launch's range and scope.
  if (l.context_key == 0 || l.context_key != last_context_key_) {
    last_context_range_ = l.nvtx_stack.empty() ? 0 : RangeName(l.nvtx_stack.back().name);
    last_context_key_ = l.context_key;
  }
  if (l.origin_key == 0 || l.origin_key != last_origin_key_) {
    last_origin_scope_ = Scope(l.process);
    last_origin_key_ = l.origin_key;
  }
  k.range = last_context_range_;
  k.scope = last_origin_scope_;
  const std::string_view call = l.launch_call_name;
  k.graph = call.starts_with("cudaGraphLaunch") || call.starts_with("cuGraphLaunch") || l.graph_node_id.has_value();
  k.graph_id = l.graph_id;
  if (stream_ && stream_->Add(k, in_)) return;
  in_.kernels.push_back(k);
}

void PhaseCollector::OnNvtxRange(const model::NvtxRange& r) {
  if (!r.start_ns || !r.end_ns || *r.end_ns < *r.start_ns) return;
  const std::optional<StepName>& step = Classify(r.domain, r.name);
  if (!step) return;
  in_.ranges.push_back({r.name, *r.start_ns, *r.end_ns, Scope(r.process), *step});
}

const std::optional<StepName>& PhaseCollector::Classify(const std::string& domain, const std::string& name) {
  AssignPairKey(classify_key_, domain, name);
  if (auto it = classified_.find(std::string_view(classify_key_)); it != classified_.end()) return it->second;
  if (classified_.size() >= kMaxClassified) classified_.clear();
  return classified_.emplace(classify_key_, namer_.Classify(domain, name)).first->second;
}

void PhaseCollector::OnNvtxRangesDone() {
  EndStream();
  stream_ = std::make_unique<PhaseStream>(in_);
}

void PhaseCollector::EndStream() {
  if (stream_) stream_->Finish(in_);
  stream_.reset();
}

PhaseInput PhaseCollector::Finish() {
  EndStream();
  return std::move(in_);
}

}  // namespace llmpo::analysis
