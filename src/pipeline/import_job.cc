#include "src/pipeline/import_job.h"

#include <fmt/format.h>
#include <sched.h>

#include <cstdlib>
#include <fstream>
#include <optional>

#include "src/analysis/kernel_aggregator.h"
#include "src/analysis/region_tree.h"
#include "src/core/atomic_file.h"
#include "src/ingest/importer.h"
#include "src/ingest/llmpo_trace.h"
#include "src/ingest/text_lines.h"
#include "src/pipeline/environment.h"
#include "src/pipeline/process.h"
#include "src/report/regions_report.h"

namespace llmpo::pipeline {
namespace fs = std::filesystem;

namespace {

std::string ReadHead(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::string head(64 * 1024, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return head;
}

Error Unrecognised(const fs::path& file, const std::string& head) {
  Error e = MakeError(ExitStatus::kInput, fmt::format("{}: not a profiler output this tool reads", file.string()));
  if (head.find("==ERROR==") != std::string::npos || head.find("==PROF==") != std::string::npos) {
    std::move(e).WithNote("it is ncu console output with no CSV: the profiled run failed or profiled nothing");
    std::size_t shown = 0;
    for (std::string_view line : ingest::SplitLines(head)) {
      if ((line.starts_with("==ERROR==") || line.starts_with("==WARNING==")) && shown++ < 3) {
        std::move(e).WithNote(fmt::format("ncu said: {}", line));
      }
    }
    if (head.find("No kernels were profiled") != std::string::npos) {
      std::move(e).WithNote(
          "no kernel matched the filters: check --kernel-name, --nvtx-include (push/pop ranges "
          "need a trailing '/'), --launch-skip/--launch-count");
    }
    return e;
  }
  return std::move(e).WithNote(
      "expected: ncu CSV (--csv --page details|raw, --print-summary), nsys stats CSV, an nsys SQLite export, or "
      ".ncu-rep");
}

// A binary .ncu-rep is read through `ncu --import`, whose CSV is kept beside
// the reports so the numbers can be traced back.
Result<fs::path> ConvertNcuReport(const fs::path& file, const fs::path& out_dir) {
  if (!FindOnPath("ncu")) {
    return MakeError(ExitStatus::kToolMissing,
                     fmt::format("{}: a binary Nsight Compute report; reading it needs ncu, which is not on PATH",
                                 file.string()))
        .WithNote("install Nsight Compute (or add it to PATH), or export CSV where ncu exists: ncu --import " +
                  file.string() + " --csv --page details --print-units base > report.csv");
  }
  const fs::path csv = out_dir / (file.stem().string() + ".details.csv");
  const fs::path log = out_dir / (file.stem().string() + ".import.log");
  ASSIGN_OR_RETURN(
      ProcessResult run,
      RunToFiles({"ncu", "--import", file.string(), "--csv", "--page", "details", "--print-units", "base"}, csv, log));
  if (run.exit_code != 0) {
    return MakeError(ExitStatus::kToolFailed,
                     fmt::format("ncu --import {} exited with {}; see {}", file.string(), run.exit_code, log.string()));
  }
  return csv;
}

Status ImportOne(const fs::path& file, const fs::path& out_dir, ingest::ImportContext& ctx, report::SourceInfo& info) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) {
    return MakeError(ExitStatus::kInput, fmt::format("{}: no such file", file.string()));
  }
  const std::string head = ReadHead(file);
  const ingest::InputFormat format = ingest::DetectFormat(head);
  info.format = std::string(ingest::ToString(format));
  switch (format) {
    case ingest::InputFormat::kUnknown:
      return Unrecognised(file, head);
    case ingest::InputFormat::kNsysSqlite:
      return ingest::ImportNsysSqlite(file, ctx);
    case ingest::InputFormat::kNcuReport: {
      ASSIGN_OR_RETURN(fs::path csv, ConvertNcuReport(file, out_dir));
      std::ifstream in(csv, std::ios::binary);
      return ingest::ImportNcuCsv(in, ctx);
    }
    case ingest::InputFormat::kLlmpoTrace: {
      std::ifstream in(file, std::ios::binary);
      return ingest::ImportLlmpoTraceRecords(in, ctx);
    }
    case ingest::InputFormat::kNsysStatsCsv: {
      std::ifstream in(file, std::ios::binary);
      return ingest::ImportNsysStatsCsv(in, ctx);
    }
    default: {
      std::ifstream in(file, std::ios::binary);
      return ingest::ImportNcuCsv(in, ctx);
    }
  }
}

// Feeds every record to both the kernel table and the region builder.
class TeeSink : public model::RecordSink {
 public:
  TeeSink(model::RecordSink& a, model::RecordSink& b) : a_(a), b_(b) {}
  void OnLaunch(const model::LaunchRecord& l) override {
    a_.OnLaunch(l);
    b_.OnLaunch(l);
  }
  void OnKernelSummary(const model::KernelSummaryRow& r) override {
    a_.OnKernelSummary(r);
    b_.OnKernelSummary(r);
  }
  void OnNvtxRange(const model::NvtxRange& r) override {
    a_.OnNvtxRange(r);
    b_.OnNvtxRange(r);
  }

 private:
  model::RecordSink& a_;
  model::RecordSink& b_;
};

// Reading ahead on a second thread (CsvReader::StartReadAhead) is opt-in:
// LLMPO_READ_AHEAD=1, on a process that may use two or more CPUs. On the
// 2-vCPU VM we benchmark on it was faster in some runs and slower in others
// (cross-core traffic; bench/RESULTS.md), so one thread stays the default.
bool ReadAheadWanted() {
  const char* env = std::getenv("LLMPO_READ_AHEAD");
  if (env == nullptr || std::string_view(env) != "1") return false;
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  if (sched_getaffinity(0, sizeof(cpus), &cpus) != 0) return false;
  return CPU_COUNT(&cpus) > 1;
}

// Puts every launch of a per-region capture inside that region (outermost),
// keeping whatever NVTX stack the capture recorded beneath it.
class RegionTagSink : public model::RecordSink {
 public:
  RegionTagSink(model::RecordSink& next, const std::string& label) : next_(next) {
    const auto at = label.find('@');
    frame_ = at == std::string::npos ? model::NvtxFrame{"", label, std::nullopt}
                                     : model::NvtxFrame{label.substr(0, at), label.substr(at + 1), std::nullopt};
  }
  void OnLaunch(const model::LaunchRecord& launch) override {
    model::LaunchRecord tagged = launch;
    tagged.has_nvtx = true;
    if (tagged.nvtx_stack.empty() || !(tagged.nvtx_stack.front() == frame_)) {
      tagged.nvtx_stack.insert(tagged.nvtx_stack.begin(), frame_);
    }
    next_.OnLaunch(tagged);
  }
  void OnKernelSummary(const model::KernelSummaryRow& row) override { next_.OnKernelSummary(row); }
  void OnNvtxRange(const model::NvtxRange& range) override { next_.OnNvtxRange(range); }

 private:
  model::RecordSink& next_;
  model::NvtxFrame frame_;
};

Status WriteRegionFiles(const fs::path& dir, const std::string& subdir, const report::RegionsReport& report,
                        std::vector<std::string>& written) {
  // Per-region files are new files in a new folder, written once: plain
  // writes, no temp file and rename (thousands of regions make that cost
  // seconds). The two top files above are written atomically.
  // Neither follows a symbolic link planted in the output folder.
  auto write = [&](const std::string& relative, const std::string& text) -> Status {
    RETURN_IF_ERROR(WriteFileNoFollow(dir / relative, text));
    written.push_back(subdir + "/" + relative);
    return OkStatus();
  };
  RETURN_IF_ERROR(CreateFoldersNoFollow(dir, subdir));
  RETURN_IF_ERROR(
      WriteFileAtomically(dir / "report.md", [&](std::ostream& out) { report::WriteRegionsMarkdown(report, out); }));
  written.push_back(subdir + "/report.md");
  RETURN_IF_ERROR(
      WriteFileAtomically(dir / "report.json", [&](std::ostream& out) { report::WriteRegionsJson(report, out); }));
  written.push_back(subdir + "/report.json");
  auto per_region = [&](const std::vector<report::RegionEntry>& entries) -> Status {
    for (const auto& e : entries) {
      RETURN_IF_ERROR(CreateFoldersNoFollow(dir / e.folder, e.folder));
      RETURN_IF_ERROR(write(e.folder + "/report.md", report::RegionMarkdown(e, report.selection)));
      RETURN_IF_ERROR(write(e.folder + "/report.json", report::RegionJson(e, report.selection)));
      RETURN_IF_ERROR(write(e.folder + "/kernels.csv", report::RegionKernelsCsv(e, report.selection)));
      if (!report.selection.sections.empty()) {
        RETURN_IF_ERROR(write(e.folder + "/sections_report.txt", report::RegionSectionsText(e, report.selection)));
      }
    }
    return OkStatus();
  };
  if (report.aggregate) return per_region(*report.aggregate);
  for (const auto& scope : report.scopes) RETURN_IF_ERROR(per_region(scope.regions));
  return OkStatus();
}

}  // namespace

Result<ImportOutcome> RunImport(const ImportRequest& request, const ExtraReports& extra) {
  std::error_code ec;
  fs::create_directories(request.out_dir, ec);
  if (ec) {
    return MakeError(ExitStatus::kFailure,
                     fmt::format("cannot create output folder '{}': {}", request.out_dir.string(), ec.message()));
  }
  ImportOutcome outcome;
  analysis::KernelAggregator aggregator;
  ASSIGN_OR_RETURN(analysis::KernelFilter filter,
                   analysis::KernelFilter::Create(request.regions.kernels, request.regions.per_region));
  model::Diagnostics region_diagnostics;
  analysis::RegionBuilder regions(filter, region_diagnostics);
  TeeSink tee(aggregator, regions);
  const bool read_ahead = ReadAheadWanted();
  for (const auto& file : request.inputs) {
    std::string label = file.string();
    if (request.label_base) {
      std::error_code rel_ec;
      const fs::path rel = fs::relative(file, *request.label_base, rel_ec);
      if (!rel_ec && !rel.empty() && *rel.begin() != "..") label = rel.string();
    }
    report::SourceInfo info{label, "unknown", "ok"};
    aggregator.SetSource(info.path);
    const auto capture = request.capture_regions.find(file.string());
    std::optional<RegionTagSink> tagged;
    if (capture != request.capture_regions.end()) tagged.emplace(tee, capture->second);
    model::RecordSink& sink = tagged ? static_cast<model::RecordSink&>(*tagged) : tee;
    ingest::ImportContext ctx{info.path, sink, outcome.report.diagnostics};
    ctx.read_ahead = read_ahead;
    Status status = ImportOne(file, request.out_dir, ctx, info);
    if (!status.ok()) {
      info.status = "failed: " + status.error().message;
      outcome.failures.push_back(std::move(status).error());
    }
    outcome.report.sources.push_back(std::move(info));
  }
  outcome.report.kernels = aggregator.Sorted();
  RETURN_IF_ERROR(
      WriteFileAtomically(request.out_dir / "kernels.md", report::KernelsMarkdown(outcome.report, request.top_k)));
  RETURN_IF_ERROR(WriteFileAtomically(request.out_dir / "kernels.json", report::KernelsJson(outcome.report)));
  outcome.written = {"kernels.md", "kernels.json"};
  if (regions.saw_nvtx()) {
    regions.Finish();
    model::Diagnostics merged = outcome.report.diagnostics;
    merged.Merge(region_diagnostics);
    report::RegionsReport region_report = report::BuildRegionsReport(
        regions, outcome.report.sources, request.regions.selection, request.regions.aggregate, merged);
    for (const auto& unused : filter.UnusedPatterns()) {
      region_report.notes.push_back(fmt::format("kernel pattern {} matched no kernel", unused));
    }
    RETURN_IF_ERROR(WriteRegionFiles(request.out_dir / request.regions_subdir, request.regions_subdir, region_report,
                                     outcome.written));
    if (extra) {
      ASSIGN_OR_RETURN(auto files, extra(outcome.report, &region_report));
      outcome.written.insert(outcome.written.end(), files.begin(), files.end());
    }
    return outcome;
  }
  if (extra) {
    ASSIGN_OR_RETURN(auto files, extra(outcome.report, nullptr));
    outcome.written.insert(outcome.written.end(), files.begin(), files.end());
  }
  return outcome;
}

}  // namespace llmpo::pipeline
