// Every sink an import feeds, declared once: the kernel aggregator, the GPU
// busy timeline, the page's timeline overview, the launch pairing (only
// where a timeline and an ncu input could meet: it keeps every launch), one
// region builder per input and the GPU breakdown. The routing of each record
// kind to them is written in one place (Router in collectors.cc); Finish()
// hands over what was collected.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "src/analysis/launch_sequence.h"
#include "src/analysis/gpu_timeline.h"
#include "src/analysis/kernel_aggregator.h"
#include "src/analysis/kernel_filter.h"
#include "src/analysis/launch_pairing.h"
#include "src/analysis/phases.h"
#include "src/analysis/region_combine.h"
#include "src/analysis/region_tree.h"
#include "src/core/result.h"
#include "src/model/sink.h"
#include "src/pipeline/region_options.h"
#include "src/pipeline/tee_sink.h"
#include "src/report/report_set.h"
#include "src/report/timeline_model.h"

namespace llmpo::pipeline {

class Collectors {
 public:
  // `pair_launches`: keep launches for launch-by-launch pairing with ncu.
  static Result<std::unique_ptr<Collectors>> Create(const RegionOptions& regions, bool pair_launches);
  ~Collectors();
  Collectors(const Collectors&) = delete;
  Collectors& operator=(const Collectors&) = delete;

  // The sink for the records of the input labelled `label` (until
  // EndInput). A non-empty `capture_region` puts each of its launches
  // inside that region (a capture of one region: "A", "domain@A").
  model::RecordSink& BeginInput(const std::string& label, const std::string& capture_region);
  // The input is read (info.status says how it went).
  void EndInput(report::SourceInfo info);

  model::Diagnostics& diagnostics() { return diagnostics_; }
  const std::vector<report::SourceInfo>& sources() const { return sources_; }

  // What was collected (call once: the tables move out). The regions and
  // the pairing it points at stay here: keep this object while the result
  // is used.
  report::Collected Finish();
  // Each input's region builder, finished but not combined (for a partial
  // result, src/pipeline/partial_import.h); Finish() may follow.
  const std::vector<analysis::SourceRegions>& FinishedRegionInputs();

 private:
  class Router;
  class RegionTag;
  Collectors(analysis::KernelFilter filter, analysis::StepNamer steps, analysis::InstanceSuffix suffix,
             bool pair_launches);

  analysis::KernelAggregator aggregator_;
  analysis::GpuTimeline gpu_timeline_;    // GPU busy and idle per device
  report::TimelineCollector timeline_;    // report.html's overview from the launches
  analysis::LaunchPairing pairing_;
  analysis::LaunchSequenceRecorder sequences_;  // compare's launch order
  analysis::PhaseCollector phases_;       // steps and timed kernels for the LLM phases
  bool pair_launches_;
  analysis::KernelFilter filter_;
  analysis::InstanceSuffix suffix_;  // pipeline.regions.instance_suffix
  model::Diagnostics diagnostics_;         // the importers'
  model::Diagnostics region_diagnostics_;  // the region builders'
  model::GpuBreakdown breakdown_;
  std::vector<std::unique_ptr<analysis::RegionBuilder>> builders_;  // one per input
  bool builders_finished_ = false;
  std::vector<analysis::SourceRegions> region_sources_;
  analysis::CombinedRegions regions_;
  std::vector<report::SourceInfo> sources_;
  std::vector<model::DeviceInfo> devices_;  // the current input's GPUs
  // The current input's sinks.
  std::unique_ptr<Router> router_;
  std::unique_ptr<TeeSink> tee_;
  std::unique_ptr<RegionTag> tag_;
};

}  // namespace llmpo::pipeline
