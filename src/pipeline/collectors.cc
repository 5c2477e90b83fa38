#include "src/pipeline/collectors.h"

#include <utility>

#include "src/model/forwarding_sink.h"

namespace llmpo::pipeline {

// Where each record kind goes, on the caller's thread. The region builder
// is the TeeSink's other branch: it sends it launches, kernel summaries and
// NVTX rows, and the runtime summaries (API calls, GPU operations, launch
// overhead) only here.
class Collectors::Router : public model::RecordSink {
 public:
  explicit Router(Collectors& c) : c_(c) {}
  void OnLaunch(const model::LaunchRecord& l) override {
    c_.aggregator_.OnLaunch(l);
    c_.gpu_timeline_.OnLaunch(l);
    c_.timeline_.OnLaunch(l);
    if (c_.pair_launches_) c_.pairing_.OnLaunch(l);
    c_.sequences_.OnLaunch(l);
    c_.phases_.OnLaunch(l);
  }
  void OnNvtxRange(const model::NvtxRange& r) override {
    c_.phases_.OnNvtxRange(r);
    c_.gpu_timeline_.OnNvtxRange(r);
  }
  void OnNvtxRangesDone() override { c_.phases_.OnNvtxRangesDone(); }
  void OnCpuOp(const model::CpuOp& op) override { c_.gpu_timeline_.OnCpuOp(op); }
  void OnKernelSummary(const model::KernelSummaryRow& r) override { c_.aggregator_.OnKernelSummary(r); }
  void OnApiSummary(const model::ApiSummaryRow& r) override { c_.aggregator_.OnApiSummary(r); }
  void OnGpuOpSummary(const model::GpuOpSummaryRow& r) override { c_.aggregator_.OnGpuOpSummary(r); }
  void OnLaunchOverhead(const model::LaunchOverheadRow& r) override { c_.aggregator_.OnLaunchOverhead(r); }
  void OnDevice(const model::DeviceInfo& d) override { c_.devices_.push_back(d); }

 private:
  Collectors& c_;
};

// Puts every launch of a per-region capture inside that region (outermost),
// keeping whatever NVTX stack the capture recorded beneath it.
class Collectors::RegionTag : public model::ForwardingSink {
 public:
  RegionTag(model::RecordSink& next, const std::string& label) : ForwardingSink(next) {
    const auto at = label.find('@');
    frame_ = at == std::string::npos ? model::NvtxFrame{"", label, std::nullopt}
                                     : model::NvtxFrame{label.substr(0, at), label.substr(at + 1), std::nullopt};
  }
  void OnLaunch(const model::LaunchRecord& launch) override {
    model::LaunchRecord tagged = launch;
    tagged.has_nvtx = true;
    if (tagged.nvtx_stack.empty() || !(tagged.nvtx_stack.front() == frame_)) {
      tagged.nvtx_stack.insert(tagged.nvtx_stack.begin(), frame_);
    }
    next().OnLaunch(tagged);
  }

 private:
  model::NvtxFrame frame_;
};

Result<std::unique_ptr<Collectors>> Collectors::Create(const RegionOptions& regions, bool pair_launches) {
  ASSIGN_OR_RETURN(analysis::KernelFilter filter, analysis::KernelFilter::Create(regions.kernels, regions.per_region));
  ASSIGN_OR_RETURN(analysis::StepNamer steps,
                   analysis::StepNamer::Create(regions.phases.prefill_patterns, regions.phases.decode_patterns));
  ASSIGN_OR_RETURN(analysis::InstanceSuffix suffix, analysis::InstanceSuffix::Create(regions.instance_suffix));
  return std::unique_ptr<Collectors>(
      new Collectors(std::move(filter), std::move(steps), std::move(suffix), pair_launches));
}

Collectors::Collectors(analysis::KernelFilter filter, analysis::StepNamer steps, analysis::InstanceSuffix suffix,
                       bool pair_launches)
    : phases_(std::move(steps)), pair_launches_(pair_launches), filter_(std::move(filter)), suffix_(std::move(suffix)) {}

Collectors::~Collectors() = default;

model::RecordSink& Collectors::BeginInput(const std::string& label, const std::string& capture_region) {
  aggregator_.SetSource(label);
  timeline_.SetSource(label);
  gpu_timeline_.SetSource(label);
  sequences_.SetSource(label);
  phases_.SetSource(label);
  // One region builder per input: CombineRegions decides what adds up.
  builders_.push_back(std::make_unique<analysis::RegionBuilder>(label, filter_, region_diagnostics_, suffix_));
  tag_.reset();
  tee_.reset();
  router_ = std::make_unique<Router>(*this);
  tee_ = std::make_unique<TeeSink>(*router_, *builders_.back(), breakdown_);
  if (capture_region.empty()) return *tee_;
  tag_ = std::make_unique<RegionTag>(*tee_, capture_region);
  return *tag_;
}

void Collectors::EndInput(report::SourceInfo info) {
  tag_.reset();
  tee_.reset();
  router_.reset();
  info.devices = std::move(devices_);
  devices_.clear();
  const bool ok = info.ok();
  region_sources_.push_back({builders_.back().get(), info.family});
  pairing_.EndInput(info.path, ok ? info.family : model::SourceFamily::kSummary);
  sources_.push_back(std::move(info));
}

const std::vector<analysis::SourceRegions>& Collectors::FinishedRegionInputs() {
  if (!builders_finished_) {
    for (auto& b : builders_) b->Finish();
  }
  builders_finished_ = true;
  return region_sources_;
}

report::Collected Collectors::Finish() {
  FinishedRegionInputs();
  regions_ = analysis::CombineRegions(region_sources_);
  report::Collected c;
  c.sources = std::move(sources_);
  c.kernels = aggregator_.Sorted();
  c.runtime = aggregator_.runtime();
  c.gpu_busy = gpu_timeline_.Busy();
  c.gpu_breakdown = std::move(breakdown_);
  c.timeline = timeline_.Finish();
  c.regions = &regions_;
  c.unused_kernel_patterns = filter_.UnusedPatterns();
  c.pairing = &pairing_;
  c.launch_sequences = sequences_.Finish();
  c.phases = phases_.Finish();
  c.diagnostics = std::move(diagnostics_);
  c.region_diagnostics = std::move(region_diagnostics_);
  return c;
}

}  // namespace llmpo::pipeline
