#include <fstream>

#include "src/ingest/importer.h"
#include "src/ingest/llmpo_trace.h"

namespace llmpo::ingest {
namespace {

using model::SourceFamily;

template <Status (*Read)(std::istream&, ImportContext&)>
Status FromStream(const std::filesystem::path& file, ImportContext& ctx) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return MakeError(ExitStatus::kInput, ctx.source + ": cannot be opened for reading");
  return Read(in, ctx);
}

constexpr Importer kImporters[] = {
    {InputFormat::kNcuDetailsCsv, "ncu-details-csv", SourceFamily::kNcu, "ncu --csv --page details",
     FromStream<ImportNcuCsv>},
    {InputFormat::kNcuRawCsv, "ncu-raw-csv", SourceFamily::kNcu, "ncu --csv --page raw", FromStream<ImportNcuCsv>},
    {InputFormat::kNcuSummaryCsv, "ncu-summary-csv", SourceFamily::kNcu, "ncu --print-summary ... --csv",
     FromStream<ImportNcuCsv>},
    {InputFormat::kNsysStatsCsv, "nsys-stats-csv", SourceFamily::kSummary, "nsys stats --format csv",
     FromStream<ImportNsysStatsCsv>},
    {InputFormat::kNsysSqlite, "nsys-sqlite", SourceFamily::kTimeline, "nsys export --type sqlite", ImportNsysSqlite},
    {InputFormat::kNcuReport, "ncu-report", SourceFamily::kNcu, "Nsight Compute report (.ncu-rep), read natively",
     ImportNcuReport},
    {InputFormat::kLlmpoTrace, "llmpo-trace", SourceFamily::kTimeline, "our tracer's trace.PID.tsv",
     FromStream<ImportLlmpoTraceRecords>},
    {InputFormat::kKinetoTrace, "kineto-trace", SourceFamily::kTimeline, "PyTorch profiler (Kineto) trace",
     ImportKinetoTrace},
};

constexpr Importer kUnknown{InputFormat::kUnknown, "unknown", SourceFamily::kNcu, "not a profiler output", nullptr};

}  // namespace

std::span<const Importer> Importers() { return kImporters; }

const Importer& ImporterFor(InputFormat format) {
  for (const auto& i : kImporters) {
    if (i.format == format) return i;
  }
  return kUnknown;
}

std::string_view ToString(InputFormat f) { return ImporterFor(f).name; }

}  // namespace llmpo::ingest
