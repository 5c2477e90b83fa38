// An import session: read existing profiler outputs, whatever their format,
// and write the outputs of the output table (src/pipeline/outputs.h) into an
// output folder: kernels.md/json, the NVTX region report under regions/ when
// an input carries NVTX data, report.html and the others. A bad input is
// reported and skipped; the others still make it into the reports. `import`,
// `report RUN_DIR`, profile and trace runs all write their reports this way.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/core/result.h"
#include "src/ingest/importer.h"
#include "src/pipeline/region_options.h"
#include "src/report/kernels_report.h"
#include "src/report/report_set.h"

namespace llmpo::pipeline {

struct ImportRequest {
  std::vector<std::filesystem::path> inputs;
  // Inputs captured for one region each (the seeds' one-ncu-run-per-region
  // plan): path -> region label ("A", "LLM@decode"). Their launches count in
  // that region even without NVTX columns.
  std::map<std::string, std::string> capture_regions;
  std::filesystem::path out_dir;
  // Read an archive of traces as one input, its traces into one sink (what
  // an archive that holds one rank twice needs: partial_import.cc).
  bool archives_whole = false;
  std::size_t top_k = 50;
  RegionOptions regions;
  std::string regions_subdir = "regions";  // under out_dir; a run folder uses ncu/regions
  // When set, inputs under this folder are named relative to it in the
  // reports (a run folder's reports then do not depend on where it lives).
  std::optional<std::filesystem::path> label_base;
  // A run folder's reports (stakeholder_summary.md, report.md): its context.
  std::optional<report::RunContext> run_folder;
  // report.html: the run the reports belong to (default: one named after
  // the inputs), the timeline it draws (default: the inputs' launches) and
  // the trace.json it links (relative to out_dir), when there is one.
  std::optional<report::RunContext> html_run;
  std::optional<report::TimelineOverview> timeline;
  std::string trace_json_link;
  // Inputs whose data names no rank but whose run does (a profile run's
  // per-rank nsys/ncu exports): path -> the launcher's rank, given to every
  // record without one.
  std::map<std::string, std::int64_t> input_ranks;
  // A traced run's traces and summaries: its trace/ files are written too.
  const report::TraceOutputs* trace = nullptr;
};

struct ImportOutcome {
  report::KernelsReport report;
  std::vector<std::string> written;  // files written under out_dir
  std::vector<Error> failures;       // one per input that could not be imported
};

// Fails only when the reports cannot be written. When every input failed
// before giving a row, nothing is written (`written` is empty) and the
// folder keeps what it held.
// read (each input through ingest::ImportFile into the collectors) ->
// collect -> build the report set -> write the output table.
Result<ImportOutcome> RunImport(const ImportRequest& request);

// RunImport's steps, for the partial import and merge (partial_import.h):
// every input of `request` into `collectors` (returns how many were read),
// and the report options the request implies.
class Collectors;
// The traces of an archive (a tar of rank traces) are inputs of their own,
// "ARCHIVE:MEMBER", as rank files are: without `members` they go into
// `collectors`; with it, `begin` gives the collectors of each member in turn
// and `end` gets them back once the member is read (the pooled import
// reduces each member there, so the archive's ranks are not all kept).
// With `defer`, a member of at most `defer_bytes` (as stored) is read whole
// by the archive's thread and handed over as a function that parses it into
// the collectors it is given; `defer` runs it when it will (another thread),
// merging in the archive's order, and `settle` waits for every one.
struct ArchiveMembers {
  using Outcome = ingest::MemberInputs::Outcome;
  std::function<Collectors&()> begin;
  std::function<void(Collectors&)> end;
  std::uint64_t defer_bytes = 0;
  std::function<void(std::function<Outcome(Collectors&)>)> defer;
  std::function<ingest::MemberInputs::Settled()> settle;
  std::function<void(const std::string&)> note;  // an archive note, in order with the members (with defer)
  std::function<bool()> stopped;                 // a deferred member was refused
};
std::size_t ReadImportInputs(const ImportRequest& request, Collectors& collectors, std::vector<Error>& failures,
                             const ArchiveMembers* members = nullptr);
report::ReportOptions ImportReportOptions(const ImportRequest& request, const analysis::KernelCategorizer& categorizer);
// Makes the output folder and removes what an import killed half-way left
// there (callers hold the folder's lock): the start of every import.
Status PrepareOutputFolder(const ImportRequest& request);

}  // namespace llmpo::pipeline
