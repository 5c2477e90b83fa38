// The details page (ncu_details_importer.h): checks of the header, then
// the rows, on this thread or, for a large mapped file, on two
// (ncu_details_parts.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iterator>

#include "src/ingest/ncu_details_importer.h"
#include "src/ingest/ncu_details_parts.h"

namespace llmpo::ingest::ncu {
namespace {

// Columns of no ncu version we know (nsight-reference §B) are left out of
// the reports; a newer ncu may add some, so this is said, not fatal.
void ReportUnknownColumns(const std::vector<std::string>& header, ImportContext& ctx) {
  static constexpr std::string_view kMetricAndRuleColumns[] = {
      "Section Name",           "Body Item Label",  "Metric Name", "Metric Unit",
      "Metric Value",           "Rule Name",        "Rule Type",   "Rule Description",
      "Estimated Speedup Type", "Estimated Speedup"};
  const IdentityColumns identity = LocateIdentity(header);
  std::vector<std::string> unknown;
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (IsIdentityColumn(identity, i, header)) continue;
    if (std::find(std::begin(kMetricAndRuleColumns), std::end(kMetricAndRuleColumns), header[i]) !=
        std::end(kMetricAndRuleColumns)) {
      continue;
    }
    unknown.push_back(fmt::format("\"{}\"", header[i]));
  }
  if (unknown.empty()) return;
  ctx.diagnostics.Add(model::Diag::unknown_columns, fmt::format("{}: column(s) {} are not in any ncu details page we know; ignored (a newer ncu? "
                                  "the known columns were read as usual)",
                                  ctx.source, fmt::join(unknown, ", ")));
}

}  // namespace

Status ImportDetails(CsvReader& reader, const std::vector<std::string>& header, ImportContext& ctx) {
  for (const char* needed : {"ID", "Kernel Name", "Section Name", "Metric Unit", "Metric Value"}) {
    if (!FindColumn(header, needed)) {
      return MakeError(ExitStatus::kInput,
                       fmt::format("{}: the ncu details header has no \"{}\" column", ctx.source, needed));
    }
  }
  ReportUnknownColumns(header, ctx);
  if (const auto parts = PlanDetailsParts(reader, ctx)) return ImportDetailsInParts(*parts, header, ctx);
  NameKeys keys;
  SinkOutput output(keys, ctx.sink);
  DetailsImporter importer(header, ctx, output);
  importer.SetReader(reader);
  reader.ReuseRepeatedPrefix(importer.FirstMetricColumn());
  if (ctx.read_ahead) reader.StartReadAhead();  // falls back to this thread when it cannot start one
  std::vector<std::string_view> fields;
  while (reader.Next(fields)) importer.Row(fields);
  importer.Finish();
  return OkStatus();
}

}  // namespace llmpo::ingest::ncu
