#include "src/report/rank_vs_median.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "src/report/run_model.h"

namespace llmpo::report {
namespace {

// GPU kernel time per rank, each from the input compare takes that rank's
// times from (two inputs of one rank are never added; rank files add).
// The kernels TimesFromEachRank would keep, read in place: it copies each
// with its metrics, and whether the rank files are written asks this for
// every import.
std::map<std::int64_t, double> KernelNsPerRank(const ReportSet& set) {
  const TimingChoice timing = TimingChoice::Of(set.kernels);
  std::map<std::int64_t, double> per_rank;
  for (const auto& k : set.kernels.kernels) {
    if (!timing.Times(k.source, k.process.rank)) continue;
    if (k.process.rank && k.timed_calls) per_rank[*k.process.rank] += k.total_ns;
  }
  return per_rank;
}

}  // namespace

bool HasRanksWithKernels(const ReportSet& set) { return KernelNsPerRank(set).size() >= 2; }

std::optional<CompareReport> RankVsMedian(const ReportSet& set) {
  const auto per_rank = KernelNsPerRank(set);
  if (per_rank.size() < 2) return std::nullopt;
  std::vector<std::pair<double, std::int64_t>> order;
  for (const auto& [rank, ns] : per_rank) order.emplace_back(ns, rank);
  std::stable_sort(order.begin(), order.end());
  // The lower middle of an even count: a rank that exists, not an average.
  const std::int64_t median = order[(order.size() - 1) / 2].second, slowest = order.back().second;
  // Each side a copy of one rank's rows (the caller's set stays whole).
  auto base = ScopeCopy(set, ScopeFilter{"rank", std::to_string(median)});
  auto next = ScopeCopy(set, ScopeFilter{"rank", std::to_string(slowest)});
  if (!base || !next) return std::nullopt;
  const std::vector<CompareSide> sides{
      {fmt::format("rank {} (median GPU kernel time of {} ranks)", median, per_rank.size()), &*base},
      {fmt::format("rank {} (most GPU kernel time)", slowest), &*next}};
  return BuildCompareReport(sides, CompareOptions{});
}

std::string RankVsMedianMarkdown(const CompareReport& report) {
  return "The rank with the most GPU kernel time against the median rank (the lower middle of an even count), "
         "compared as `llm-perf-opt compare SIDE@rank=M SIDE@rank=S` would: which kernels and regions make it "
         "slower, and whether each difference is beyond the noise of the launches (docs/multirank.md).\n\n" +
         CompareMarkdown(report);
}

}  // namespace llmpo::report
