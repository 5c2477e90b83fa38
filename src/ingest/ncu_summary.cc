// `ncu --print-summary per-kernel|per-nvtx|per-gpu --csv`: one row per
// (kernel and launch shape, metric) with Invocations and min/max/average.
// Each group becomes one per-kernel summary row; its total time is the
// average duration times the invocations, which the report marks as derived.
#include <fmt/format.h>

#include <cmath>
#include <map>
#include <tuple>

#include "src/ingest/ncu_csv_internal.h"
#include "src/ingest/text_lines.h"

namespace llmpo::ingest::ncu {
namespace {

struct Group {
  model::KernelSummaryRow row;
  bool timed = false;
  bool raw_metric = false;
};

std::optional<std::size_t> RangeColumn(const std::vector<std::string>& header) {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i].starts_with("Range:") || header[i].starts_with("thread Domain:")) return i;
  }
  return std::nullopt;
}

}  // namespace

Status ImportSummary(CsvReader& reader, const std::vector<std::string>& header, ImportContext& ctx) {
  const IdentityColumns id = LocateIdentity(header);
  const auto invocations = FindColumn(header, "Invocations"), metric = FindColumn(header, "Metric Name"),
             unit = FindColumn(header, "Metric Unit"), minimum = FindColumn(header, "Minimum"),
             maximum = FindColumn(header, "Maximum"), average = FindColumn(header, "Average"),
             range = RangeColumn(header);
  if (!id.kernel_name || !invocations || !metric || !average) {
    return MakeError(ExitStatus::kInput, fmt::format("{}: this ncu summary has no Kernel Name, Invocations, "
                                                     "Metric Name or Average column",
                                                     ctx.source));
  }
  using Key = std::tuple<model::ProcessId, std::string, std::string, std::string, std::string, std::string>;
  std::map<Key, Group> groups;
  std::vector<Key> order;
  std::vector<std::string_view> fields;
  while (reader.Next(fields)) {
    ctx.diagnostics.CountRow();
    if (fields.size() == 1 && fields[0].starts_with("==")) continue;
    model::LaunchRecord ident;
    FillIdentity(id, fields, ident);
    RepairNames(ident, ctx, reader);
    Key key{ident.process,    ident.device,    ident.kernel_name,
            ident.block_size, ident.grid_size, std::string(Cell(fields, range))};
    auto [it, inserted] = groups.try_emplace(key);
    Group& g = it->second;
    if (inserted) {
      order.push_back(key);
      g.row.kernel_name = ident.kernel_name;
      g.row.process = ident.process;
      g.row.device = ident.device;
      auto calls = ParseNumber(Cell(fields, invocations));
      if (calls && (*calls < 0 || *calls > 9007199254740992.0)) calls.reset();  // negative, or past 2^53
      if (!calls) {
        ctx.diagnostics.Add(model::Diag::bad_invocations, fmt::format("{}: Invocations '{}' is not a number", Where(ctx, reader),
                                        model::Excerpt(Cell(fields, invocations))));
      }
      g.row.calls = calls ? static_cast<std::int64_t>(*calls) : 0;
    }
    const std::string_view name = Cell(fields, metric);
    const bool raw_metric = name == "gpu__time_duration.sum";
    if (!raw_metric && (name != "Duration" || g.raw_metric)) continue;
    const ParsedValue avg = ParseValue(Cell(fields, average), Cell(fields, unit));
    if (avg.dimension != Dimension::kTime) continue;
    if (avg.non_finite || (avg.value && *avg.value < 0)) {  // never into a sum or a sort
      ctx.diagnostics.Add(model::Diag::bad_duration, fmt::format("{}: average duration '{}' is {}; left unknown", Where(ctx, reader),
                                      model::Excerpt(avg.raw_value), avg.non_finite ? "not finite" : "negative"));
      continue;
    }
    if (!avg.value) continue;
    const double total = *avg.value * static_cast<double>(g.row.calls);
    if (!std::isfinite(total)) {
      ctx.diagnostics.Add(model::Diag::bad_duration, fmt::format("{}: average duration x invocations is not a finite number; left unknown", Where(ctx, reader)));
      continue;
    }
    g.row.total_ns = total;
    const auto non_negative = [](std::optional<double> v) { return v && *v >= 0 ? v : std::nullopt; };
    g.row.min_ns = non_negative(ParseValue(Cell(fields, minimum), Cell(fields, unit)).value);
    g.row.max_ns = non_negative(ParseValue(Cell(fields, maximum), Cell(fields, unit)).value);
    g.timed = true;
    g.raw_metric = raw_metric;
  }
  for (const auto& key : order) {
    const Group& g = groups[key];
    if (!g.timed) {
      ctx.diagnostics.Add(model::Diag::summary_without_duration, fmt::format("{}: '{}' has no duration metric; its total time reads 0", ctx.source,
                                      model::Excerpt(g.row.kernel_name)));
    }
    ctx.sink.OnKernelSummary(g.row);
  }
  ctx.diagnostics.Note("ncu summary pages give averages: total time = average duration x invocations");
  return OkStatus();
}

}  // namespace llmpo::ingest::ncu
