#include "src/analysis/trace_summary.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <unordered_map>

namespace llmpo::analysis {
namespace {

using model::TraceData;
using model::TraceRange;

template <typename Key>
std::vector<NamedStats> ToRows(std::map<Key, std::vector<double>>& groups) {
  std::vector<NamedStats> rows;
  double all = 0;
  for (auto& [key, values] : groups) {
    NamedStats row;
    if constexpr (std::is_same_v<Key, std::string>) {
      row.name = key;
    } else {
      row.style = key.first;
      row.name = key.second;
    }
    row.stats = TimeStats::Of(std::move(values));
    all += row.stats.total;
    rows.push_back(std::move(row));
  }
  for (auto& r : rows) r.share_pct = all > 0 ? 100.0 * r.stats.total / all : 0;
  std::stable_sort(rows.begin(), rows.end(),
                   [](const NamedStats& a, const NamedStats& b) { return a.stats.total > b.stats.total; });
  return rows;
}

// Children per push/pop range: ranges one level deeper on the same thread
// and domain, inside it.
std::vector<int> ChildCounts(const std::vector<TraceRange>& ranges) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    if (ranges[i].push_pop) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto& x = ranges[a];
    const auto& y = ranges[b];
    return std::tie(x.tid, x.domain, x.start, x.depth) < std::tie(y.tid, y.domain, y.start, y.depth);
  });
  std::vector<int> children(ranges.size(), 0);
  std::vector<std::size_t> stack;
  for (std::size_t n = 0; n < order.size(); ++n) {
    const auto& r = ranges[order[n]];
    if (n > 0) {
      const auto& prev = ranges[order[n - 1]];
      if (prev.tid != r.tid || prev.domain != r.domain) stack.clear();
    }
    while (!stack.empty() && ranges[stack.back()].depth >= r.depth) stack.pop_back();
    if (!stack.empty() && ranges[stack.back()].depth == r.depth - 1) ++children[stack.back()];
    stack.push_back(order[n]);
  }
  return children;
}

}  // namespace

TimeStats TimeStats::Of(std::vector<double> v) {
  TimeStats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.count = v.size();
  s.total = std::accumulate(v.begin(), v.end(), 0.0);
  s.avg = s.total / static_cast<double>(s.count);
  s.min = v.front();
  s.max = v.back();
  const std::size_t mid = v.size() / 2;
  s.med = v.size() % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
  if (v.size() > 1) {
    double sq = 0;
    for (double x : v) sq += (x - s.avg) * (x - s.avg);
    s.stddev = std::sqrt(sq / static_cast<double>(v.size() - 1));
  }
  return s;
}

std::string RangeLabel(const TraceData& t, const TraceRange& r) { return t.DomainName(r.domain) + ":" + r.name; }

TraceSummaries Summarize(const std::vector<TraceData>& traces) {
  TraceSummaries out;
  std::map<std::string, std::vector<double>> kernels;  // by mangled name
  std::map<std::string, std::string> demangled;
  std::map<std::pair<std::string, std::string>, std::vector<double>> ranges;
  struct Projection {
    double total_range = 0;
    std::vector<double> projected;
    std::uint64_t instances = 0, ops = 0;
    double levels = 0, children = 0;
  };
  std::map<std::pair<std::string, std::string>, Projection> projection;

  for (const TraceData& t : traces) {
    for (const auto& op : t.gpu_ops) {
      if (op.kind != 'K') continue;
      kernels[op.mangled].push_back(static_cast<double>(op.end - op.start));
      demangled.emplace(op.mangled, op.name);
    }
    for (const auto& r : t.ranges) {
      ranges[{r.push_pop ? "PushPop" : "StartEnd", RangeLabel(t, r)}].push_back(static_cast<double>(r.end - r.start));
    }
    if (t.gpu_ops.empty()) continue;
    // GPU ops by the thread and time of their launching call, for the projection.
    std::unordered_map<std::uint64_t, const model::TraceApiCall*> call_of;
    for (const auto& a : t.api_calls) call_of[a.correlation] = &a;
    std::map<std::uint32_t, std::vector<std::pair<std::uint64_t, const model::TraceGpuOp*>>> ops_by_thread;
    for (const auto& op : t.gpu_ops) {
      auto it = call_of.find(op.correlation);
      if (it == call_of.end()) {
        ++out.unattributed_ops;
        continue;
      }
      ops_by_thread[it->second->tid].emplace_back(it->second->start, &op);
    }
    for (auto& [tid, ops] : ops_by_thread) std::sort(ops.begin(), ops.end());
    const std::vector<int> children = ChildCounts(t.ranges);
    for (std::size_t i = 0; i < t.ranges.size(); ++i) {
      const auto& r = t.ranges[i];
      auto thread = ops_by_thread.find(r.tid);
      if (thread == ops_by_thread.end()) continue;
      const auto& ops = thread->second;
      auto first = std::lower_bound(ops.begin(), ops.end(), std::make_pair(r.start, nullptr),
                                    [](const auto& a, const auto& b) { return a.first < b.first; });
      std::uint64_t lo = UINT64_MAX, hi = 0, count = 0;
      for (auto it = first; it != ops.end() && it->first <= r.end; ++it) {
        lo = std::min(lo, it->second->start);
        hi = std::max(hi, it->second->end);
        ++count;
      }
      if (count == 0) continue;
      Projection& p = projection[{RangeLabel(t, r), r.push_pop ? "PushPop" : "StartEnd"}];
      p.total_range += static_cast<double>(r.end - r.start);
      p.projected.push_back(static_cast<double>(hi - lo));
      ++p.instances;
      p.ops += count;
      p.levels += r.push_pop ? r.depth : 0;
      p.children += children[i];
    }
  }
  out.kernels = ToRows(kernels);
  for (auto& k : out.kernels) {
    k.mangled = k.name;
    k.name = demangled[k.mangled];
  }
  out.ranges = ToRows(ranges);
  for (auto& [key, p] : projection) {
    ProjectionRow row;
    row.range = key.first;
    row.style = key.second;
    row.total_range_ns = p.total_range;
    row.projected = TimeStats::Of(std::move(p.projected));
    row.instances = p.instances;
    row.gpu_ops = p.ops;
    row.avg_level = p.levels / static_cast<double>(p.instances);
    row.avg_children = p.children / static_cast<double>(p.instances);
    out.projection.push_back(std::move(row));
  }
  std::stable_sort(out.projection.begin(), out.projection.end(), [](const ProjectionRow& a, const ProjectionRow& b) {
    return a.projected.total > b.projected.total;
  });
  return out;
}

}  // namespace llmpo::analysis
