// CUDA API calls summed per function, as nsys' cuda_api_sum report sums
// them: calls, total, mean, min, max, the sample standard deviation of the
// call durations and each function's share of all API time (Time %); no
// median (it needs every duration). For inputs that record the calls one by
// one (nsys SQLite exports, PyTorch traces); the timeline rules read the
// rows (sync_calls, docs/analysis.md).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/ingest/importer.h"

namespace llmpo::ingest {

class ApiCallSums {
 public:
  void Add(const std::string& name, double duration_ns) {
    Add(name, 1, duration_ns, duration_ns, duration_ns, duration_ns * duration_ns);
  }
  // A group of `calls` calls already summed (an SQL GROUP BY).
  void Add(const std::string& name, std::int64_t calls, double total_ns, double min_ns, double max_ns,
           double sum_sq_ns2);
  // One row per function to the sink, the largest total first; `rank`: the
  // rank of the process whose calls they are, where known.
  void Emit(ImportContext& ctx, std::optional<std::int64_t> rank = std::nullopt) const;

 private:
  struct Sums {
    std::int64_t calls = 0;
    double total = 0, sum_sq = 0;
    std::optional<double> min, max;
  };
  std::map<std::string, Sums> by_name_;
};

// Inline: used by the SQLite importer and the Kineto target, which links apart.
inline void ApiCallSums::Add(const std::string& name, std::int64_t calls, double total_ns, double min_ns, double max_ns,
                             double sum_sq_ns2) {
  if (calls <= 0) return;
  Sums& s = by_name_[name];
  s.calls += calls;
  s.total += total_ns;
  s.sum_sq += sum_sq_ns2;
  s.min = s.min ? std::min(*s.min, min_ns) : min_ns;
  s.max = s.max ? std::max(*s.max, max_ns) : max_ns;
}

inline void ApiCallSums::Emit(ImportContext& ctx, std::optional<std::int64_t> rank) const {
  double all_ns = 0;
  for (const auto& [name, s] : by_name_) all_ns += s.total;
  std::vector<model::ApiSummaryRow> rows;
  for (const auto& [name, s] : by_name_) {
    model::ApiSummaryRow row;
    row.name = name;
    row.calls = s.calls;
    const double n = static_cast<double>(s.calls);
    row.time.total_ns = s.total;
    row.time.mean_ns = s.total / n;
    row.time.min_ns = s.min;
    row.time.max_ns = s.max;
    if (s.calls > 1) row.time.stddev_ns = std::sqrt(std::max(0.0, (s.sum_sq - s.total * s.total / n) / (n - 1)));
    if (all_ns > 0) row.time_pct = 100 * s.total / all_ns;
    row.rank = rank;
    rows.push_back(std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return *a.time.total_ns > *b.time.total_ns; });
  for (const auto& row : rows) ctx.sink.OnApiSummary(row);
}

}  // namespace llmpo::ingest
