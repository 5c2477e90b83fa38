#include "src/report/timeline_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

namespace llmpo::report {
namespace {

using Interval = std::pair<std::uint64_t, std::uint64_t>;

// Total length of the union of intervals (sorted here).
double UnionNs(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end());
  double total = 0;
  std::uint64_t end = 0;
  bool open = false;
  std::uint64_t start = 0;
  for (const auto& [s, e] : intervals) {
    if (!open || s > end) {
      if (open) total += static_cast<double>(end - start);
      start = s, end = e, open = true;
    } else {
      end = std::max(end, e);
    }
  }
  if (open) total += static_cast<double>(end - start);
  return total;
}

void Span(const std::vector<model::TraceData>& traces, std::uint64_t& start, std::uint64_t& end, bool& any) {
  auto add = [&](std::uint64_t s, std::uint64_t e) {
    start = any ? std::min(start, s) : s;
    end = any ? std::max(end, e) : e;
    any = true;
  };
  for (const auto& t : traces) {
    for (const auto& r : t.ranges) add(r.start, std::max(r.start, r.end));
    for (const auto& op : t.gpu_ops) add(op.start, std::max(op.start, op.end));
  }
}

// Adds [s, e) to the bins it overlaps.
void AddToBins(std::vector<double>& bins, std::uint64_t start, double bin_ns, std::uint64_t s, std::uint64_t e) {
  if (e <= s || bins.empty()) return;
  const auto last = bins.size() - 1;
  auto first_bin = std::min<std::size_t>(static_cast<std::size_t>(static_cast<double>(s - start) / bin_ns), last);
  for (std::size_t b = first_bin; b <= last; ++b) {
    const double lo = static_cast<double>(start) + bin_ns * static_cast<double>(b);
    const double hi = b == last ? static_cast<double>(e) : lo + bin_ns;
    const double overlap = std::min(hi, static_cast<double>(e)) - std::max(lo, static_cast<double>(s));
    if (overlap > 0) bins[b] += overlap;
    if (hi >= static_cast<double>(e)) break;
  }
}

}  // namespace

std::optional<TimelineOverview> BuildTimelineOverview(const std::vector<model::TraceData>& traces, std::size_t bins) {
  TimelineOverview t;
  bool any = false;
  Span(traces, t.start_ns, t.end_ns, any);
  if (!any || bins == 0) return std::nullopt;
  t.bins = bins;
  const double span = static_cast<double>(std::max<std::uint64_t>(t.end_ns - t.start_ns, 1));
  const double bin_ns = span / static_cast<double>(bins);
  using Key = std::tuple<std::uint32_t, std::uint64_t, std::int64_t>;  // device, stream, pid
  std::map<Key, std::vector<Interval>> by_row;
  std::vector<Interval> all;
  bool gpu_traced = false;
  for (const auto& trace : traces) {
    gpu_traced |= trace.gpu_traced || !trace.gpu_ops.empty();
    for (const auto& op : trace.gpu_ops) {
      const Interval iv{op.start, std::max(op.start, op.end)};
      by_row[{op.device, op.stream, trace.pid}].push_back(iv);
      all.push_back(iv);
    }
  }
  for (auto& [key, intervals] : by_row) {
    const auto& [device, stream, pid] = key;
    TimelineRow row{fmt::format("GPU {} stream {} (pid {})", device, stream, pid), std::vector<double>(bins, 0.0), 0};
    for (const auto& [s, e] : intervals) AddToBins(row.busy_ns, t.start_ns, bin_ns, s, e);
    row.busy_total_ns = UnionNs(std::move(intervals));
    t.rows.push_back(std::move(row));
  }
  t.gpu_ops = all.size();
  if (gpu_traced) {
    t.gpu_busy_ns = UnionNs(std::move(all));
    t.gpu_idle_ns = static_cast<double>(t.end_ns - t.start_ns) - *t.gpu_busy_ns;
  }
  return t;
}

}  // namespace llmpo::report
