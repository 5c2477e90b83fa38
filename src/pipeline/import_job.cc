#include "src/pipeline/import_job.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <set>

#include "src/analysis/gpu_timeline.h"
#include "src/analysis/kernel_aggregator.h"
#include "src/analysis/kernel_category.h"
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

// Says what is wrong with a path before anything is read from it: missing,
// a dangling link or a loop of links, a folder, or not a regular file (a FIFO
// would block the read, a device like /dev/zero would never end).
Status CheckInputFile(const fs::path& file) {
  const std::string name = file.string();
  struct stat link_st {};
  if (::lstat(file.c_str(), &link_st) != 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) return MakeError(ExitStatus::kInput, fmt::format("{}: no such file", name));
    return MakeError(ExitStatus::kInput, fmt::format("{}: cannot be reached: {}", name, std::strerror(err)))
        .WithNote("check the permissions of the folders above it");
  }
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ELOOP) {
      return MakeError(ExitStatus::kInput,
                       fmt::format("{}: a loop of symbolic links (or too many links in a row)", name))
          .WithNote("point the link at the profiler output itself (ls -l shows where each link leads)");
    }
    if (err == ENOENT || err == ENOTDIR) {
      return MakeError(ExitStatus::kInput, fmt::format("{}: a symbolic link to a file that does not exist", name))
          .WithNote("point the link at the profiler output, or name the output itself");
    }
    return MakeError(ExitStatus::kInput, fmt::format("{}: cannot be reached: {}", name, std::strerror(err)))
        .WithNote("check the permissions of the folders above it");
  }
  if (S_ISDIR(st.st_mode)) {
    return MakeError(ExitStatus::kInput, fmt::format("{}: a folder, not a file", name))
        .WithNote(fmt::format("name the profiler outputs inside it, e.g. {}/*.csv", name));
  }
  if (!S_ISREG(st.st_mode)) {
    const char* kind = S_ISFIFO(st.st_mode)   ? "a named pipe (FIFO)"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "a special file";
    return MakeError(ExitStatus::kInput,
                     fmt::format("{}: {}, not a regular file; not read (it could block or never end)", name, kind))
        .WithNote("save the profiler output to a regular file first and import that");
  }
  return OkStatus();
}

Error ReadError(const fs::path& file, int err) {
  if (err == EACCES || err == EPERM) {
    return MakeError(ExitStatus::kInput, fmt::format("{}: cannot be read: permission denied", file.string()))
        .WithNote("make it readable (chmod a+r), or run as a user who may read it");
  }
  return MakeError(ExitStatus::kInput, fmt::format("{}: cannot be read: {}", file.string(), std::strerror(err)))
      .WithNote("check the disk, or copy or export the file again");
}

// Opens a regular file for reading without blocking (the file may have been
// swapped for a FIFO since CheckInputFile looked) and checks it again.
Result<int> OpenRegular(const fs::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return ReadError(file, errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return MakeError(ExitStatus::kInput, fmt::format("{}: not a regular file; not read", file.string()))
        .WithNote("save the profiler output to a regular file first and import that");
  }
  return fd;
}

// Reads up to `size` bytes (fewer only at the end of the file).
Result<std::size_t> ReadSome(int fd, const fs::path& file, char* buffer, std::size_t size) {
  std::size_t got = 0;
  while (got < size) {
    const ssize_t n = ::read(fd, buffer + got, size - got);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return ReadError(file, errno);
    }
    got += static_cast<std::size_t>(n);
  }
  return got;
}

Result<std::string> ReadHead(const fs::path& file) {
  ASSIGN_OR_RETURN(int fd, OpenRegular(file));
  std::string head(64 * 1024, '\0');
  Result<std::size_t> got = ReadSome(fd, file, head.data(), head.size());
  ::close(fd);
  if (!got.ok()) return std::move(got).error();
  head.resize(*got);
  return head;
}

// Text as Windows tools write it (PowerShell's Out-File, Excel): a UTF-8
// byte order mark, or UTF-16 with one.
enum class TextEncoding { kPlain, kUtf8Bom, kUtf16Le, kUtf16Be };

TextEncoding DetectEncoding(std::string_view head) {
  if (head.starts_with("\xEF\xBB\xBF")) return TextEncoding::kUtf8Bom;
  if (head.starts_with("\xFF\xFE")) return TextEncoding::kUtf16Le;
  if (head.starts_with("\xFE\xFF")) return TextEncoding::kUtf16Be;
  return TextEncoding::kPlain;
}

void AppendUtf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// UTF-16 to UTF-8, chunk by chunk: an odd byte or a high surrogate at the end
// of one chunk waits for the next; an unpaired surrogate becomes U+FFFD.
class Utf16Decoder {
 public:
  explicit Utf16Decoder(bool big_endian) : big_endian_(big_endian) {}
  void Feed(std::string_view bytes, std::string& out) {
    for (const char c : bytes) {
      if (!have_byte_) {
        byte_ = static_cast<unsigned char>(c);
        have_byte_ = true;
        continue;
      }
      have_byte_ = false;
      const auto other = static_cast<unsigned char>(c);
      const std::uint32_t unit = big_endian_ ? (byte_ << 8 | other) : (other << 8 | byte_);
      Unit(unit, out);
    }
  }
  void Finish(std::string& out) {
    if (high_ != 0 || have_byte_) AppendUtf8(out, 0xFFFD);
    high_ = 0;
    have_byte_ = false;
  }

 private:
  void Unit(std::uint32_t unit, std::string& out) {
    if (unit >= 0xDC00 && unit <= 0xDFFF && high_ != 0) {
      AppendUtf8(out, 0x10000 + ((high_ - 0xD800) << 10) + (unit - 0xDC00));
      high_ = 0;
      return;
    }
    if (high_ != 0) AppendUtf8(out, 0xFFFD);
    high_ = 0;
    if (unit >= 0xD800 && unit <= 0xDBFF) {
      high_ = unit;
    } else if (unit >= 0xDC00 && unit <= 0xDFFF) {
      AppendUtf8(out, 0xFFFD);
    } else {
      AppendUtf8(out, unit);
    }
  }
  bool big_endian_;
  bool have_byte_ = false;
  std::uint32_t byte_ = 0;
  std::uint32_t high_ = 0;
};

// Writes the input as plain UTF-8 (no byte order mark) to a temporary file
// inside the output folder, never outside it; the caller removes it.
Result<fs::path> ReencodeToUtf8(const fs::path& file, TextEncoding encoding, const fs::path& out_dir) {
  const fs::path copy = out_dir / (".llmpo-utf8-" + file.filename().string());
  ASSIGN_OR_RETURN(int fd, OpenRegular(file));
  Status read_status = OkStatus();
  Status written = WriteFileAtomically(copy, [&](std::ostream& out) {
    std::string chunk(1 << 20, '\0');
    std::string converted;
    Utf16Decoder decoder(encoding == TextEncoding::kUtf16Be);
    std::size_t skip = encoding == TextEncoding::kUtf8Bom ? 3 : 2;  // the byte order mark
    while (true) {
      Result<std::size_t> got = ReadSome(fd, file, chunk.data(), chunk.size());
      if (!got.ok()) {
        read_status = std::move(got).error();
        return;
      }
      std::string_view bytes(chunk.data(), *got);
      const std::size_t drop = std::min(skip, bytes.size());
      bytes.remove_prefix(drop);
      skip -= drop;
      if (encoding == TextEncoding::kUtf8Bom) {
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      } else {
        converted.clear();
        decoder.Feed(bytes, converted);
        if (*got < chunk.size()) decoder.Finish(converted);
        out.write(converted.data(), static_cast<std::streamsize>(converted.size()));
      }
      if (*got < chunk.size()) return;
    }
  });
  ::close(fd);
  if (!read_status.ok()) {
    std::error_code ec;
    fs::remove(copy, ec);
    return std::move(read_status).error();
  }
  RETURN_IF_ERROR(std::move(written));
  return copy;
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

// `file` is the input as named; `bytes` the file holding its content (a
// UTF-8 copy of a UTF-16 input, else `file` itself).
Status ImportDetected(const fs::path& file, const fs::path& bytes, const std::string& head, const fs::path& out_dir,
                      ingest::ImportContext& ctx, report::SourceInfo& info) {
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
  return ingest::ImporterFor(format).import(bytes, ctx);
}

Status ImportOne(const fs::path& file, const fs::path& out_dir, ingest::ImportContext& ctx, report::SourceInfo& info) {
  RETURN_IF_ERROR(CheckInputFile(file));
  ASSIGN_OR_RETURN(std::string head, ReadHead(file));
  const TextEncoding encoding = DetectEncoding(head);
  if (encoding == TextEncoding::kPlain) return ImportDetected(file, file, head, out_dir, ctx, info);
  // A byte order mark: read a plain UTF-8 copy, named in messages as the input.
  ASSIGN_OR_RETURN(fs::path copy, ReencodeToUtf8(file, encoding, out_dir));
  Result<std::string> copy_head = ReadHead(copy);
  Status status = copy_head.ok() ? ImportDetected(file, copy, *copy_head, out_dir, ctx, info)
                                 : Status(std::move(copy_head).error());
  std::error_code ec;
  fs::remove(copy, ec);
  return status;
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
  ASSIGN_OR_RETURN(analysis::KernelCategorizer categorizer,
                   analysis::KernelCategorizer::Create(request.regions.categories));
  analysis::KernelAggregator aggregator;
  analysis::GpuTimeline timeline;
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
    timeline.SetSource(info.path);
    builders.push_back(std::make_unique<analysis::RegionBuilder>(info.path, filter, region_diagnostics));
    TeeSink kernels_and_timeline(aggregator, timeline);
    TeeSink tee(kernels_and_timeline, *builders.back());
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
  report::AnalyzeKernels(outcome.report, categorizer);
  outcome.report.gpu_busy = timeline.Busy();
  RETURN_IF_ERROR(
      WriteFileAtomically(request.out_dir / "kernels.md", report::KernelsMarkdown(outcome.report, request.top_k)));
  RETURN_IF_ERROR(WriteFileAtomically(request.out_dir / "kernels.json", report::KernelsJson(outcome.report)));
  outcome.written = {"kernels.md", "kernels.json"};
  if (regions.saw_nvtx) {
    model::Diagnostics merged = outcome.report.diagnostics;
    merged.Merge(region_diagnostics);
    report::RegionsReport region_report = report::BuildRegionsReport(
        regions, outcome.report.sources, request.regions.selection, request.regions.aggregate, merged, &categorizer);
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
