// Importers: one per input format, each reading bytes and pushing typed
// records into a sink, counting bad rows in Diagnostics instead of failing.
// An importer fails (returns an Error) only when the input is unusable as a
// whole: no header, not the format it claimed, unreadable.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <istream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/csv_reader.h"
#include "src/core/result.h"
#include "src/model/diagnostics.h"
#include "src/model/sink.h"
#include "src/model/source.h"

namespace llmpo::ingest {

enum class InputFormat {
  kUnknown,
  kNcuDetailsCsv,  // ncu --csv --page details (long: one row per metric)
  kNcuRawCsv,      // ncu --csv --page raw (wide: one row per result, units row)
  kNcuSummaryCsv,  // ncu --print-summary per-kernel|per-nvtx|per-gpu --csv
  kNsysStatsCsv,   // nsys stats --format csv, any report
  kNsysSqlite,     // nsys export --type sqlite
  kNcuReport,      // .ncu-rep binary report (read natively, ncu_rep/reader.h)
  kLlmpoTrace,     // our tracer's trace.PID.tsv (tracer/README.md)
  kKinetoTrace,    // PyTorch profiler (Kineto) Chrome trace: .json, .json.gz, tar of ranks
  kNsysReport,     // .nsys-rep / .qdrep: read after an external conversion to kNsysSqlite
  kNcuReportZstd,  // .ncu-repz: refused with the command that decompresses it
};

std::string_view ToString(InputFormat f);

class MemberInputs;

struct ImportContext {
  std::string source;  // label for messages: the file path
  model::RecordSink& sink;
  model::Diagnostics& diagnostics;
  // Large text inputs may be read and scanned on a second thread (see
  // CsvReader::StartReadAhead); the caller decides, knowing the machine.
  bool read_ahead = false;
  // Where an archive's traces go as inputs of their own (a tar of rank
  // traces); without it they are read into `sink`, as one input.
  MemberInputs* members = nullptr;
};

// Takes each trace of an archive as an input of its own, labelled
// "ARCHIVE:MEMBER", with its own sink and diagnostics: the caller can then
// reduce each member as it ends, as it does a rank file, instead of keeping
// every rank until the archive ends. What concerns the archive itself (a
// member that is not a trace, damage past the last member) goes to the
// archive's own context.
class MemberInputs {
 public:
  virtual ~MemberInputs() = default;
  // The context the member's records go to, until End.
  virtual ImportContext& Begin(const std::string& label) = 0;
  // The member is read; `read` is false when nothing usable came out of it.
  virtual void End(bool read) = 0;

  // What reading a deferred member gave: whether anything usable came out
  // of it, and the error that refuses the whole archive (a gzip bomb).
  struct Outcome {
    bool read = false;
    std::optional<Error> refusal;
  };
  using DeferredRead = std::function<Outcome(ImportContext&)>;
  // The largest member, as stored, that Defer may take (0: none): the
  // importer then reads its bytes whole and hands over `read`, which parses
  // them later, perhaps on another thread, into a context of its own.
  // Members stay in the archive's order, deferred or not.
  virtual std::uint64_t DeferBytes() const { return 0; }
  virtual void Defer(const std::string& /*label*/, DeferredRead /*read*/) {}
  // A note about the archive (a member that is not a trace) kept in order
  // with the deferred members, so none is made about a member after a
  // refused one; false: not taken, the importer notes it itself.
  virtual bool Note(const std::string& /*note*/) { return false; }
  // True once a deferred member was refused: reading on would be dropped.
  virtual bool Stopped() { return false; }
  // Waits for the deferred members: how many were read, the notes taken,
  // and the first refusal in the archive's order (the members and notes
  // after it are dropped, as a read in turn would never have reached them).
  struct Settled {
    int read = 0;
    std::vector<std::string> notes;
    std::optional<Error> refusal;
  };
  virtual Settled Settle() { return {}; }
};

// Whether `file`, an input of the Kineto importer, is an archive (a tar,
// plain or gzipped): each of its traces may then be an input of its own
// (MemberInputs).
bool IsKinetoArchive(const std::filesystem::path& file);

// Detects the format from the first bytes of a file (up to 64 KiB), never
// from its name: the first row of the importer table whose content sniff
// accepts the head.
InputFormat DetectFormat(std::string_view head);
// The same, then by file name for the formats known only by their name
// (an .nsys-rep's container, .ncu-repz), when no content sniff matched.
InputFormat DetectFormat(std::string_view head, const std::filesystem::path& file);

Status ImportNcuCsv(std::istream& in, ImportContext& ctx);  // details, raw and summary pages
Status ImportNcuCsv(CsvReader& reader, ImportContext& ctx);   // the same, from a reader not yet read
Status ImportNsysStatsCsv(std::istream& in, ImportContext& ctx);
Status ImportNsysSqlite(const std::filesystem::path& file, ImportContext& ctx);
// Where SQLite puts the temporary files of large sorts and automatic indexes
// (unlinked as soon as they are opened): `dir`, the output folder, instead of
// /var/tmp. Process-wide; set before any SQLite import runs.
void UseSqliteScratchDir(const std::filesystem::path& dir);
// The folder UseSqliteScratchDir set; empty where none was.
std::filesystem::path SqliteScratchDir();
Status ImportNcuReport(const std::filesystem::path& file, ImportContext& ctx);  // ncu_rep/import.cc
Status ImportKinetoTrace(const std::filesystem::path& file, ImportContext& ctx);
// A Kineto trace's first bytes (plain, gzip, or a tar of traces).
bool LooksLikeKinetoTrace(std::string_view head);

// Content sniffs of the table's rows (detect.cc).
bool LooksLikeSqlite(std::string_view head);
bool LooksLikeNcuReport(std::string_view head);
bool LooksLikeLlmpoTrace(std::string_view head);
bool LooksLikeNcuDetailsCsv(std::string_view head);
bool LooksLikeNcuRawCsv(std::string_view head);
bool LooksLikeNcuSummaryCsv(std::string_view head);
bool LooksLikeNsysStatsCsv(std::string_view head);

// The importer table: one entry per format, the only place that ties a
// format to how it is recognised, its name, its kind of measurement and the
// function reading it. Rows are tried in order.
struct Importer {
  InputFormat format;
  std::string_view name;       // sources[].format in the reports
  model::SourceFamily family;  // how its numbers combine with other inputs'
  std::string_view description;
  // Whether a file's first bytes are this format; nullptr: known by name only.
  bool (*sniff)(std::string_view head);
  // File name endings that name the format when no content sniff matched
  // (space-separated, e.g. ".nsys-rep .qdrep"); "" for none.
  std::string_view extensions;
  // Reads the file; nullptr: the format needs an external tool to convert it
  // into `converts_to` first (the pipeline provides it; ingest stays pure).
  Status (*import)(const std::filesystem::path& file, ImportContext& ctx);
  InputFormat converts_to = InputFormat::kUnknown;
  // What users call it, for "expected: ..." when nothing matched; rows that
  // share a hint are named once.
  std::string_view hint = "";
};

std::span<const Importer> Importers();
const Importer& ImporterFor(InputFormat format);

}  // namespace llmpo::ingest
