#include <fmt/format.h>

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

// A regular file is mapped rather than read through a stream (CsvReader::MapFile).
Status NcuCsvFile(const std::filesystem::path& file, ImportContext& ctx) {
  if (auto reader = CsvReader::MapFile(file)) return ImportNcuCsv(*reader, ctx);
  return FromStream<ImportNcuCsv>(file, ctx);
}

// The zstd container of a report (.ncu-repz) is documented by NVIDIA but no
// such file could be checked (ncu-rep-format.md §2), so it is not guessed at.
Status RefuseCompressedNcuReport(const std::filesystem::path& file, ImportContext& ctx) {
  std::filesystem::path plain = file;
  plain.replace_extension(".ncu-rep");
  return MakeError(ExitStatus::kInput,
                   fmt::format("{}: a compressed Nsight Compute report (.ncu-repz), which this tool does not read",
                               ctx.source))
      .WithNote(fmt::format("decompress it and import the result: zstd -d {} -o {}", file.string(), plain.string()));
}

constexpr std::string_view kNcuCsvHint = "ncu CSV (--csv --page details|raw, --print-summary)";

// Binary magic first, then JSON, then CSV headers (a CSV sniff never
// accepts bytes with a NUL; a minified JSON line could hold header words).
constexpr Importer kImporters[] = {
    {InputFormat::kNsysSqlite, "nsys-sqlite", SourceFamily::kTimeline, "nsys export --type sqlite", LooksLikeSqlite, "",
     ImportNsysSqlite, InputFormat::kUnknown, "an nsys SQLite export or .nsys-rep"},
    {InputFormat::kNcuReport, "ncu-report", SourceFamily::kNcu, "Nsight Compute report (.ncu-rep), read natively",
     LooksLikeNcuReport, "", ImportNcuReport, InputFormat::kUnknown, ".ncu-rep"},
    {InputFormat::kLlmpoTrace, "llmpo-trace", SourceFamily::kTimeline, "our tracer's trace.PID.tsv",
     LooksLikeLlmpoTrace, "", FromStream<ImportLlmpoTraceRecords>, InputFormat::kUnknown,
     "a trace written by `llm-perf-opt trace`"},
    {InputFormat::kKinetoTrace, "kineto-trace", SourceFamily::kTimeline, "PyTorch profiler (Kineto) trace",
     LooksLikeKinetoTrace, "", ImportKinetoTrace, InputFormat::kUnknown,
     "a PyTorch profiler (Kineto) trace (.json, .json.gz, a .tar.gz of ranks)"},
    {InputFormat::kNcuDetailsCsv, "ncu-details-csv", SourceFamily::kNcu, "ncu --csv --page details",
     LooksLikeNcuDetailsCsv, "", NcuCsvFile, InputFormat::kUnknown, kNcuCsvHint},
    {InputFormat::kNcuRawCsv, "ncu-raw-csv", SourceFamily::kNcu, "ncu --csv --page raw", LooksLikeNcuRawCsv, "",
     NcuCsvFile, InputFormat::kUnknown, kNcuCsvHint},
    {InputFormat::kNcuSummaryCsv, "ncu-summary-csv", SourceFamily::kNcu, "ncu --print-summary ... --csv",
     LooksLikeNcuSummaryCsv, "", NcuCsvFile, InputFormat::kUnknown, kNcuCsvHint},
    {InputFormat::kNsysStatsCsv, "nsys-stats-csv", SourceFamily::kSummary, "nsys stats --format csv",
     LooksLikeNsysStatsCsv, "", FromStream<ImportNsysStatsCsv>, InputFormat::kUnknown, "nsys stats CSV"},
    // Known by name only: an .nsys-rep is converted with `nsys export`; the
    // result is read (and named in the reports) as an nsys SQLite export.
    {InputFormat::kNsysReport, "nsys-report", SourceFamily::kTimeline, "Nsight Systems report, through nsys export",
     nullptr, ".nsys-rep .qdrep", nullptr, InputFormat::kNsysSqlite},
    {InputFormat::kNcuReportZstd, "ncu-report-zstd", SourceFamily::kNcu, "compressed Nsight Compute report", nullptr,
     ".ncu-repz", RefuseCompressedNcuReport},
};

constexpr Importer kUnknown{InputFormat::kUnknown, "unknown", SourceFamily::kNcu, "not a profiler output", nullptr,
                            "", nullptr};

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
