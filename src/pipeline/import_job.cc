#include "src/pipeline/import_job.h"

#include <fmt/format.h>
#include <sched.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <set>

#include "src/analysis/kernel_aggregator.h"
#include "src/analysis/region_combine.h"
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

// An .nsys-rep (or the older .qdrep) is read through `nsys export --type
// sqlite`, whose output is kept beside the reports.
Result<fs::path> ConvertNsysReport(const fs::path& file, const fs::path& out_dir) {
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
  ASSIGN_OR_RETURN(ProcessResult run, RunToFiles({"nsys", "export", "--type", "sqlite", "--force-overwrite", "true",
                                                  "--output", sqlite.string(), file.string()},
                                                 out_dir / (file.stem().string() + ".export.stdout.log"), log));
  if (run.exit_code != 0 || !fs::exists(sqlite)) {
    return MakeError(ExitStatus::kToolFailed,
                     fmt::format("{} exited with {}; see {}", command, run.exit_code, log.string()));
  }
  return sqlite;
}

bool IsNsysReportName(const fs::path& file) {
  const std::string ext = file.extension().string();
  return ext == ".nsys-rep" || ext == ".qdrep";
}

Status ImportOne(const fs::path& file, const fs::path& out_dir, ingest::ImportContext& ctx, report::SourceInfo& info) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) {
    return MakeError(ExitStatus::kInput, fmt::format("{}: no such file", file.string()));
  }
  const std::string head = ReadHead(file);
  const ingest::InputFormat format = ingest::DetectFormat(head);
  info.format = std::string(ingest::ToString(format));
  info.family = ingest::ImporterFor(format).family;
  if (format == ingest::InputFormat::kUnknown) {
    if (!IsNsysReportName(file)) return Unrecognised(file, head);
    ASSIGN_OR_RETURN(fs::path sqlite, ConvertNsysReport(file, out_dir));
    const ingest::Importer& importer = ingest::ImporterFor(ingest::InputFormat::kNsysSqlite);
    info.format = std::string(importer.name);
    info.family = importer.family;
    return importer.import(sqlite, ctx);
  }
  if (format == ingest::InputFormat::kNcuReport) {
    ASSIGN_OR_RETURN(fs::path csv, ConvertNcuReport(file, out_dir));
    return ingest::ImporterFor(ingest::InputFormat::kNcuDetailsCsv).import(csv, ctx);
  }
  return ingest::ImporterFor(format).import(file, ctx);
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
  void OnNvtxKernelRow(const model::NvtxKernelRow& r) override {
    a_.OnNvtxKernelRow(r);
    b_.OnNvtxKernelRow(r);
  }
  void OnApiSummary(const model::ApiSummaryRow& r) override { a_.OnApiSummary(r); }
  void OnGpuOpSummary(const model::GpuOpSummaryRow& r) override { a_.OnGpuOpSummary(r); }
  void OnLaunchOverhead(const model::LaunchOverheadRow& r) override { a_.OnLaunchOverhead(r); }

 private:
  model::RecordSink& a_;
  model::RecordSink& b_;
};

// Metrics the catalogue does not know were averaged, the safe rule: each is
// named once in Data quality; so are values left out for their unit.
void ReportUnknownMetricRules(report::KernelsReport& report) {
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& k : report.kernels) {
    for (const auto& m : k.metrics) {
      if (m.unit_conflicts > 0) {
        report.diagnostics.Add("metric_unit_conflict", model::Severity::kWarning,
                               fmt::format("kernel '{}', metric '{}': {} value(s) in a unit other than '{}' that "
                                           "cannot be normalised to it; left out of its aggregate",
                                           k.name, m.name, m.unit_conflicts, m.unit));
      }
      if (m.rule_known || !seen.emplace(m.section, m.name).second) continue;
      report.diagnostics.Add("metric_rule_unknown", model::Severity::kInfo,
                             fmt::format("metric '{}'{}: not in the metric catalogue, so averaged over launches (never "
                                         "summed)",
                                         m.name, m.section.empty() ? "" : fmt::format(" (section '{}')", m.section)));
    }
  }
}

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
  void OnNvtxKernelRow(const model::NvtxKernelRow& row) override { next_.OnNvtxKernelRow(row); }
  void OnApiSummary(const model::ApiSummaryRow& row) override { next_.OnApiSummary(row); }
  void OnGpuOpSummary(const model::GpuOpSummaryRow& row) override { next_.OnGpuOpSummary(row); }
  void OnLaunchOverhead(const model::LaunchOverheadRow& row) override { next_.OnLaunchOverhead(row); }

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
  // One region builder per input: CombineRegions decides what adds up.
  std::vector<std::unique_ptr<analysis::RegionBuilder>> builders;
  std::vector<analysis::SourceRegions> region_sources;
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
    builders.push_back(std::make_unique<analysis::RegionBuilder>(info.path, filter, region_diagnostics));
    TeeSink tee(aggregator, *builders.back());
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
    region_sources.push_back({builders.back().get(), info.family});
    outcome.report.sources.push_back(std::move(info));
  }
  for (auto& b : builders) b->Finish();
  const analysis::CombinedRegions regions = analysis::CombineRegions(region_sources);
  outcome.report.kernels = aggregator.Sorted();
  outcome.report.runtime = aggregator.runtime();
  if (outcome.report.runtime.repeated_rows > 0) {
    outcome.report.diagnostics.Note(fmt::format(
        "{} nsys summary row(s) repeat what an earlier input gave (the same report imported twice?); not added",
        outcome.report.runtime.repeated_rows));
  }
  ReportUnknownMetricRules(outcome.report);
  RETURN_IF_ERROR(
      WriteFileAtomically(request.out_dir / "kernels.md", report::KernelsMarkdown(outcome.report, request.top_k)));
  RETURN_IF_ERROR(WriteFileAtomically(request.out_dir / "kernels.json", report::KernelsJson(outcome.report)));
  outcome.written = {"kernels.md", "kernels.json"};
  if (regions.saw_nvtx) {
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
