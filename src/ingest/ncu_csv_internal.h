// Shared pieces of the ncu CSV importers (details, raw and summary pages).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/csv_reader.h"
#include "src/ingest/importer.h"
#include "src/model/records.h"

namespace llmpo::ingest::ncu {

// Where the identity columns are; any may be absent (versions differ).
struct IdentityColumns {
  std::optional<std::size_t> id, pid, process_name, kernel_name, device, block, grid;
  std::optional<std::size_t> nvtx_push_pop, nvtx_start_end;
};

IdentityColumns LocateIdentity(const std::vector<std::string>& header);
bool IsIdentityColumn(const IdentityColumns& cols, std::size_t index, const std::vector<std::string>& header);

// The cell at `index`, or "" when the row is shorter (ragged) or the column absent.
// Inline: called several times on every row.
inline std::string_view Cell(const std::vector<std::string_view>& fields, std::optional<std::size_t> index) {
  if (!index || *index >= fields.size()) return {};
  return fields[*index];
}

void FillIdentity(const IdentityColumns& cols, const std::vector<std::string_view>& fields,
                  model::LaunchRecord& launch);

// Names that are not valid UTF-8 (a Latin-1 byte in a kernel name) get
// U+FFFD for each bad byte, so reports stay valid UTF-8 text and JSON; the
// replacements are counted in the data quality section.
void RepairNames(model::LaunchRecord& launch, ImportContext& ctx, const CsvReader& reader);

// "file:line" for diagnostics.
std::string Where(const ImportContext& ctx, const CsvReader& reader);

// Sets launch.duration_ns from a metric when it is the kernel duration:
// gpu__time_duration.sum always wins over the details page's "Duration".
void TakeDuration(const model::Metric& metric, model::LaunchRecord& launch, bool& from_raw_metric, ImportContext& ctx,
                  const CsvReader& reader);

// Counts what ParseValue reported about one value.
void CheckValue(const model::Metric& metric, ImportContext& ctx, const CsvReader& reader);

Status ImportDetails(CsvReader& reader, const std::vector<std::string>& header, ImportContext& ctx);
Status ImportRaw(CsvReader& reader, const std::vector<std::string>& header, ImportContext& ctx);
Status ImportSummary(CsvReader& reader, const std::vector<std::string>& header, ImportContext& ctx);

}  // namespace llmpo::ingest::ncu
