// `nsys stats --format csv` reports. The report is recognised by its
// columns (names changed across versions: gpukernsum became
// cuda_gpu_kern_sum, "Average" became "Avg (ns)"). Only the per-kernel GPU
// summary feeds kernel tables; NVTX summaries become ranges; other reports
// are recognised and noted.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "src/core/csv_reader.h"
#include "src/core/units.h"
#include "src/ingest/importer.h"
#include "src/ingest/text_lines.h"

namespace llmpo::ingest {
namespace {

// Counts above 2^53 are not exact in a double, nor real.
constexpr double kMaxCount = 9007199254740992.0;

enum class StatsReport {
  kGpuKernels,
  kNvtxRanges,
  kNvtxGpuProjection,
  kNvtxGpuProjectionTrace,  // 2022.x nvtxgpuproj: one row per range instance
  kNvtxKernels,
  kNvtxPushPopTrace,
  kApiCalls,
  kMemoryTime,
  kMemorySize,
  kKernelExecution,
  kGpuSummary,  // 2022.x gpusum: kernels and memory operations, by Category
  kOther
};

std::optional<std::size_t> FirstColumn(const std::vector<std::string>& header,
                                       std::initializer_list<std::string_view> names) {
  for (auto name : names) {
    if (auto i = FindColumn(header, name)) return i;
  }
  return std::nullopt;
}

StatsReport Classify(const std::vector<std::string>& h) {
  if (FindColumn(h, "Total Proj Time (ns)")) return StatsReport::kNvtxGpuProjection;
  if (FindColumn(h, "Projected Duration (ns)") && FindColumn(h, "Orig Duration (ns)")) {
    return StatsReport::kNvtxGpuProjectionTrace;
  }
  if (FindColumn(h, "Category") && FindColumn(h, "Operation") && FindColumn(h, "Instances")) {
    return StatsReport::kGpuSummary;
  }
  if (FindColumn(h, "NVTX Range") && FindColumn(h, "Kernel Name") && FindColumn(h, "Kern Inst")) {
    return StatsReport::kNvtxKernels;
  }
  if (FindColumn(h, "Start (ns)") && FindColumn(h, "End (ns)") && FindColumn(h, "Lvl") && FindColumn(h, "Name")) {
    return StatsReport::kNvtxPushPopTrace;
  }
  if (FindColumn(h, "API Name") && FindColumn(h, "Kernel Name") && FindColumn(h, "QAvg (ns)")) {
    return StatsReport::kKernelExecution;
  }
  if (FindColumn(h, "Operation") && FindColumn(h, "Total (MB)")) return StatsReport::kMemorySize;
  if (FindColumn(h, "Operation") && FindColumn(h, "Total Time (ns)")) return StatsReport::kMemoryTime;
  if (FindColumn(h, "Num Calls") && FindColumn(h, "Name") && FindColumn(h, "Total Time (ns)")) {
    return StatsReport::kApiCalls;
  }
  if (FindColumn(h, "Range") && FindColumn(h, "Instances")) return StatsReport::kNvtxRanges;
  if (FindColumn(h, "Name") && FindColumn(h, "Instances") && FindColumn(h, "Total Time (ns)")) {
    return StatsReport::kGpuKernels;
  }
  return StatsReport::kOther;
}

std::string_view Field(const std::vector<std::string_view>& f, std::optional<std::size_t> i) {
  return (i && *i < f.size()) ? f[*i] : std::string_view();
}

// nsys writes NVTX ranges as "domain:name"; a leading ':' is the default domain.
void SplitDomain(std::string_view text, model::NvtxRange& range) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) {
    range.name = std::string(text);
    return;
  }
  range.domain = std::string(text.substr(0, colon));
  range.name = std::string(text.substr(colon + 1));
}

class StatsImporter {
 public:
  StatsImporter(const std::vector<std::string>& h, ImportContext& ctx, CsvReader& reader)
      : h_(h), ctx_(ctx), reader_(reader), kind_(Classify(h)) {}

  StatsReport kind() const { return kind_; }

  void Row(const std::vector<std::string_view>& f) {
    ctx_.diagnostics.CountRow();
    if (f.size() != h_.size()) {
      return Loss(model::Diag::ragged_row, fmt::format("{} fields for {} columns; skipped", f.size(), h_.size()));
    }
    if (kind_ == StatsReport::kGpuKernels) return Kernel(f, "Name");
    if (kind_ == StatsReport::kGpuSummary) return GpuSummary(f);
    if (kind_ == StatsReport::kNvtxGpuProjectionTrace) return ProjectionInstance(f);
    if (kind_ == StatsReport::kNvtxRanges || kind_ == StatsReport::kNvtxGpuProjection) return Range(f);
    if (kind_ == StatsReport::kNvtxKernels) return RangeKernel(f);
    if (kind_ == StatsReport::kNvtxPushPopTrace) return PushPopInstance(f);
    if (kind_ == StatsReport::kApiCalls) return ApiCall(f);
    if (kind_ == StatsReport::kMemoryTime || kind_ == StatsReport::kMemorySize) return MemoryOperation(f);
    if (kind_ == StatsReport::kKernelExecution) return KernelExecution(f);
  }

  // After the last row: what was gathered over rows.
  void Finish() {
    for (auto& range : projections_) ctx_.sink.OnNvtxRange(range);
  }

 private:
  void Kernel(const std::vector<std::string_view>& f, std::string_view name_column) {
    model::KernelSummaryRow row;
    row.kernel_name = std::string(Field(f, FindColumn(h_, name_column)));
    std::string problem;
    const auto calls = NonNegative(f, FindColumn(h_, "Instances"), problem);
    const bool too_many = calls && *calls > kMaxCount;  // past what an int64 holds exactly: not a real count
    if (too_many) {
      problem = fmt::format("Instances '{}' is too large", model::Excerpt(Field(f, FindColumn(h_, "Instances"))));
    }
    const auto total = NonNegative(f, FindColumn(h_, "Total Time (ns)"), problem);
    if (!calls || too_many || !total || row.kernel_name.empty()) {
      return Loss(model::Diag::bad_kernel_row, problem.empty() ? "no name, or Instances / Total Time (ns) is not a number; skipped"
                                                    : fmt::format("{}; skipped", problem));
    }
    row.calls = static_cast<std::int64_t>(*calls);
    row.total_ns = *total;
    row.min_ns = OptionalValue(f, FirstColumn(h_, {"Min (ns)", "Minimum (ns)", "Minimum"}));
    row.max_ns = OptionalValue(f, FirstColumn(h_, {"Max (ns)", "Maximum (ns)", "Maximum"}));
    row.median_ns = OptionalValue(f, FirstColumn(h_, {"Med (ns)", "Median (ns)", "Median"}));
    row.stddev_ns = OptionalValue(f, FirstColumn(h_, {"StdDev (ns)", "StdDev"}));
    row.time_pct = OptionalValue(f, FirstColumn(h_, {"Time (%)", "Time(%)"}));
    ctx_.sink.OnKernelSummary(row);
  }

  void Range(const std::vector<std::string_view>& f) {
    model::NvtxRange range;
    SplitDomain(Field(f, FindColumn(h_, "Range")), range);
    range.push_pop = Field(f, FindColumn(h_, "Style")) != "StartEnd";
    auto instances = OptionalValue(f, FirstColumn(h_, {"Instances", "Range Instances"}));
    if (instances && *instances <= kMaxCount) range.instances = static_cast<std::int64_t>(*instances);
    range.total_ns = OptionalValue(f, FirstColumn(h_, {"Total Time (ns)", "Total Range Time (ns)"}));
    range.gpu_projected_ns = OptionalValue(f, FindColumn(h_, "Total Proj Time (ns)"));
    if (range.gpu_projected_ns) {
      range.projected_min_ns = OptionalValue(f, FindColumn(h_, "Proj Min (ns)"));
      range.projected_max_ns = OptionalValue(f, FindColumn(h_, "Proj Max (ns)"));
    } else {
      range.min_ns = OptionalValue(f, FirstColumn(h_, {"Min (ns)", "Minimum (ns)"}));
      range.max_ns = OptionalValue(f, FirstColumn(h_, {"Max (ns)", "Maximum (ns)"}));
    }
    ctx_.sink.OnNvtxRange(range);
  }

  // nvtx_kern_sum: a kernel's launches inside one range.
  void RangeKernel(const std::vector<std::string_view>& f) {
    model::NvtxKernelRow row;
    model::NvtxRange split;
    // 2022.x (nvtxkernsum) writes kernels outside every range under the range
    // "None" with style "None"; later versions leave the range empty.
    const bool outside = Field(f, FindColumn(h_, "NVTX Range")) == "None" && Field(f, FindColumn(h_, "Style")) == "None";
    if (!outside) SplitDomain(Field(f, FindColumn(h_, "NVTX Range")), split);
    row.range = std::move(split.name);
    row.domain = std::move(split.domain);
    row.process = model::ProcessFromPidText("", Field(f, FindColumn(h_, "PID")));
    if (auto inst = OptionalValue(f, FindColumn(h_, "NVTX Inst")); inst && *inst <= kMaxCount) {
      row.range_instances = static_cast<std::int64_t>(*inst);
    }
    model::KernelSummaryRow& k = row.kernel;
    k.kernel_name = std::string(Field(f, FindColumn(h_, "Kernel Name")));
    const auto calls = OptionalValue(f, FindColumn(h_, "Kern Inst"));
    const auto total = OptionalValue(f, FindColumn(h_, "Total Time (ns)"));
    if (!calls || *calls > kMaxCount || !total || k.kernel_name.empty()) {
      return Loss(model::Diag::bad_kernel_row, "no kernel name, or Kern Inst / Total Time (ns) is not a number; skipped");
    }
    k.calls = static_cast<std::int64_t>(*calls);
    k.total_ns = *total;
    k.process = row.process;
    k.min_ns = OptionalValue(f, FindColumn(h_, "Min (ns)"));
    k.max_ns = OptionalValue(f, FindColumn(h_, "Max (ns)"));
    k.median_ns = OptionalValue(f, FindColumn(h_, "Med (ns)"));
    k.stddev_ns = OptionalValue(f, FindColumn(h_, "StdDev (ns)"));
    ctx_.sink.OnNvtxKernelRow(row);
  }

  // nvtx_pushpop_trace: one push/pop range instance with its times and thread.
  // gpusum: a CUDA_KERNEL row is a kernel's summary (named in Operation),
  // the others (CUDA_MEMCPY, CUDA_MEMSET) memory operations.
  void GpuSummary(const std::vector<std::string_view>& f) {
    if (Field(f, FindColumn(h_, "Category")) == "CUDA_KERNEL") return Kernel(f, "Operation");
    MemoryOperation(f);
  }

  // nvtxgpuproj of 2022.x: one range instance per row, summed per range as
  // nvtx_gpu_proj_sum gives them (instances, range and projected times).
  void ProjectionInstance(const std::vector<std::string_view>& f) {
    const auto orig = ParseNumber(Field(f, FindColumn(h_, "Orig Duration (ns)")));
    const auto projected = ParseNumber(Field(f, FindColumn(h_, "Projected Duration (ns)")));
    if (!orig || !projected || *orig < 0 || *projected < 0) {
      return Loss(model::Diag::bad_range_row, "Orig Duration (ns) or Projected Duration (ns) is not a number; skipped");
    }
    model::NvtxRange key;
    SplitDomain(Field(f, FindColumn(h_, "Name")), key);
    key.process = model::ProcessFromPidText("", Field(f, FindColumn(h_, "PID")));
    key.push_pop = Field(f, FindColumn(h_, "Style")) != "StartEnd";
    const std::string id = fmt::format("{}\x1f{}\x1f{}\x1f{}", key.domain, key.name, key.process.Label(), key.push_pop);
    auto [it, added] = projection_index_.try_emplace(id, projections_.size());
    if (added) {
      key.instances = 0;
      key.total_ns = 0.0;
      key.gpu_projected_ns = 0.0;
      projections_.push_back(std::move(key));
    }
    model::NvtxRange& r = projections_[it->second];
    *r.instances += 1;
    *r.total_ns += *orig;
    *r.gpu_projected_ns += *projected;
    r.min_ns = r.min_ns ? std::min(*r.min_ns, *orig) : *orig;
    r.max_ns = r.max_ns ? std::max(*r.max_ns, *orig) : *orig;
    r.projected_min_ns = r.projected_min_ns ? std::min(*r.projected_min_ns, *projected) : *projected;
    r.projected_max_ns = r.projected_max_ns ? std::max(*r.projected_max_ns, *projected) : *projected;
  }

  void PushPopInstance(const std::vector<std::string_view>& f) {
    model::NvtxRange range;
    SplitDomain(Field(f, FindColumn(h_, "Name")), range);  // 2022.4 writes "Domain:name"
    range.process = model::ProcessFromPidText("", Field(f, FindColumn(h_, "PID")));
    const auto start = ParseNumber(Field(f, FindColumn(h_, "Start (ns)")));
    const auto end = ParseNumber(Field(f, FindColumn(h_, "End (ns)")));
    const auto tid = ParseNumber(Field(f, FindColumn(h_, "TID")));
    if (!start || !end || !tid) return Loss(model::Diag::bad_range_row, "Start (ns), End (ns) or TID is not a number; skipped");
    range.start_ns = static_cast<std::int64_t>(*start);
    range.end_ns = static_cast<std::int64_t>(*end);
    range.global_tid = static_cast<std::int64_t>(*tid);
    if (auto id = ParseNumber(Field(f, FindColumn(h_, "RangeId")))) range.range_id = static_cast<std::int64_t>(*id);
    ctx_.sink.OnNvtxRange(range);
  }

  std::optional<double> Number(const std::vector<std::string_view>& f, std::string_view column) {
    return OptionalValue(f, FindColumn(h_, column));
  }

  model::TimeStats Times(const std::vector<std::string_view>& f) {
    return {Number(f, "Total Time (ns)"), Number(f, "Avg (ns)"), Number(f, "Med (ns)"),
            Number(f, "Min (ns)"),        Number(f, "Max (ns)"), Number(f, "StdDev (ns)")};
  }

  // cuda_api_sum: one API function.
  void ApiCall(const std::vector<std::string_view>& f) {
    model::ApiSummaryRow row;
    row.name = std::string(Field(f, FindColumn(h_, "Name")));
    const auto calls = Number(f, "Num Calls");
    row.time = Times(f);
    if (row.name.empty() || !calls || !row.time.total_ns) {
      return Loss(model::Diag::bad_kernel_row, "no API name, or Num Calls / Total Time (ns) is not a number; skipped");
    }
    row.calls = static_cast<std::int64_t>(*calls);
    row.time_pct = Number(f, "Time (%)");
    ctx_.sink.OnApiSummary(row);
  }

  // cuda_gpu_mem_time_sum (times in ns) or cuda_gpu_mem_size_sum (sizes in MB, 10^6 bytes).
  void MemoryOperation(const std::vector<std::string_view>& f) {
    model::GpuOpSummaryRow row;
    row.operation = std::string(Field(f, FindColumn(h_, "Operation")));
    const auto count = FindColumn(h_, "Count") ? Number(f, "Count") : Number(f, "Instances");
    if (row.operation.empty() || !count)
      return Loss(model::Diag::bad_kernel_row, "no Operation, or Count is not a number; skipped");
    row.count = static_cast<std::int64_t>(*count);
    if (kind_ == StatsReport::kMemoryTime || kind_ == StatsReport::kGpuSummary) {
      row.time = Times(f);
    } else {
      const auto mb = [&](std::string_view c) -> std::optional<double> {
        if (auto v = Number(f, c)) return *v * 1e6;
        return std::nullopt;
      };
      row.total_bytes = mb("Total (MB)");
      row.mean_bytes = mb("Avg (MB)");
      row.max_bytes = mb("Max (MB)");
    }
    ctx_.sink.OnGpuOpSummary(row);
  }

  // cuda_kern_exec_sum: API, queue and kernel time per launch path.
  void KernelExecution(const std::vector<std::string_view>& f) {
    model::LaunchOverheadRow row;
    row.process = model::ProcessFromPidText("", Field(f, FindColumn(h_, "PID")));
    row.thread = std::string(Field(f, FindColumn(h_, "TID")));
    row.device = std::string(Field(f, FindColumn(h_, "DevId")));
    row.api_name = std::string(Field(f, FindColumn(h_, "API Name")));
    row.kernel_name = std::string(Field(f, FindColumn(h_, "Kernel Name")));
    const auto count = Number(f, "Count");
    if (row.kernel_name.empty() || !count)
      return Loss(model::Diag::bad_kernel_row, "no Kernel Name, or Count is not a number; skipped");
    row.count = static_cast<std::int64_t>(*count);
    if (const auto queued = Number(f, "QCount")) row.queue_count = static_cast<std::int64_t>(*queued);
    row.api_mean_ns = Number(f, "AAvg (ns)");
    row.api_median_ns = Number(f, "AMed (ns)");
    row.api_max_ns = Number(f, "AMax (ns)");
    row.queue_mean_ns = Number(f, "QAvg (ns)");
    row.queue_median_ns = Number(f, "QMed (ns)");
    row.queue_max_ns = Number(f, "QMax (ns)");
    row.kernel_mean_ns = Number(f, "KAvg (ns)");
    row.total_mean_ns = Number(f, "TAvg (ns)");
    ctx_.sink.OnLaunchOverhead(row);
  }

  // A time or count cell. NaN, infinities and negative values never reach a
  // sum or a sort: the value stays unknown, and `problem` says why (an empty
  // cell or n/a is just unknown).
  std::optional<double> NonNegative(const std::vector<std::string_view>& f, std::optional<std::size_t> column,
                                    std::string& problem) {
    const std::string_view text = Field(f, column);
    const auto value = ParseNumber(text);
    if (value && *value >= 0) return value;
    if (value || IsNonFiniteNumber(text)) {
      problem = fmt::format("{} '{}' is {}", h_[*column], model::Excerpt(text),
                            value ? "negative" : "not a finite number (NaN or infinite)");
    }
    return std::nullopt;
  }

  // The same for a cell the row can do without: reported as data loss.
  std::optional<double> OptionalValue(const std::vector<std::string_view>& f, std::optional<std::size_t> column) {
    std::string problem;
    auto value = NonNegative(f, column, problem);
    if (!problem.empty()) Loss(model::Diag::bad_value, fmt::format("{}; left unknown", problem));
    return value;
  }

  void Loss(model::Diag code, std::string detail) {
    ctx_.diagnostics.Add(code,
                         fmt::format("{}:{}: {}", ctx_.source, reader_.record_line(), detail));
  }

  const std::vector<std::string>& h_;
  ImportContext& ctx_;
  CsvReader& reader_;
  StatsReport kind_;
  std::vector<model::NvtxRange> projections_;  // kNvtxGpuProjectionTrace, in first-seen order
  std::map<std::string, std::size_t> projection_index_;
};

std::string_view Describe(StatsReport kind) {
  switch (kind) {
    case StatsReport::kGpuKernels:
      return "per-kernel GPU summary (cuda_gpu_kern_sum / gpukernsum)";
    case StatsReport::kNvtxRanges:
      return "NVTX range summary (nvtx_sum / nvtx_pushpop_sum)";
    case StatsReport::kNvtxGpuProjection:
      return "NVTX GPU projection (nvtx_gpu_proj_sum)";
    case StatsReport::kNvtxGpuProjectionTrace:
      return "NVTX GPU projection per range instance (nvtxgpuproj of nsys 2022.x), summed per range";
    case StatsReport::kGpuSummary:
      return "GPU summary of kernels and memory operations (gpusum of nsys 2022.x)";
    case StatsReport::kNvtxKernels:
      return "kernels per NVTX range (nvtx_kern_sum)";
    case StatsReport::kNvtxPushPopTrace:
      return "NVTX push/pop range instances (nvtx_pushpop_trace)";
    case StatsReport::kApiCalls:
      return "CUDA API summary (cuda_api_sum)";
    case StatsReport::kMemoryTime:
      return "GPU memory operation times (cuda_gpu_mem_time_sum)";
    case StatsReport::kMemorySize:
      return "GPU memory operation sizes (cuda_gpu_mem_size_sum)";
    case StatsReport::kKernelExecution:
      return "launch overhead: API, queue and kernel time (cuda_kern_exec_sum)";
    case StatsReport::kOther:
      return "a report this tool does not read yet (it reads cuda_gpu_kern_sum, cuda_api_sum, cuda_kern_exec_sum, "
             "cuda_gpu_mem_time_sum, cuda_gpu_mem_size_sum, nvtx_sum, nvtx_pushpop_sum, nvtx_gpu_proj_sum, "
             "nvtx_kern_sum, nvtx_pushpop_trace)";
  }
  return "";
}

}  // namespace

Status ImportNsysStatsCsv(std::istream& in, ImportContext& ctx) {
  CsvReader reader(in);
  std::string line;
  while (reader.NextRawLine(line)) {
    if (IsNsysStatsHeader(line)) break;
    line.clear();
  }
  if (!IsNsysStatsHeader(line)) {
    return MakeError(ExitStatus::kInput, fmt::format("{}: no nsys stats CSV header found", ctx.source))
        .WithNote("export with: nsys stats --report cuda_gpu_kern_sum --format csv --output PREFIX REPORT.nsys-rep");
  }
  if (line.find(',') == std::string::npos) {
    return MakeError(
               ExitStatus::kInput,
               fmt::format("{}: an nsys stats text table, not CSV: its columns cannot be read reliably", ctx.source))
        .WithNote("export CSV instead: nsys stats --report REPORT --format csv --output PREFIX REPORT.nsys-rep");
  }
  const std::vector<std::string> header = ParseCsvLine(line);
  StatsImporter importer(header, ctx, reader);
  std::vector<std::string_view> fields;
  while (reader.Next(fields)) importer.Row(fields);
  importer.Finish();
  ctx.diagnostics.Note(fmt::format("{}: nsys stats report: {}", ctx.source, Describe(importer.kind())));
  return OkStatus();
}

}  // namespace llmpo::ingest
