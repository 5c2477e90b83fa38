#include <fmt/format.h>

#include "src/core/utf8.h"
#include "src/ingest/ncu_csv_internal.h"
#include "src/ingest/nvtx_columns.h"
#include "src/ingest/text_lines.h"

namespace llmpo::ingest::ncu {

IdentityColumns LocateIdentity(const std::vector<std::string>& header) {
  IdentityColumns c;
  c.id = FindColumn(header, "ID");
  c.pid = FindColumn(header, "Process ID");
  c.process_name = FindColumn(header, "Process Name");
  c.kernel_name = FindColumn(header, "Kernel Name");
  c.device = FindColumn(header, "Device");
  c.block = FindColumn(header, "Block Size");
  c.grid = FindColumn(header, "Grid Size");
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i].starts_with("thread Domain:Push/Pop_Range")) c.nvtx_push_pop = i;
    if (header[i].starts_with("Id:Domain:Start/Stop_Range")) c.nvtx_start_end = i;
  }
  return c;
}

bool IsIdentityColumn(const IdentityColumns& c, std::size_t i, const std::vector<std::string>& header) {
  for (auto col :
       {c.id, c.pid, c.process_name, c.kernel_name, c.device, c.block, c.grid, c.nvtx_push_pop, c.nvtx_start_end}) {
    if (col == i) return true;
  }
  static constexpr std::string_view kOthers[] = {"Host Name", "Context", "Stream", "CC", "Kernel Time"};
  for (auto name : kOthers) {
    if (header[i] == name) return true;
  }
  return false;
}

void FillIdentity(const IdentityColumns& c, const std::vector<std::string_view>& fields, model::LaunchRecord& launch) {
  // assign, not a new string: a launch record reused from result to result
  // keeps its buffers.
  launch.result_id.assign(Cell(fields, c.id));
  launch.kernel_name.assign(Cell(fields, c.kernel_name));
  // Range and app-range replay name each result "range" (nsight-reference B.3).
  launch.kind = launch.kernel_name == "range" ? model::LaunchKind::kRange : model::LaunchKind::kKernel;
  const std::string_view name = Cell(fields, c.process_name), pid = Cell(fields, c.pid);
  launch.process = model::ProcessFromPidText(name, pid);
  launch.device.assign(Cell(fields, c.device));
  launch.block_size.assign(Cell(fields, c.block));
  launch.grid_size.assign(Cell(fields, c.grid));
  launch.has_nvtx = c.nvtx_push_pop.has_value() || c.nvtx_start_end.has_value();
  launch.nvtx_stack = ParsePushPopColumn(Cell(fields, c.nvtx_push_pop));
  launch.nvtx_start_end = ParseStartEndColumn(Cell(fields, c.nvtx_start_end));
}

void RepairNames(model::LaunchRecord& launch, ImportContext& ctx, const CsvReader& reader) {
  std::size_t replaced = 0;
  for (std::string* text :
       {&launch.kernel_name, &launch.process.name, &launch.device, &launch.block_size, &launch.grid_size}) {
    replaced += ReplaceInvalidUtf8(*text);
  }
  for (auto* frames : {&launch.nvtx_stack, &launch.nvtx_start_end}) {
    for (auto& frame : *frames) replaced += ReplaceInvalidUtf8(frame.domain) + ReplaceInvalidUtf8(frame.name);
  }
  if (replaced == 0) return;
  ctx.diagnostics.Add(model::Diag::invalid_utf8, fmt::format("{}: {} byte(s) of a name are not UTF-8; each shown as U+FFFD (kernel '{}')",
                                  Where(ctx, reader), replaced, model::Excerpt(launch.kernel_name)));
}

std::string Where(const ImportContext& ctx, const CsvReader& reader) {
  return fmt::format("{}:{}", ctx.source, reader.record_line());
}

void CheckValue(const model::Metric& metric, ImportContext& ctx, const CsvReader& reader) {
  if (metric.value.unparsable) {
    // Some metrics are words by nature (a policy, a mode, a device name); a
    // value made only of number characters that still does not parse is a
    // damaged number. NaN and infinities are numbers no sum can take.
    const std::string& raw = metric.value.raw_value;
    const bool has_digit = raw.find_first_of("0123456789") != std::string::npos &&
                           raw.find_first_not_of("0123456789.,+-eE ") == std::string::npos;
    // Lazily: only the first example of a code is kept, and a file may hold
    // one such value per launch.
    if (metric.value.non_finite) {
      ctx.diagnostics.AddLazy(model::Diag::non_finite_number, [&] {
        return fmt::format("{}: {} = '{}' is not a finite number; left unknown, not aggregated", Where(ctx, reader),
                           model::Excerpt(metric.name), model::Excerpt(raw));
      });
    } else {
      ctx.diagnostics.AddLazy(has_digit ? model::Diag::unparsable_number : model::Diag::text_value, [&] {
        return fmt::format("{}: {} = '{}' is not a number; not aggregated", Where(ctx, reader),
                           model::Excerpt(metric.name), model::Excerpt(raw));
      });
    }
  }
  if (!metric.value.unit_known) {
    ctx.diagnostics.AddLazy(model::Diag::unknown_unit, [&] {
      return fmt::format("{}: unit '{}' of {} is not one we normalise; value kept as written", Where(ctx, reader),
                         model::Excerpt(metric.value.raw_unit), model::Excerpt(metric.name));
    });
  }
}

void TakeDuration(const model::Metric& metric, model::LaunchRecord& launch, bool& from_raw_metric, ImportContext& ctx,
                  const CsvReader& reader) {
  const bool raw_metric = metric.name == "gpu__time_duration.sum";
  if (!raw_metric && (metric.name != "Duration" || from_raw_metric)) return;
  if (metric.value.dimension != Dimension::kTime) {
    ctx.diagnostics.Add(model::Diag::duration_not_a_time, fmt::format("{}: {} has unit '{}', not a time; the launch has no duration", Where(ctx, reader),
                                    metric.name, model::Excerpt(metric.value.raw_unit)));
    return;
  }
  if (!metric.value.value) return;
  if (*metric.value.value < 0) {
    ctx.diagnostics.Add(model::Diag::negative_duration, fmt::format("{}: {} = {} {} is negative; the launch has no duration", Where(ctx, reader), metric.name,
                    model::Excerpt(metric.value.raw_value), model::Excerpt(metric.value.raw_unit)));
    return;
  }
  launch.duration_ns = metric.value.value;
  from_raw_metric = raw_metric;
}

}  // namespace llmpo::ingest::ncu
