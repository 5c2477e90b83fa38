// `nsys stats --format csv` reports. The report is recognised by its
// columns (names changed across versions: gpukernsum became
// cuda_gpu_kern_sum, "Average" became "Avg (ns)"). Only the per-kernel GPU
// summary feeds kernel tables; NVTX summaries become ranges; other reports
// are recognised and noted.
#include <fmt/format.h>

#include "src/core/csv_reader.h"
#include "src/core/units.h"
#include "src/ingest/importer.h"
#include "src/ingest/text_lines.h"

namespace llmpo::ingest {
namespace {

// Counts above 2^53 are not exact in a double, nor real.
constexpr double kMaxCount = 9007199254740992.0;

enum class StatsReport { kGpuKernels, kNvtxRanges, kNvtxGpuProjection, kOther };

std::optional<std::size_t> FirstColumn(const std::vector<std::string>& header,
                                       std::initializer_list<std::string_view> names) {
  for (auto name : names) {
    if (auto i = FindColumn(header, name)) return i;
  }
  return std::nullopt;
}

StatsReport Classify(const std::vector<std::string>& h) {
  if (FindColumn(h, "Total Proj Time (ns)")) return StatsReport::kNvtxGpuProjection;
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
      return Loss("ragged_row", fmt::format("{} fields for {} columns; skipped", f.size(), h_.size()));
    }
    if (kind_ == StatsReport::kGpuKernels) return Kernel(f);
    if (kind_ == StatsReport::kNvtxRanges || kind_ == StatsReport::kNvtxGpuProjection) return Range(f);
  }

 private:
  void Kernel(const std::vector<std::string_view>& f) {
    model::KernelSummaryRow row;
    row.kernel_name = std::string(Field(f, FindColumn(h_, "Name")));
    std::string problem;
    const auto calls = NonNegative(f, FindColumn(h_, "Instances"), problem);
    const bool too_many = calls && *calls > kMaxCount;  // past what an int64 holds exactly: not a real count
    if (too_many) {
      problem = fmt::format("Instances '{}' is too large", model::Excerpt(Field(f, FindColumn(h_, "Instances"))));
    }
    const auto total = NonNegative(f, FindColumn(h_, "Total Time (ns)"), problem);
    if (!calls || too_many || !total || row.kernel_name.empty()) {
      return Loss("bad_kernel_row", problem.empty() ? "no name, or Instances / Total Time (ns) is not a number; skipped"
                                                    : fmt::format("{}; skipped", problem));
    }
    row.calls = static_cast<std::int64_t>(*calls);
    row.total_ns = *total;
    row.min_ns = OptionalValue(f, FirstColumn(h_, {"Min (ns)", "Minimum (ns)", "Minimum"}));
    row.max_ns = OptionalValue(f, FirstColumn(h_, {"Max (ns)", "Maximum (ns)", "Maximum"}));
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
    ctx_.sink.OnNvtxRange(range);
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
    if (!problem.empty()) Loss("bad_value", fmt::format("{}; left unknown", problem));
    return value;
  }

  void Loss(const char* code, std::string detail) {
    ctx_.diagnostics.Add(code, model::Severity::kDataLoss,
                         fmt::format("{}:{}: {}", ctx_.source, reader_.record_line(), detail));
  }

  const std::vector<std::string>& h_;
  ImportContext& ctx_;
  CsvReader& reader_;
  StatsReport kind_;
};

std::string_view Describe(StatsReport kind) {
  switch (kind) {
    case StatsReport::kGpuKernels:
      return "per-kernel GPU summary (cuda_gpu_kern_sum / gpukernsum)";
    case StatsReport::kNvtxRanges:
      return "NVTX range summary (nvtx_sum / nvtx_pushpop_sum)";
    case StatsReport::kNvtxGpuProjection:
      return "NVTX GPU projection (nvtx_gpu_proj_sum)";
    case StatsReport::kOther:
      return "a report without kernel totals";
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
  const std::vector<std::string> header = ParseCsvLine(line);
  StatsImporter importer(header, ctx, reader);
  std::vector<std::string_view> fields;
  while (reader.Next(fields)) importer.Row(fields);
  ctx.diagnostics.Note(fmt::format("{}: nsys stats report: {}", ctx.source, Describe(importer.kind())));
  return OkStatus();
}

}  // namespace llmpo::ingest
