#include "src/report/phases_model.h"

#include <fmt/format.h>

#include "src/report/run_model.h"

namespace llmpo::report {
namespace {

// cudaGraphLaunch calls an API summary or timeline counted, beside the graph
// launches whose kernels the timeline has: nsys traces a graph as one
// activity unless --cuda-graph-trace=node.
void NoteGraphsWithoutNodes(const KernelsReport& kernels, analysis::PhaseReport& report) {
  std::int64_t calls = 0;
  for (const auto& a : kernels.runtime.api_calls) {
    if (a.row.name.starts_with("cudaGraphLaunch") || a.row.name.starts_with("cuGraphLaunch")) calls += a.row.calls;
  }
  std::uint64_t seen = 0;
  for (const auto& g : report.graphs) seen += g.launches;
  if (calls > 0 && static_cast<std::uint64_t>(calls) > seen) {
    report.notes.push_back(fmt::format(
        "{} graph launch call(s) counted, {} with their kernels in the timeline: the others ran as whole graphs "
        "without node-level data (nsys' default --cuda-graph-trace=graph); profile with --cuda-graph-trace=node "
        "(pipeline.nsys.cuda_graph_trace=node) to see their kernels and attribute them",
        calls, seen));
  }
}

}  // namespace

std::optional<analysis::PhaseReport> BuildPhases(const analysis::PhaseInput& in, const analysis::PhaseOptions& options,
                                                 KernelsReport& kernels,
                                                 const analysis::KernelCategorizer& categorizer) {
  const InsightsByName insights(kernels);
  analysis::PhaseReport report = analysis::AnalyzePhases(
      in, options, categorizer, [&](const std::string& name) { return insights.Bound(name); }, kernels.diagnostics);
  NoteGraphsWithoutNodes(kernels, report);
  if (report.empty() && report.notes.empty()) return std::nullopt;
  return report;
}

}  // namespace llmpo::report
