// ncu CSV entry point: skips what ncu and the application printed before
// the header (==PROF== lines, program output), then hands the rows to the
// importer of the page the header reveals.
#include <fmt/format.h>

#include "src/ingest/ncu_csv_internal.h"
#include "src/ingest/text_lines.h"

namespace llmpo::ingest {
namespace {

bool IsNcuHeader(const std::string& line) {
  return line.starts_with("\"ID\",") || line.starts_with("ID,") || line.starts_with("\"Process ID\",") ||
         line.starts_with("\"Domain\",\"Range:");  // ncu 2022.x --print-summary per-nvtx
}

Error NoHeader(const ImportContext& ctx, const std::string& first_error) {
  Error e =
      MakeError(ExitStatus::kInput, fmt::format("{}: no ncu CSV header (a line starting with \"ID\")", ctx.source));
  if (!first_error.empty()) {
    std::move(e).WithNote(fmt::format("ncu reported: {}", first_error));
    std::move(e).WithNote("the profiled run failed or profiled nothing; fix that and profile again");
  } else {
    std::move(e).WithNote("export with: ncu --import REPORT.ncu-rep --csv --page details > FILE.csv");
  }
  return e;
}

}  // namespace

Status ImportNcuCsv(std::istream& in, ImportContext& ctx) {
  CsvReader reader(in);
  return ImportNcuCsv(reader, ctx);
}

Status ImportNcuCsv(CsvReader& reader, ImportContext& ctx) {
  std::string line, first_error;
  std::uint64_t preamble = 0;
  while (reader.NextRawLine(line)) {
    if (IsNcuHeader(line)) break;
    if (first_error.empty() && line.starts_with("==ERROR==")) first_error = line;
    ++preamble;
    line.clear();
  }
  if (!IsNcuHeader(line)) return NoHeader(ctx, first_error);
  if (preamble > 0) {
    ctx.diagnostics.Add(model::Diag::preamble_lines_skipped, fmt::format("{}: {} line(s) before the CSV header (==PROF== or program output)", ctx.source, preamble));
  }
  const std::vector<std::string> header = ParseCsvLine(line);
  if (FindColumn(header, "Invocations")) return ncu::ImportSummary(reader, header, ctx);
  if (FindColumn(header, "Metric Name")) return ncu::ImportDetails(reader, header, ctx);
  return ncu::ImportRaw(reader, header, ctx);
}

}  // namespace llmpo::ingest
