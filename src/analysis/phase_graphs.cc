#include "src/analysis/phase_graphs.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace llmpo::analysis {
namespace {

struct Launch {
  std::uint32_t scope = 0;
  std::vector<std::pair<std::int64_t, std::uint32_t>> kernels;  // (start, name)
  double gpu_ns = 0;
  std::optional<double> call_ns;
  std::uint32_t range = 0;
  std::uint32_t step = kNoPhaseStep;
  std::optional<std::int64_t> graph_id;
};

// What makes launches one graph: the input, and its graph id where it
// records one, else the kernel sequence.
using GraphKey = std::tuple<std::uint32_t, std::optional<std::int64_t>, std::vector<std::uint32_t>>;

}  // namespace

std::vector<GraphRow> GraphLaunches(const PhaseInput& in, const std::vector<std::uint32_t>& step_of,
                                    const std::vector<PhaseStep>& steps) {
  std::map<std::pair<std::uint32_t, std::int64_t>, Launch> launches;  // by (scope, correlation)
  for (std::size_t i = 0; i < in.kernels.size(); ++i) {
    const auto& k = in.kernels[i];
    if (!k.graph || !k.correlation) continue;
    Launch& l = launches[{k.scope, *k.correlation}];
    l.scope = k.scope;
    l.kernels.emplace_back(k.start, k.name);
    l.gpu_ns += static_cast<double>(k.end - k.start);
    if (k.call_start && k.call_end) l.call_ns = static_cast<double>(*k.call_end - *k.call_start);
    l.range = k.range;
    l.step = step_of[i];
    if (k.graph_id) l.graph_id = k.graph_id;
  }
  std::map<GraphKey, GraphRow> graphs;
  std::map<std::pair<const GraphRow*, std::uint32_t>, GraphRange> ranges;
  bool call_known = true;
  for (auto& [key, l] : launches) {
    std::sort(l.kernels.begin(), l.kernels.end());
    std::vector<std::uint32_t> sequence;
    for (const auto& [start, name] : l.kernels) sequence.push_back(name);
    const std::uint64_t n = sequence.size();
    GraphRow& g = l.graph_id ? graphs[GraphKey{l.scope, l.graph_id, {}}] : graphs[GraphKey{l.scope, {}, sequence}];
    if (g.launches == 0) {
      g.scope = in.scopes[l.scope];
      g.graph_id = l.graph_id;
      g.first_kernel = in.names[sequence.front()];
      g.kernels_per_launch_min = g.kernels_per_launch_max = n;
    }
    g.kernels_per_launch_min = std::min(g.kernels_per_launch_min, n);
    g.kernels_per_launch_max = std::max(g.kernels_per_launch_max, n);
    ++g.launches;
    g.kernels += n;
    g.gpu_kernel_ns += l.gpu_ns;
    if (l.call_ns) g.launch_call_ns = g.launch_call_ns.value_or(0) + *l.call_ns;
    call_known = call_known && l.call_ns.has_value();
    GraphRange& r = ranges[{&g, l.range}];
    r.range = in.names[l.range];
    if (l.step != kNoPhaseStep) r.phase = steps[l.step].phase, r.in_step = true;
    ++r.launches;
    r.kernels += n;
    r.gpu_kernel_ns += l.gpu_ns;
  }
  std::vector<GraphRow> out;
  for (auto& [key, g] : graphs) {
    for (auto& [rk, r] : ranges) {
      if (rk.first == &g) g.ranges.push_back(r);
    }
    std::sort(g.ranges.begin(), g.ranges.end(),
              [](const auto& a, const auto& b) { return std::tie(b.kernels, a.range) < std::tie(a.kernels, b.range); });
    if (!call_known) g.launch_call_ns.reset();
    out.push_back(std::move(g));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.gpu_kernel_ns != b.gpu_kernel_ns ? a.gpu_kernel_ns > b.gpu_kernel_ns : a.first_kernel < b.first_kernel;
  });
  return out;
}

}  // namespace llmpo::analysis
