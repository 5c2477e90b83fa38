#include "src/report/timeline_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <tuple>
#include <utility>

namespace llmpo::report {
namespace {

using Interval = std::pair<std::uint64_t, std::uint64_t>;

// Total length of the union of intervals (sorted here: in start order the
// union is always known).
std::optional<double> UnionNs(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end());
  analysis::IntervalUnion u;
  for (const auto& [s, e] : intervals) u.Add(static_cast<std::int64_t>(s), static_cast<std::int64_t>(e));
  return u.TotalNs();
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

// A row's busy time: its operations' union, else (unknown) the sum of its bins.
double RowBusyNs(const TimelineRow& row) {
  if (row.busy_total_ns) return *row.busy_total_ns;
  double sum = 0;
  for (const double b : row.busy_ns) sum += b;
  return sum;
}

// Keeps the kTimelineMaxRows busiest rows (ties: the earlier row), in their
// order; counts the rest in t.rows_left_out.
void KeepBusiestRows(TimelineOverview& t) {
  if (t.rows.size() <= kTimelineMaxRows) return;
  std::vector<std::size_t> order(t.rows.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  auto busier = [&t](std::size_t a, std::size_t b) {
    const double x = RowBusyNs(t.rows[a]), y = RowBusyNs(t.rows[b]);
    return x != y ? x > y : a < b;
  };
  const auto keep = order.begin() + static_cast<std::ptrdiff_t>(kTimelineMaxRows);
  std::nth_element(order.begin(), keep, order.end(), busier);
  order.erase(keep, order.end());
  std::sort(order.begin(), order.end());
  std::vector<TimelineRow> kept;
  kept.reserve(order.size());
  for (const std::size_t i : order) kept.push_back(std::move(t.rows[i]));
  t.rows_left_out += t.rows.size() - kept.size();
  t.rows = std::move(kept);
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
  t.bin_ns = bin_ns;
  t.bins_start_ns = t.start_ns;
  if (!traces.empty()) t.source = traces.front().process;
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
    TimelineRow row{fmt::format("GPU {} stream {} (pid {})", device, stream, pid), std::vector<double>(bins, 0.0),
                    std::nullopt};
    for (const auto& [s, e] : intervals) AddToBins(row.busy_ns, t.start_ns, bin_ns, s, e);
    row.busy_total_ns = UnionNs(std::move(intervals));
    t.rows.push_back(std::move(row));
  }
  KeepBusiestRows(t);
  t.gpu_ops = all.size();
  std::set<std::pair<std::uint32_t, std::int64_t>> devices;
  for (const auto& [key, intervals] : by_row) devices.emplace(std::get<0>(key), std::get<2>(key));
  t.devices = devices.size();
  if (gpu_traced && t.devices <= 1) {
    t.gpu_busy_ns = UnionNs(std::move(all));
    if (t.gpu_busy_ns) t.gpu_idle_ns = static_cast<double>(t.end_ns - t.start_ns) - *t.gpu_busy_ns;
  }
  return t;
}

// Moves every row's bins to a grid of `new_width` starting at `new_origin`
// (a coarser grid the old one nests in: whole old bins land in one new bin).
void TimelineCollector::Rebin(Wide new_origin, Wide new_width) {
  for (auto& [key, row] : rows_) {
    std::vector<double> moved(kBins, 0.0);
    for (std::size_t i = 0; i < kBins; ++i) {
      if (row.busy[i] == 0) continue;
      const Wide at = origin_ + static_cast<Wide>(i) * width_;
      moved[static_cast<std::size_t>((at - new_origin) / new_width)] += row.busy[i];
    }
    row.busy = std::move(moved);
  }
  origin_ = new_origin, width_ = new_width;
}

// Doubles the bin width (to the left or right) until [start, end) fits.
void TimelineCollector::Fit(Wide start, Wide end) {
  const auto bins = static_cast<Wide>(kBins);
  while (start < origin_) Rebin(origin_ - bins * width_, 2 * width_);
  while (end > origin_ + bins * width_) Rebin(origin_, 2 * width_);
}

void TimelineCollector::OnLaunch(const model::LaunchRecord& launch) {
  if (!launch.start_ns || !launch.end_ns || *launch.end_ns < *launch.start_ns) return;
  if (used_.empty()) used_ = source_;
  if (source_ != used_) return;
  const std::int64_t s = *launch.start_ns, e = *launch.end_ns;
  if (!any_) {
    origin_ = s, width_ = 1, min_start_ = s, max_end_ = e, any_ = true;  // widened as launches come
  }
  min_start_ = std::min(min_start_, s);
  max_end_ = std::max(max_end_, e);
  Fit(s, std::max<Wide>(e, Wide{s} + 1));
  const std::int64_t stream = launch.stream.value_or(-1);
  // Equal origin keys have equal processes and devices: only the stream is compared then.
  const bool same_origin = launch.origin_key != 0 && launch.origin_key == last_origin_key_;
  if (last_row_ == nullptr || std::get<2>(last_key_) != stream ||
      (!same_origin && (std::get<1>(last_key_) != launch.device || std::get<0>(last_key_) != launch.process))) {
    last_key_ = {launch.process, launch.device, stream};
    last_row_ = &rows_[last_key_];
  }
  last_origin_key_ = launch.origin_key;
  Row& row = *last_row_;
  if (row.busy.empty()) row.busy.assign(kBins, 0.0);
  for (Wide b = (s - origin_) / width_; b < static_cast<Wide>(kBins); ++b) {
    const Wide lo = origin_ + b * width_, hi = lo + width_;
    if (lo >= e) break;
    row.busy[static_cast<std::size_t>(b)] += static_cast<double>(std::min<Wide>(hi, e) - std::max<Wide>(lo, s));
  }
  row.busy_union.Add(s, e);
  all_.Add(s, e);
  ++ops_;
}

std::optional<TimelineOverview> TimelineCollector::Finish() const {
  if (!any_) return std::nullopt;
  TimelineOverview t;
  t.source = used_;
  t.start_ns = static_cast<std::uint64_t>(min_start_);
  t.end_ns = static_cast<std::uint64_t>(max_end_);
  // Bins from the first one holding the span's start to the last holding its end.
  const auto first = static_cast<std::size_t>((min_start_ - origin_) / width_);
  const auto last = static_cast<std::size_t>((max_end_ - 1 - origin_) / width_);
  t.bins = last - first + 1;
  t.bin_ns = static_cast<double>(width_);
  t.bins_start_ns = static_cast<std::uint64_t>(origin_ + static_cast<Wide>(first) * width_);
  for (const auto& [key, row] : rows_) {
    const auto& [process, device, stream] = key;
    const std::string stream_text = stream < 0 ? "?" : std::to_string(stream);
    t.rows.push_back(TimelineRow{fmt::format("GPU {} stream {} ({})", device, stream_text, process),
                                 std::vector<double>(row.busy.begin() + static_cast<std::ptrdiff_t>(first),
                                                     row.busy.begin() + static_cast<std::ptrdiff_t>(last + 1)),
                                 row.busy_union.TotalNs()});
  }
  std::sort(t.rows.begin(), t.rows.end(), [](const auto& a, const auto& b) { return a.label < b.label; });
  KeepBusiestRows(t);
  t.gpu_ops = ops_;
  std::set<std::pair<model::ProcessId, std::string>> devices;
  for (const auto& [key, row] : rows_) devices.emplace(std::get<0>(key), std::get<1>(key));
  t.devices = devices.size();
  if (t.devices > 1) return t;  // no union over devices (timeline_model.h)
  t.gpu_busy_ns = all_.TotalNs();
  if (t.gpu_busy_ns) t.gpu_idle_ns = static_cast<double>(Wide{max_end_} - min_start_) - *t.gpu_busy_ns;
  return t;
}

}  // namespace llmpo::report
