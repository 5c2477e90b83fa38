// Per-kernel aggregates, built record by record (memory grows with the
// number of distinct kernels, not with the input). Kernels are keyed by
// (source, process, device, name): each input file and scope stays apart,
// so importing two exports of one run never double-counts.
//
// Metric rule: see metric_catalogue.h.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "src/analysis/kernel_findings.h"
#include "src/analysis/launch_overhead.h"
#include "src/analysis/metric_catalogue.h"
#include "src/core/key_cache.h"
#include "src/model/records.h"
#include "src/model/sink.h"

namespace llmpo::analysis {

// The rule for one metric (metric_catalogue.h).
inline Aggregation RuleFor(const model::Metric& metric) { return RuleForMetric(metric.name, metric.section).rule; }

struct MetricAggregate {
  std::string name;
  std::string section;
  std::string unit;  // canonical unit
  Dimension dimension = Dimension::kNone;
  Aggregation rule = Aggregation::kSum;
  bool rule_known = true;  // false: the catalogue does not know it (listed in Data quality)
  double sum = 0;
  double min = 0;
  double max = 0;
  double weighted_sum = 0;           // value x launch duration (ns), for duration-weighted means
  double weight_ns = 0;              // the durations
  std::uint64_t unweighted = 0;      // values from launches without a duration
  std::uint64_t values = 0;          // launches that reported a number
  std::uint64_t missing = 0;         // launches where it was n/a or empty
  std::uint64_t unit_conflicts = 0;  // values in a unit other than `unit` (not normalisable to it): left out

  double Value() const;
};

struct KernelAggregate {
  std::string source;
  model::ProcessId process;
  std::string device;
  std::string name;
  std::uint64_t calls = 0;
  std::uint64_t timed_calls = 0;  // calls with a known duration
  double total_ns = 0;
  std::optional<double> min_ns;  // unknown when no source gave one
  std::optional<double> max_ns;
  // From one nsys summary row only (a median or spread of two rows is not known).
  std::optional<double> median_ns;
  std::optional<double> stddev_ns;
  std::optional<double> time_pct;        // nsys' "Time (%)": share of the report's GPU kernel time
  std::vector<MetricAggregate> metrics;  // in first-seen order
  std::vector<KernelFinding> findings;   // ncu's rule results, in first-seen order
  // The spread of the timed durations: the sum of their squared deviations
  // from their mean (ns^2), kept as launches and rows arrive (Welford; rows
  // and scopes combined as Chan et al. do). Null when an input gave a
  // count without a spread (a summary row without StdDev). Compare tests
  // with it (analysis/significance.h); the reports do not show it.
  std::optional<double> sum_sq_dev_ns2 = 0.0;
  // A launch layout (LaunchRecord::metric_layout) whose metrics are
  // metrics[0..n) in order; 0: none known.
  std::uint64_t metric_layout = 0;

  double MeanNs() const { return timed_calls ? total_ns / timed_calls : 0; }
  const MetricAggregate* FindMetric(std::string_view section, std::string_view name) const;
  // The value of the first of `names` (any section) that has one.
  std::optional<double> FirstValue(std::span<const std::string_view> names) const;
};

// Well-known metrics under both spellings ncu uses: the raw metric name
// (raw page, --metrics) and the details-page label.
inline constexpr std::array<std::string_view, 2> kSmThroughputPct = {"sm__throughput.avg.pct_of_peak_sustained_elapsed",
                                                                     "Compute (SM) Throughput"};
// DRAM: raw pages name it dram__throughput, the Speed Of Light section
// (.ncu-rep files) gpu__dram_throughput; the same % of the DRAM peak.
inline constexpr std::array<std::string_view, 3> kDramThroughputPct = {
    "dram__throughput.avg.pct_of_peak_sustained_elapsed", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
    "DRAM Throughput"};
inline constexpr std::array<std::string_view, 2> kAchievedOccupancyPct = {
    "sm__warps_active.avg.pct_of_peak_sustained_active", "Achieved Occupancy"};
inline constexpr std::array<std::string_view, 2> kRegistersPerThread = {"launch__registers_per_thread",
                                                                        "Registers Per Thread"};

// The kernel's launches without a usable value of `m`: n/a or empty, in a
// unit that does not convert, or no row at all (ncu printed it for some
// launches only).
inline std::uint64_t LaunchesWithout(const KernelAggregate& k, const MetricAggregate& m) {
  const std::uint64_t seen = m.values + m.missing + m.unit_conflicts;
  return m.missing + m.unit_conflicts + (k.calls > seen ? k.calls - seen : 0);
}

// The spread (sum of squared deviations) of two groups of durations taken
// together, from each group's count, mean and spread; null when a group
// with values has no known spread.
std::optional<double> CombinedSpread(std::uint64_t n_a, double mean_a, std::optional<double> m2_a, std::uint64_t n_b,
                                     double mean_b, std::optional<double> m2_b);

// Adds one launch (duration and metrics) or one pre-aggregated row to a kernel.
void AddLaunch(KernelAggregate& k, const model::LaunchRecord& launch);
void AddSummary(KernelAggregate& k, const model::KernelSummaryRow& row);
// Adds everything `src` holds (another scope's view of the same kernel).
void MergeKernel(KernelAggregate& dst, const KernelAggregate& src);

// Sorts by total time, largest first, ties by name.
void SortByTime(std::vector<KernelAggregate>& kernels);

// nsys' run-wide summaries, kept per row with the input they came from.
template <typename Row>
struct FromInput {
  std::string source;
  Row row;
};

// The summaries of all inputs. A row whose key (API name; operation; thread,
// device, API and kernel) an earlier input already gave is the same
// measurement again (the time and size reports complete one operation):
// fields already known are never added, missing ones are filled in.
//
// Launch overhead comes from cuda_kern_exec_sum rows and from timelines
// (LaunchOverheadBuilder, one per input). A timeline and the
// cuda_kern_exec_sum of the same run measured the same launches: of the rows
// with one LaunchPath, the one of the input given first is kept, whichever
// kind it is, and the others are counted, never added. Rows of two different
// ranks are never the same launches, even where their pids coincide (one
// pid per container); a row that names no rank matches any.
struct RuntimeSummaries {
  std::vector<FromInput<model::ApiSummaryRow>> api_calls;
  std::vector<FromInput<model::GpuOpSummaryRow>> gpu_ops;
  std::vector<FromInput<model::LaunchOverheadRow>> launch_overhead;
  std::uint64_t repeated_rows = 0;  // nsys summary rows not added because an earlier input had them
  // Launch overhead rows not added because an earlier input had their
  // launch path (a timeline and its run's cuda_kern_exec_sum, or one
  // timeline imported twice).
  std::uint64_t repeated_launch_paths = 0;
};

class KernelAggregator : public model::RecordSink {
 public:
  // Records pushed after this belong to `source` (an input's label).
  void SetSource(std::string source) {
    source_ = std::move(source);
    index_.clear();
    by_name_key_.Clear();
    ++input_;
  }

  void OnLaunch(const model::LaunchRecord& launch) override;
  void OnKernelSummary(const model::KernelSummaryRow& row) override;
  void OnApiSummary(const model::ApiSummaryRow& row) override;
  void OnGpuOpSummary(const model::GpuOpSummaryRow& row) override;
  void OnLaunchOverhead(const model::LaunchOverheadRow& row) override;

  // Aggregates sorted by total time, largest first (ties by name).
  std::vector<KernelAggregate> Sorted() const;
  // The summaries, launch overhead from every input merged (see RuntimeSummaries).
  RuntimeSummaries runtime() const;

 private:
  using Key = std::tuple<std::string, model::ProcessId, std::string, std::string>;
  KernelAggregate& Entry(const model::ProcessId& process, const std::string& device, const std::string& name);
  // Entry for a launch, through by_name_key_ when the launch has a kernel_name_key.
  KernelAggregate& LaunchEntry(const model::LaunchRecord& launch);
  // A small number per distinct process (inputs name a handful).
  std::uint32_t ProcessNumber(const model::ProcessId& process);

  // (process number, device, name) of the current source, viewing the
  // strings of kernels_' keys: a hash lookup per launch instead of a walk
  // down the map comparing the (same) source path at every step.
  using View = std::tuple<std::uint32_t, std::string_view, std::string_view>;
  struct ViewHash {
    std::size_t operator()(const View& v) const;
  };

  std::string source_;
  std::size_t input_ = 0;     // which SetSource call: inputs in the order given
  RuntimeSummaries runtime_;  // launch_overhead stays empty: see overhead_rows_ and timelines_
  struct OverheadRow {
    std::size_t input;
    FromInput<model::LaunchOverheadRow> row;
  };
  std::vector<OverheadRow> overhead_rows_;  // cuda_kern_exec_sum, as given
  struct TimelineOverhead {
    std::size_t input;
    std::string source;
    LaunchOverheadBuilder builder;
  };
  std::vector<TimelineOverhead> timelines_;
  std::map<Key, KernelAggregate, std::less<>> kernels_;  // transparent: found by views, no copies
  std::unordered_map<View, KernelAggregate*, ViewHash> index_;
  struct KeyedEntry {
    std::uint32_t process = 0;  // ProcessNumber
    std::string device;
    KernelAggregate* entry = nullptr;
    std::uint64_t origin_key = 0;  // a launch's whose process and device these are (0: none)
  };
  KeyCache<KeyedEntry> by_name_key_;  // kernel_name_key -> the last Entry of that name (cleared with index_)
  std::map<model::ProcessId, std::uint32_t> process_numbers_;
  const model::ProcessId* last_process_ = nullptr;  // a key of process_numbers_
  std::uint32_t last_process_number_ = 0;
};

}  // namespace llmpo::analysis
