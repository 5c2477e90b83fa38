#include "src/pipeline/import_job.h"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <memory>

#include "src/analysis/kernel_category.h"
#include "src/core/usable_cpus.h"
#include "src/ingest/input_file.h"
#include "src/ingest/llmpo_trace.h"
#include "src/pipeline/collectors.h"
#include "src/pipeline/environment.h"
#include "src/pipeline/input_dedupe.h"
#include "src/pipeline/outputs.h"
#include "src/pipeline/process.h"
#include "src/pipeline/rank_tag_sink.h"
#include "src/pipeline/step_outputs.h"
#include "src/pipeline/tool_probe.h"

namespace llmpo::pipeline {
namespace fs = std::filesystem;

namespace {

// The last non-empty line the two files hold, trimmed; "" when none.
std::string LastLine(const fs::path& out, const fs::path& err) {
  std::string last;
  for (const fs::path& file : {out, err}) {
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
      const auto first = line.find_first_not_of(" \t\r");
      if (first != std::string::npos) last = line.substr(first, 300);
    }
  }
  return last;
}

// The installed nsys' version ("2022.4"), or "".
std::string NsysVersion() {
  InstalledTools tools = ProbeTools(SystemRunner(), false, true);
  return tools.nsys && tools.nsys->version ? tools.nsys->version->Text() : "";
}

// The converter ingest calls for an .nsys-rep (or the older .qdrep):
// `nsys export --type sqlite`, whose output is kept beside the reports.
Result<fs::path> ConvertWithNsys(ingest::InputFormat /*from*/, ingest::InputFormat /*to*/, const fs::path& file,
                                 const fs::path& out_dir) {
  const fs::path sqlite = out_dir / (file.stem().string() + ".sqlite");
  const std::string command =
      fmt::format("nsys export --type sqlite --force-overwrite true --output {} {}", sqlite.string(), file.string());
  if (!FindOnPath("nsys")) {
    return MakeError(
               ExitStatus::kToolMissing,
               fmt::format("{}: an Nsight Systems report; reading it needs nsys, which is not on PATH", file.string()))
        .WithNote(
            "install Nsight Systems (or add it to PATH), or export it where nsys exists and import the .sqlite: " +
            command);
  }
  const fs::path log = out_dir / (file.stem().string() + ".export.log");
  const fs::path out_log = out_dir / (file.stem().string() + ".export.stdout.log");
  ASSIGN_OR_RETURN(ProcessResult run, RunToFiles({"nsys", "export", "--type", "sqlite", "--force-overwrite", "true",
                                                  "--output", sqlite.string(), file.string()},
                                                 out_log, log));
  // nsys may exit 0 after an ERROR line, and leaves a partial SQLite when it
  // fails: that is never imported, and nothing of the attempt stays behind.
  const std::string said = FirstErrorLine(out_log, log);
  std::error_code ec;
  if (run.exit_code == 0 && said.empty() && fs::exists(sqlite, ec) && fs::file_size(sqlite, ec) > 0) return sqlite;
  const std::string reason = said.empty() ? LastLine(out_log, log) : said;
  for (const auto& f : {sqlite, log, out_log}) fs::remove(f, ec);
  const std::string version = NsysVersion();
  return MakeError(ExitStatus::kToolFailed,
                   fmt::format("{}: nsys{} could not export it (exit {}){}", file.string(),
                               version.empty() ? "" : " " + version, run.exit_code,
                               reason.empty() ? "" : fmt::format(": \"{}\"", reason)))
      .WithNote("if the report comes from a newer Nsight Systems, export it where that version (or a newer one) is "
                "installed and import the .sqlite: " + command);
}

// Whether the inputs may hold both a timeline and an ncu capture, judged
// from their first bytes before any is imported: launch-by-launch pairing
// keeps a copy of every launch, so it runs only where it can be used. An
// input that cannot be judged here (a byte order mark, an unreadable file)
// counts as either.
bool TimelineAndNcuPossible(const std::vector<fs::path>& inputs) {
  bool timeline = false, ncu = false;
  for (const auto& file : inputs) {
    const ingest::Importer* importer = ingest::GuessImporter(file);
    if (importer == nullptr) {
      timeline = ncu = true;
      continue;
    }
    if (importer->format == ingest::InputFormat::kUnknown) continue;
    timeline = timeline || importer->family == model::SourceFamily::kTimeline;
    ncu = ncu || importer->family == model::SourceFamily::kNcu;
  }
  return timeline && ncu;
}

// Reading ahead on a second thread (CsvReader::StartReadAhead) is opt-in:
// LLMPO_READ_AHEAD=1, on a process that may use two or more CPUs. On the
// 2-vCPU VM we benchmark on it was faster in some runs and slower in others
// (cross-core traffic; bench/RESULTS.md), so one thread stays the default.
bool ReadAheadWanted() {
  const char* env = std::getenv("LLMPO_READ_AHEAD");
  if (env == nullptr || std::string_view(env) != "1") return false;
  return UsableCpus() > 1;
}

// An input's name in the reports: relative to label_base when under it.
std::string LabelFor(const ImportRequest& request, const fs::path& file) {
  if (request.label_base) {
    std::error_code ec;
    const fs::path rel = fs::relative(file, *request.label_base, ec);
    if (!ec && !rel.empty() && *rel.begin() != "..") return rel.string();
  }
  return file.string();
}

// A trace the run already read (its summaries and trace.json came from it):
// its records, and what reading it found, without reading it again.
bool FromPreloadedTrace(const ImportRequest& request, const fs::path& file, ingest::ImportContext& ctx,
                        report::SourceInfo& info) {
  if (request.trace == nullptr) return false;
  const auto& loaded = *request.trace;
  for (std::size_t i = 0; i < loaded.files.size(); ++i) {
    if (loaded.files[i] != file) continue;
    const ingest::Importer& importer = ingest::ImporterFor(ingest::InputFormat::kLlmpoTrace);
    info.format = std::string(importer.name);
    info.family = importer.family;
    ctx.diagnostics.Merge(loaded.file_diagnostics[i]);
    ingest::EmitLlmpoTraceRecords(loaded.traces[i], ctx);
    return true;
  }
  return false;
}

// What an archive's context receives outside its members: nothing (the
// importer sends every record to a member's own context).
class NoRecords final : public model::RecordSink {
 public:
  void OnLaunch(const model::LaunchRecord&) override {}
  void OnKernelSummary(const model::KernelSummaryRow&) override {}
};

// A member's line among the sources.
report::SourceInfo MemberSource(const std::string& label, bool read) {
  const ingest::Importer& kineto = ingest::ImporterFor(ingest::InputFormat::kKinetoTrace);
  report::SourceInfo info{label, std::string(kineto.name), std::nullopt, kineto.family};
  if (!read) info.failure = "no event could be read from the trace";
  return info;
}

// Each trace of an archive begun and ended as an input of its own, in the
// collectors ArchiveMembers gives (or the archive's own), with the rank the
// run recorded for the archive where a record has none.
class MemberReader final : public ingest::MemberInputs {
 public:
  MemberReader(Collectors& own, const ArchiveMembers* members, std::optional<std::int64_t> rank, bool read_ahead)
      : own_(own), members_(members), rank_(rank), read_ahead_(read_ahead) {}

  ingest::ImportContext& Begin(const std::string& label) override {
    current_ = members_ != nullptr ? &members_->begin() : &own_;
    label_ = label;
    model::RecordSink* sink = &current_->BeginInput(label, "");
    if (rank_) sink = &tagged_.emplace(*sink, *rank_);
    context_.emplace(label, *sink, current_->diagnostics());
    context_->read_ahead = read_ahead_;
    return *context_;
  }

  void End(bool read) override {
    context_.reset();
    tagged_.reset();
    current_->EndInput(MemberSource(label_, read));
    if (members_ != nullptr) members_->end(*current_);
    current_ = nullptr;
  }

  std::uint64_t DeferBytes() const override {
    return members_ != nullptr && members_->defer ? members_->defer_bytes : 0;
  }

  // The member as Begin and End would read it, into collectors given later.
  void Defer(const std::string& label, DeferredRead read) override {
    if (DeferBytes() == 0) {  // not offered: read it here, as Begin and End would
      Outcome outcome = read(Begin(label));
      End(outcome.read);
      return;
    }
    members_->defer([label, read = std::move(read), rank = rank_, read_ahead = read_ahead_](Collectors& into) {
      model::RecordSink* sink = &into.BeginInput(label, "");
      std::optional<RankTagSink> tagged;
      if (rank) sink = &tagged.emplace(*sink, *rank);
      ingest::ImportContext context{label, *sink, into.diagnostics()};
      context.read_ahead = read_ahead;
      Outcome outcome = read(context);
      tagged.reset();
      into.EndInput(MemberSource(label, outcome.read));
      return outcome;
    });
  }

  bool Note(const std::string& note) override {
    if (DeferBytes() == 0 || !members_->note) return false;
    members_->note(note);
    return true;
  }
  bool Stopped() override { return members_ != nullptr && members_->stopped && members_->stopped(); }
  Settled Settle() override { return members_ != nullptr && members_->settle ? members_->settle() : Settled{}; }

 private:
  Collectors& own_;
  const ArchiveMembers* members_;
  std::optional<std::int64_t> rank_;
  bool read_ahead_;
  Collectors* current_ = nullptr;
  std::string label_;
  std::optional<RankTagSink> tagged_;
  std::optional<ingest::ImportContext> context_;
};

bool IsArchiveOfTraces(const fs::path& file) {
  const ingest::Importer* importer = ingest::GuessImporter(file);
  return importer != nullptr && importer->format == ingest::InputFormat::kKinetoTrace && ingest::IsKinetoArchive(file);
}

// An archive of traces, each an input of its own. The archive is a source
// of its own only when it fails (the members read before are kept).
void ReadArchive(const fs::path& file, const std::string& label, std::optional<std::int64_t> rank,
                 const ingest::InputOptions& options, bool read_ahead, Collectors& collectors,
                 const ArchiveMembers* members, std::vector<Error>& failures) {
  MemberReader reader(collectors, members, rank, read_ahead);
  NoRecords none;
  ingest::ImportContext ctx{label, none, collectors.diagnostics()};
  ctx.members = &reader;
  const ingest::Importer* used = nullptr;
  Status status = ingest::ImportFile(file, options, ctx, &used);
  if (status.ok()) return;
  const ingest::Importer& kineto = ingest::ImporterFor(ingest::InputFormat::kKinetoTrace);
  collectors.BeginInput(label, "");
  collectors.EndInput({label, std::string(kineto.name), status.error().message, kineto.family});
  failures.push_back(std::move(status).error());
}

// Every input into the collectors, each content once (input_dedupe.h); one
// failure per input that could not be read. Returns how many were read.
std::size_t ReadInputs(const ImportRequest& request, Collectors& collectors, std::vector<Error>& failures,
                       const ArchiveMembers* members) {
  const ingest::InputOptions options{request.out_dir, ConvertWithNsys};
  const bool read_ahead = ReadAheadWanted();
  const std::vector<fs::path> inputs = UniqueInputs(request.inputs, collectors.diagnostics());
  for (const auto& file : inputs) {
    report::SourceInfo info{LabelFor(request, file), "unknown", std::nullopt};
    const auto capture = request.capture_regions.find(file.string());
    const auto rank = request.input_ranks.find(file.string());
    if (!request.archives_whole && capture == request.capture_regions.end() && IsArchiveOfTraces(file)) {
      const std::optional<std::int64_t> archive_rank =
          rank != request.input_ranks.end() ? std::optional(rank->second) : std::nullopt;
      ReadArchive(file, info.path, archive_rank, options, read_ahead, collectors, members, failures);
      continue;
    }
    model::RecordSink& input_sink =
        collectors.BeginInput(info.path, capture != request.capture_regions.end() ? capture->second : "");
    std::optional<RankTagSink> tagged;
    if (rank != request.input_ranks.end()) tagged.emplace(input_sink, rank->second);
    model::RecordSink& sink = tagged ? static_cast<model::RecordSink&>(*tagged) : input_sink;
    ingest::ImportContext ctx{info.path, sink, collectors.diagnostics()};
    ctx.read_ahead = read_ahead;
    if (FromPreloadedTrace(request, file, ctx, info)) {
      collectors.EndInput(std::move(info));
      continue;
    }
    const ingest::Importer* used = nullptr;
    Status status = ingest::ImportFile(file, options, ctx, &used);
    if (used != nullptr) {
      info.format = std::string(used->name);
      info.family = used->family;
    }
    if (!status.ok()) {
      info.failure = status.error().message;
      failures.push_back(std::move(status).error());
    }
    collectors.EndInput(std::move(info));
  }
  return inputs.size();
}

report::ReportOptions ReportOptionsFor(const ImportRequest& request, const analysis::KernelCategorizer& categorizer) {
  report::ReportOptions options;
  options.top_k = request.top_k;
  options.selection = request.regions.selection;
  options.aggregate = request.regions.aggregate;
  options.max_folders = request.regions.max_folders;
  options.categorizer = &categorizer;
  options.regions_subdir = request.regions_subdir;
  options.run_folder = request.run_folder;
  options.html_run = request.html_run;
  options.timeline = request.timeline;
  options.trace_json_link = request.trace_json_link;
  options.phases = request.regions.phases;
  return options;
}

}  // namespace

std::size_t ReadImportInputs(const ImportRequest& request, Collectors& collectors, std::vector<Error>& failures,
                             const ArchiveMembers* members) {
  return ReadInputs(request, collectors, failures, members);
}

report::ReportOptions ImportReportOptions(const ImportRequest& request,
                                          const analysis::KernelCategorizer& categorizer) {
  return ReportOptionsFor(request, categorizer);
}

Status PrepareOutputFolder(const ImportRequest& request) {
  std::error_code ec;
  fs::create_directories(request.out_dir, ec);
  if (ec) {
    return MakeError(ExitStatus::kFailure,
                     fmt::format("cannot create output folder '{}': {}", request.out_dir.string(), ec.message()));
  }
  RemoveOutputLeftovers(request.out_dir, request.regions_subdir);
  return OkStatus();
}

Result<ImportOutcome> RunImport(const ImportRequest& request) {
  RETURN_IF_ERROR(PrepareOutputFolder(request));
  ASSIGN_OR_RETURN(analysis::KernelCategorizer categorizer,
                   analysis::KernelCategorizer::Create(request.regions.categories));
  const bool pair = request.inputs.size() > 1 && TimelineAndNcuPossible(request.inputs);
  ASSIGN_OR_RETURN(std::unique_ptr<Collectors> collectors, Collectors::Create(request.regions, pair));
  ImportOutcome outcome;
  const std::size_t read = ReadInputs(request, *collectors, outcome.failures, nullptr);
  // Every input failed before its first row: reports of no data would
  // replace what the folder holds (an earlier good import), so the folder
  // is left as it is. What a failed input read before its error is reported.
  if (outcome.failures.size() == read && collectors->diagnostics().rows_read() == 0) {
    outcome.report.sources = collectors->sources();
    outcome.report.diagnostics = collectors->diagnostics();
    return outcome;
  }
  report::Collected collected = collectors->Finish();
  collected.trace = request.trace;
  const report::ReportSet set = report::BuildReportSet(std::move(collected), ReportOptionsFor(request, categorizer));
  ASSIGN_OR_RETURN(outcome.written, WriteOutputs(request.out_dir, set));
  outcome.report = set.kernels;
  return outcome;
}

}  // namespace llmpo::pipeline
