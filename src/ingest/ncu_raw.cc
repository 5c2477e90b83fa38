// The raw page: one row per result, one column per metric, and a second row
// with the units (its identity cells are empty). Column names may carry a
// breakdown prefix ("FBSP.TriageCompute.dramc__..."): the metric name starts
// at the first dot-separated part that holds "__".
#include <fmt/format.h>

#include "src/core/metric_units.h"
#include "src/ingest/ncu_csv_internal.h"
#include "src/ingest/text_lines.h"

namespace llmpo::ingest::ncu {
namespace {

struct MetricColumn {
  std::size_t index;
  std::string name;
  std::string prefix;  // kept as the metric's "section"
  std::string unit;
};

MetricColumn SplitName(std::size_t index, const std::string& column) {
  const BreakdownSplit split = SplitBreakdownPrefix(column);
  return {index, std::string(split.metric), std::string(split.prefix), ""};
}

}  // namespace

Status ImportRaw(CsvReader& reader, const std::vector<std::string>& header, ImportContext& ctx) {
  const IdentityColumns identity = LocateIdentity(header);
  if (!identity.id || !identity.kernel_name) {
    return MakeError(ExitStatus::kInput,
                     fmt::format("{}: an ncu CSV header needs \"ID\" and \"Kernel Name\" columns", ctx.source));
  }
  std::vector<MetricColumn> metrics;
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (!IsIdentityColumn(identity, i, header)) metrics.push_back(SplitName(i, header[i]));
  }
  std::vector<std::string_view> fields;
  bool first = true;
  while (reader.Next(fields)) {
    ctx.diagnostics.CountRow();
    if (first && Cell(fields, identity.id).empty()) {  // the units row
      for (auto& m : metrics) m.unit = std::string(Cell(fields, m.index));
      first = false;
      continue;
    }
    if (first) {
      ctx.diagnostics.Add(model::Diag::no_units_row, fmt::format("{}: no units row after the header; values read without units", ctx.source));
      first = false;
    }
    if (reader.last_record_truncated()) {
      ctx.diagnostics.Add(model::Diag::truncated_record, fmt::format("{}: the file ends inside a quoted field", Where(ctx, reader)));
      continue;
    }
    if (fields.size() == 1 && fields[0].starts_with("==")) continue;
    if (fields.size() != header.size()) {
      ctx.diagnostics.Add(model::Diag::ragged_row, fmt::format("{}: {} fields for {} columns; a wide row cannot be realigned, skipped",
                                      Where(ctx, reader), fields.size(), header.size()));
      continue;
    }
    model::LaunchRecord launch;
    FillIdentity(identity, fields, launch);
    RepairNames(launch, ctx, reader);
    bool from_raw = false;
    for (const auto& m : metrics) {
      model::Metric metric{m.name, m.prefix, ParseValue(fields[m.index], m.unit)};
      CheckValue(metric, ctx, reader);
      TakeDuration(metric, launch, from_raw, ctx, reader);
      launch.metrics.push_back(std::move(metric));
    }
    ctx.sink.OnLaunch(launch);
  }
  return OkStatus();
}

}  // namespace llmpo::ingest::ncu
