// Writers for the tracer's outputs: the three summaries as CSV in the shapes
// of the nsys stats reports they stand in for (so the nsys importers read
// them), and the whole trace as Chrome trace-event JSON (ui.perfetto.dev and
// chrome://tracing open it).
#pragma once

#include "src/model/diagnostics.h"

#include <ostream>
#include <string>
#include <vector>

#include "src/analysis/trace_summary.h"
#include "src/model/trace.h"

namespace llmpo::report {

std::string KernelSummaryCsv(const analysis::TraceSummaries& s);   // cuda_gpu_kern_sum
std::string NvtxSummaryCsv(const analysis::TraceSummaries& s);     // nvtx_sum
std::string NvtxProjectionCsv(const analysis::TraceSummaries& s);  // nvtx_gpu_proj_sum
void WriteChromeTrace(std::ostream& out, const std::vector<model::TraceData>& traces);
// trace/data_quality.txt: records read, then each check that fired and the notes.
std::string TraceDataQualityText(const model::Diagnostics& diagnostics);

}  // namespace llmpo::report
