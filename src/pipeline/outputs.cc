#include "src/pipeline/outputs.h"

#include <fmt/format.h>

#include <atomic>
#include <exception>
#include <system_error>
#include <thread>

#include "src/core/atomic_file.h"
#include "src/core/usable_cpus.h"
#include "src/pipeline/import_stop.h"
#include "src/pipeline/output_folder.h"
#include "src/report/gpu_breakdown_report.h"
#include "src/report/html_report.h"
#include "src/report/phases_report.h"
#include "src/report/rank_vs_median.h"
#include "src/report/report_set_json.h"
#include "src/report/stragglers_report.h"
#include "src/report/trace_report.h"

namespace llmpo::pipeline {
namespace fs = std::filesystem;
using report::ReportSet;

namespace {

// The name under which the staging folder of the top-level files is made
// (".outputs.new-XXXXXX" in the output folder).
constexpr const char* kStagingName = "outputs";

bool Always(const ReportSet&) { return true; }
bool HasCombined(const ReportSet& s) { return s.combined.has_value(); }
bool HasBreakdown(const ReportSet& s) { return s.gpu_breakdown.has_value(); }
bool HasRegions(const ReportSet& s) { return s.regions.has_value(); }
bool IsRunFolder(const ReportSet& s) { return s.run_folder; }
bool IsTraced(const ReportSet& s) { return s.trace != nullptr; }
bool IsTracedWithGpu(const ReportSet& s) {
  if (s.trace == nullptr) return false;
  for (const auto& t : s.trace->traces) {
    if (!t.gpu_ops.empty()) return true;
  }
  return false;
}

template <std::size_t N>
struct Fixed {
  char text[N];
  constexpr Fixed(const char (&s)[N]) {  // NOLINT: implicit on purpose
    for (std::size_t i = 0; i < N; ++i) text[i] = s[i];
  }
};
template <Fixed P>
std::string At(const ReportSet&) {
  return P.text;
}
std::string RegionsPath(const ReportSet& s) { return s.regions_subdir; }

void Put(std::ostream& out, const std::string& text) {
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

void KernelsMd(const ReportSet& s, std::ostream& o) {
  Put(o, report::KernelsMarkdown(s.kernels, s.top_k));
  if (s.phases) Put(o, report::PhasesMarkdown(*s.phases));
}
void KernelsJson(const ReportSet& s, std::ostream& o) {
  report::WriteKernelsJson(s.kernels, s.phases ? &*s.phases : nullptr, o);
}
void CombinedMd(const ReportSet& s, std::ostream& o) { Put(o, report::KernelsMarkdown(*s.combined, s.top_k)); }
void CombinedJson(const ReportSet& s, std::ostream& o) { report::WriteKernelsJson(*s.combined, nullptr, o); }
void BreakdownMd(const ReportSet& s, std::ostream& o) { Put(o, report::GpuBreakdownMarkdown(*s.gpu_breakdown)); }
void BreakdownJson(const ReportSet& s, std::ostream& o) { report::WriteGpuBreakdownJson(*s.gpu_breakdown, o); }
void Summary(const ReportSet& s, std::ostream& o) {
  Put(o, report::StakeholderSummary(s.run));
  if (s.phases) Put(o, report::PhasesSummaryMarkdown(*s.phases));
}
void RunReport(const ReportSet& s, std::ostream& o) {
  Put(o, report::RunReportMarkdown(s.run));
  if (s.phases) Put(o, report::PhasesMarkdown(*s.phases));
}
bool HasStragglers(const ReportSet& s) { return s.stragglers.has_value(); }
void StragglersMd(const ReportSet& s, std::ostream& o) { Put(o, report::StragglersMarkdown(*s.stragglers)); }
void StragglersJson(const ReportSet& s, std::ostream& o) { report::WriteStragglersJson(*s.stragglers, o); }
bool HasRankKernels(const ReportSet& s) { return report::HasRanksWithKernels(s); }
void RankVsMedianMd(const ReportSet& s, std::ostream& o) {
  Put(o, report::RankVsMedianMarkdown(*report::RankVsMedian(s)));
}
void RankVsMedianJson(const ReportSet& s, std::ostream& o) { Put(o, report::CompareJson(*report::RankVsMedian(s))); }
void TraceNvtxSum(const ReportSet& s, std::ostream& o) { Put(o, report::NvtxSummaryCsv(s.trace->summaries)); }
void TraceKernSum(const ReportSet& s, std::ostream& o) { Put(o, report::KernelSummaryCsv(s.trace->summaries)); }
void TraceProjSum(const ReportSet& s, std::ostream& o) { Put(o, report::NvtxProjectionCsv(s.trace->summaries)); }
void TraceJson(const ReportSet& s, std::ostream& o) { report::WriteChromeTrace(o, s.trace->traces); }
void TraceQuality(const ReportSet& s, std::ostream& o) { Put(o, report::TraceDataQualityText(s.trace->diagnostics)); }
void SetJson(const ReportSet& s, std::ostream& o) { report::WriteReportSetJson(s, o); }
void Html(const ReportSet& s, std::ostream& o) {
  const report::HtmlReportInput input{&s.run,
                                      &s.kernels,
                                      s.regions ? &*s.regions : nullptr,
                                      s.timeline ? &*s.timeline : nullptr,
                                      &s.page,
                                      s.trace_json_link,
                                      s.gpu_breakdown ? &*s.gpu_breakdown : nullptr,
                                      s.phases ? &*s.phases : nullptr,
                                      s.stragglers ? &*s.stragglers : nullptr};
  report::WriteHtmlReport(input, o);
}

// Every file of the region report into `dir` (a new, empty folder), named
// relative to it in `files`. Nothing follows a symbolic link.
Status RegionFiles(const ReportSet& set, const fs::path& dir, std::vector<std::string>& files) {
  const report::RegionsReport& report = *set.regions;
  auto write = [&](const std::string& relative, const std::string& text) -> Status {
    RETURN_IF_ERROR(WriteFileNoFollow(dir / relative, text));
    files.push_back(relative);
    return OkStatus();
  };
  RETURN_IF_ERROR(
      WriteFileAtomically(dir / "report.md", [&](std::ostream& out) { report::WriteRegionsMarkdown(report, out); }));
  files.push_back("report.md");
  RETURN_IF_ERROR(
      WriteFileAtomically(dir / "report.json", [&](std::ostream& out) { report::WriteRegionsJson(report, out); }));
  files.push_back("report.json");
  // Each folder's report.json names its scope as regions/report.json does.
  auto per_region = [&](const std::vector<report::RegionEntry>& entries, const std::string& process,
                        const std::string& device) -> Status {
    for (const auto& e : entries) {
      if (e.folder.empty()) continue;  // beyond pipeline.regions.max_folders
      RETURN_IF_ERROR(CreateFoldersNoFollow(dir / e.folder, e.folder));
      RETURN_IF_ERROR(write(e.folder + "/report.md", report::RegionMarkdown(e)));
      RETURN_IF_ERROR(write(e.folder + "/report.json", report::RegionJson(e, report.selection, process, device)));
      RETURN_IF_ERROR(write(e.folder + "/kernels.csv", report::RegionKernelsCsv(e, report.selection)));
      if (!report.selection.sections.empty()) {
        RETURN_IF_ERROR(write(e.folder + "/sections_report.txt", report::RegionSectionsText(e, report.selection)));
      }
    }
    return OkStatus();
  };
  if (report.aggregate) return per_region(*report.aggregate, "all", "all");
  for (const auto& scope : report.scopes) {
    RETURN_IF_ERROR(per_region(scope.regions, scope.process.Label(), scope.device));
  }
  return OkStatus();
}

// Trace files first: a trace run's summaries come before the reports drawn
// from them (run.json lists its artifacts in this order).
constexpr OutputRow kOutputs[] = {
    {"nvtx_sum of a traced run", IsTraced, At<"trace/summary_nvtx_sum.csv">, TraceNvtxSum},
    {"cuda_gpu_kern_sum of a traced run", IsTracedWithGpu, At<"trace/summary_cuda_gpu_kern_sum.csv">, TraceKernSum},
    {"nvtx_gpu_proj_sum of a traced run", IsTracedWithGpu, At<"trace/summary_nvtx_gpu_proj_sum.csv">, TraceProjSum},
    {"Chrome/Perfetto trace of a traced run", IsTraced, At<"trace/trace.json">, TraceJson},
    {"data quality of a traced run's traces", IsTraced, At<"trace/data_quality.txt">, TraceQuality},
    {"kernel table", Always, At<"kernels.md">, KernelsMd},
    {"kernel table (JSON)", Always, At<"kernels.json">, KernelsJson},
    {"timeline durations with ncu metrics", HasCombined, At<"kernels_combined.md">, CombinedMd},
    {"timeline durations with ncu metrics (JSON)", HasCombined, At<"kernels_combined.json">, CombinedJson},
    {"GPU breakdown per rank and device", HasBreakdown, At<"gpu_breakdown.md">, BreakdownMd},
    {"GPU breakdown (JSON)", HasBreakdown, At<"gpu_breakdown.json">, BreakdownJson},
    {"stragglers: per step the slowest rank", HasStragglers, At<"stragglers.md">, StragglersMd},
    {"stragglers (JSON)", HasStragglers, At<"stragglers.json">, StragglersJson},
    {"the rank with the most GPU kernel time against the median rank", HasRankKernels, At<"rank_vs_median.md">,
     RankVsMedianMd},
    {"the rank against the median rank (JSON, compare.json's schema)", HasRankKernels, At<"rank_vs_median.json">,
     RankVsMedianJson},
    {"NVTX region report and per-region folders", HasRegions, RegionsPath, nullptr, RegionFiles},
    {"stakeholder summary of a run", IsRunFolder, At<"stakeholder_summary.md">, Summary},
    {"run report", IsRunFolder, At<"report.md">, RunReport},
    {"the report set, for programs (docs/report-set.md)", Always, At<"report_set.json">, SetJson},
    {"the page", Always, At<"report.html">, Html},
};

struct StagedFile {
  std::string relative;
  fs::path staged;
};

// A folder row, built beside its place: `staging` (empty when this set has
// no such folder and an earlier import's goes) and the files in it.
struct StagedFolder {
  std::string subdir;
  fs::path staging;
  std::vector<std::string> files;
};

Status StageFolderRow(const fs::path& out_dir, const OutputRow& row, const ReportSet& set,
                      std::vector<StagedFolder>& folders) {
  const std::string subdir = row.path(set);
  const fs::path dir = out_dir / subdir;
  RETURN_IF_ERROR(CheckReportFolder(dir));
  if (!row.when(set)) {
    folders.push_back({subdir, {}, {}});
    return OkStatus();
  }
  if (const fs::path above = fs::path(subdir).parent_path(); !above.empty()) {
    RETURN_IF_ERROR(CreateFoldersNoFollow(dir.parent_path(), above));
  }
  ASSIGN_OR_RETURN(const fs::path staging, MakeStagingFolder(dir));
  folders.push_back({subdir, staging, {}});
  return row.write_folder(set, staging, folders.back().files);
}

// The files are written by two threads where the machine has two CPUs:
// each writer only reads the set, and on a large import the four usual
// files are a fifth of the wall time. Folders are made first, in order; the
// first error in table order is the one returned, as on one thread.
Status StageFiles(const fs::path& out_dir, const fs::path& staging, const ReportSet& set,
                  std::span<const OutputRow> table, std::vector<StagedFile>& staged) {
  struct Job {
    const OutputRow* row;
    std::string relative;
    fs::path file;
    Status status = OkStatus();
  };
  std::vector<Job> jobs;
  for (const OutputRow& row : table) {
    if (row.write == nullptr || !row.when(set)) continue;
    std::string relative = row.path(set);
    RETURN_IF_ERROR(CheckOutputDestination(out_dir / relative));
    if (const fs::path above = fs::path(relative).parent_path(); !above.empty()) {
      RETURN_IF_ERROR(CreateFoldersNoFollow(staging / above, above));
    }
    fs::path file = staging / relative;
    jobs.push_back({&row, std::move(relative), std::move(file)});
  }
  std::atomic<std::size_t> next{0};
  const auto write = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < jobs.size();) {
      Job& job = jobs[i];
      job.status = WriteFileAtomically(
          job.file, [&](std::ostream& out) { job.row->write(set, out); }, Durability::kSynced);
    }
  };
  std::exception_ptr helper_error;
  std::thread helper;
  if (jobs.size() > 1 && UsableCpus() > 1) {
    try {
      helper = std::thread([&] {
        try {
          write();
        } catch (...) {  // rethrown below, in this thread
          helper_error = std::current_exception();
        }
      });
    } catch (const std::system_error&) {  // no thread: this one writes them all
    }
  }
  try {
    write();
  } catch (...) {
    next = jobs.size();  // the helper stops after its current file
    if (helper.joinable()) helper.join();
    throw;
  }
  if (helper.joinable()) helper.join();
  if (helper_error) std::rethrow_exception(helper_error);
  for (Job& job : jobs) {
    if (!job.status.ok()) return std::move(job.status);
    staged.push_back({std::move(job.relative), std::move(job.file)});
  }
  return OkStatus();
}

Status PlaceFiles(const fs::path& out_dir, const std::vector<StagedFile>& staged) {
  for (const StagedFile& f : staged) {
    if (const fs::path above = fs::path(f.relative).parent_path(); !above.empty()) {
      RETURN_IF_ERROR(CreateFoldersNoFollow(out_dir / above, above));
    }
    RETURN_IF_ERROR(MoveIntoPlace(f.staged, out_dir / f.relative));
  }
  return OkStatus();
}

// The files of `table` that this set writes, in table order, each folder
// row's files at its place.
std::vector<std::string> WrittenFiles(const ReportSet& set, std::span<const OutputRow> table,
                                      const std::vector<StagedFolder>& folders) {
  std::vector<std::string> written;
  for (const OutputRow& row : table) {
    if (!row.when(set)) continue;
    if (row.write != nullptr) {
      written.push_back(row.path(set));
      continue;
    }
    for (const auto& folder : folders) {
      if (folder.subdir != row.path(set)) continue;
      for (const auto& f : folder.files) written.push_back(folder.subdir + "/" + f);
    }
  }
  return written;
}

// Everything staged goes in place, in a few renames that a stop (Ctrl-C,
// SIGTERM) waits for: the folder holds the previous outputs or these. What
// was replaced is collected in `replaced`, to be removed afterwards.
Status Commit(const fs::path& out_dir, const std::vector<StagedFile>& staged, std::vector<StagedFolder>& folders,
              const std::vector<std::string>* record, std::vector<fs::path>& replaced) {
  CommitSection section;
  for (StagedFolder& folder : folders) {
    const fs::path dir = out_dir / folder.subdir;
    auto previous = folder.staging.empty() ? MoveAsideReportFolder(dir) : ReplaceFolder(dir, folder.staging);
    if (!previous.ok()) return std::move(previous).error();
    folder.staging.clear();  // in place now
    if (*previous) replaced.push_back(**previous);
  }
  RETURN_IF_ERROR(PlaceFiles(out_dir, staged));
  // A report the previous import wrote and this one does not (gpu_breakdown.md
  // of an earlier trace) goes: the folder holds one import's outputs.
  if (record != nullptr) RETURN_IF_ERROR(ReplaceOutputsRecord(out_dir, *record));
  section.Done();
  return OkStatus();
}

}  // namespace

std::span<const OutputRow> OutputTable() { return kOutputs; }

std::span<const OutputRow> TraceOutputRows() {
  std::size_t n = 0;
  while (n < std::size(kOutputs) && std::string_view(kOutputs[n].path(report::ReportSet{})).starts_with("trace/")) ++n;
  return std::span<const OutputRow>(kOutputs).first(n);
}

void RemoveOutputLeftovers(const fs::path& out_dir, const std::string& regions_subdir) {
  RemoveLeftovers(out_dir, kStagingName);
  const fs::path regions_dir = out_dir / regions_subdir;
  RemoveLeftovers(out_dir, regions_dir.filename().string());
  if (regions_dir.parent_path() != out_dir) {
    RemoveLeftovers(regions_dir.parent_path(), regions_dir.filename().string());
  }
}

Result<std::vector<std::string>> WriteOutputs(const fs::path& out_dir, const ReportSet& set,
                                              std::span<const OutputRow> table, bool whole_set) {
  // Every file is written before any is put in place.
  ASSIGN_OR_RETURN(const fs::path staging, MakeStagingFolder(out_dir / kStagingName));
  std::vector<StagedFile> staged;
  std::vector<StagedFolder> folders;
  Status status = StageFiles(out_dir, staging, set, table, staged);
  for (const OutputRow& row : table) {
    if (!status.ok()) break;
    if (row.write == nullptr) status = StageFolderRow(out_dir, row, set, folders);
  }
  const std::vector<std::string> written = WrittenFiles(set, table, folders);
  std::vector<fs::path> replaced;
  if (status.ok()) status = Commit(out_dir, staged, folders, whole_set ? &written : nullptr, replaced);
  // Staging left over after a failure, and the previous outputs replaced.
  std::error_code ec;
  fs::remove_all(staging, ec);
  for (const auto& folder : folders) {
    if (!folder.staging.empty()) fs::remove_all(folder.staging, ec);
  }
  for (const auto& old : replaced) fs::remove_all(old, ec);  // removes links, never follows them
  RETURN_IF_ERROR(std::move(status));
  return written;
}

}  // namespace llmpo::pipeline
