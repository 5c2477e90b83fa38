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
#include <tuple>

#include "src/analysis/gpu_timeline.h"
#include "src/analysis/kernel_aggregator.h"
#include "src/analysis/kernel_category.h"
#include "src/analysis/launch_pairing.h"
#include "src/analysis/region_combine.h"
#include "src/analysis/region_tree.h"
#include "src/core/atomic_file.h"
#include "src/core/utf8.h"
#include "src/ingest/importer.h"
#include "src/ingest/llmpo_trace.h"
#include "src/ingest/text_lines.h"
#include "src/pipeline/environment.h"
#include "src/pipeline/input_dedupe.h"
#include "src/pipeline/output_folder.h"
#include "src/pipeline/parallel_tee.h"
#include "src/pipeline/process.h"
#include "src/pipeline/tee_sink.h"
#include "src/report/gpu_breakdown_report.h"
#include "src/report/html_report.h"
#include "src/report/regions_report.h"
#include "src/report/run_model.h"

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
    if (err == ENOENT || err == ENOTDIR) {
      Error missing = MakeError(ExitStatus::kInput, fmt::format("{}: no such file", name));
      // "key=value" given where an input goes: a config override without --set.
      if (name.find('=') != std::string::npos && name.find('/') == std::string::npos) {
        return std::move(missing).WithNote(fmt::format("a config override goes after --set: --set '{}'", name));
      }
      return missing;
    }
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
      "expected: ncu CSV (--csv --page details|raw, --print-summary), nsys stats CSV, an nsys SQLite export or "
      ".nsys-rep, .ncu-rep, a PyTorch profiler (Kineto) trace (.json, .json.gz, a .tar.gz of ranks), or a trace "
      "written by `llm-perf-opt trace`");
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

// The zstd container of a report (.ncu-repz) is documented by NVIDIA but no
// such file could be checked (ncu-rep-format.md §2), so it is not guessed at.
Error CompressedNcuReport(const fs::path& file) {
  fs::path plain = file;
  plain.replace_extension(".ncu-rep");
  return MakeError(ExitStatus::kInput,
                   fmt::format("{}: a compressed Nsight Compute report (.ncu-repz), which this tool does not read",
                               file.string()))
      .WithNote(fmt::format("decompress it and import the result: zstd -d {} -o {}", file.string(), plain.string()));
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
    if (file.extension() == ".ncu-repz") return CompressedNcuReport(file);
    if (!IsNsysReportName(file)) return Unrecognised(file, head);
    ASSIGN_OR_RETURN(fs::path sqlite, ConvertNsysReport(file, out_dir));
    const ingest::Importer& importer = ingest::ImporterFor(ingest::InputFormat::kNsysSqlite);
    info.format = std::string(importer.name);
    info.family = importer.family;
    return importer.import(sqlite, ctx);
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

// Whether the inputs may hold both a timeline and an ncu capture, judged
// from their first bytes before any is imported: launch-by-launch pairing
// keeps a copy of every launch, so it runs only where it can be used. An
// input that cannot be judged here (a byte order mark, an unreadable file)
// counts as either.
bool TimelineAndNcuPossible(const std::vector<fs::path>& inputs) {
  bool timeline = false, ncu = false;
  for (const auto& file : inputs) {
    Result<std::string> head = ReadHead(file);
    if (!head.ok() || DetectEncoding(*head) != TextEncoding::kPlain) {
      timeline = ncu = true;
      continue;
    }
    const ingest::InputFormat format = ingest::DetectFormat(*head);
    if (format == ingest::InputFormat::kUnknown) {
      timeline = timeline || IsNsysReportName(file);  // converted to SQLite on import
      continue;
    }
    const model::SourceFamily family = ingest::ImporterFor(format).family;
    timeline = timeline || family == model::SourceFamily::kTimeline;
    ncu = ncu || family == model::SourceFamily::kNcu;
  }
  return timeline && ncu;
}

// Drops everything (a tee's unused branch).
class NullSink : public model::RecordSink {
 public:
  void OnLaunch(const model::LaunchRecord&) override {}
  void OnKernelSummary(const model::KernelSummaryRow&) override {}
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
  void OnGpuBreakdown(const model::GpuBreakdown& b) override { next_.OnGpuBreakdown(b); }

 private:
  model::RecordSink& next_;
  model::NvtxFrame frame_;
};

// Every file of the region report into `dir` (a new, empty folder), named
// relative to it in `files`. Nothing follows a symbolic link.
Status WriteRegionFiles(const fs::path& dir, const report::RegionsReport& report, std::vector<std::string>& files) {
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
      RETURN_IF_ERROR(write(e.folder + "/report.md", report::RegionMarkdown(e, report.selection)));
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

// The region report as a whole: built in a hidden folder beside `dir`, then
// swapped in (src/pipeline/output_folder.h); the previous one goes entirely.
Status WriteRegionFolder(const fs::path& dir, const std::string& subdir, const report::RegionsReport& report,
                         std::vector<std::string>& written) {
  RETURN_IF_ERROR(CheckReportFolder(dir));
  if (const fs::path above = fs::path(subdir).parent_path(); !above.empty()) {
    RETURN_IF_ERROR(CreateFoldersNoFollow(dir.parent_path(), above));
  }
  ASSIGN_OR_RETURN(const fs::path staging, MakeStagingFolder(dir));
  std::vector<std::string> files;
  Status status = WriteRegionFiles(staging, report, files);
  if (status.ok()) status = ReplaceFolder(dir, staging);
  if (!status.ok()) {
    std::error_code ec;
    fs::remove_all(staging, ec);
    return status;
  }
  for (const auto& f : files) written.push_back(subdir + "/" + f);
  return OkStatus();
}

// A timeline (a Kineto trace, an nsys export) imported with an ncu page of
// the same program: one kernel table with the timeline's durations and, per
// kernel name, ncu's metrics (kernels_combined.md / .json).
Status WriteCombinedKernels(const ImportRequest& request, const analysis::LaunchPairing& pairing,
                            ImportOutcome& outcome) {
  bool timeline = false, ncu = false;
  for (const auto& s : outcome.report.sources) {
    if (s.status != "ok") continue;
    timeline = timeline || s.family == model::SourceFamily::kTimeline;
    ncu = ncu || s.family == model::SourceFamily::kNcu;
  }
  if (!timeline || !ncu) return OkStatus();
  report::KernelsReport combined = outcome.report;
  std::string times_from;
  combined.kernels = report::TimesFromOneSource(outcome.report, &times_from);
  std::size_t matched = 0;
  for (const auto& k : combined.kernels) matched += k.metrics.empty() ? 0 : 1;
  for (const auto& s : outcome.report.sources) {
    if (s.status != "ok" || s.family != model::SourceFamily::kNcu) continue;
    std::size_t own = 0;
    for (const auto& k : outcome.report.kernels) own += k.source == s.path ? 1 : 0;
    combined.source_notes[s.path] = fmt::format(
        "Its {} kernel(s) lend ncu's metrics to the same-named kernels above (kernels.md has its own table).", own);
  }
  if (matched == 0) {
    combined.diagnostics.Add("kernels_combined_no_match", model::Severity::kWarning,
                             fmt::format("none of the {} kernel name(s) of {} is a kernel name of the ncu input(s); "
                                         "profile the same kernels, or with ncu --kernel-name-base demangled",
                                         combined.kernels.size(), times_from));
  }
  const analysis::PairingResult paired = pairing.Pair(times_from, combined.diagnostics);
  combined.region_kernels = paired.rows;
  combined.diagnostics.Note(fmt::format(
      "kernels_combined: durations from {}; metrics from same-named kernels of the ncu input(s) ({} of {} kernel(s) "
      "matched by name); per region, {} kernel(s) paired with ncu's results launch by launch, {} by name only",
      times_from, matched, combined.kernels.size(), paired.kernels_by_launch, paired.kernels_by_name));
  RETURN_IF_ERROR(
      WriteFileAtomically(request.out_dir / "kernels_combined.md", report::KernelsMarkdown(combined, request.top_k)));
  RETURN_IF_ERROR(WriteFileAtomically(request.out_dir / "kernels_combined.json", report::KernelsJson(combined)));
  outcome.written.push_back("kernels_combined.md");
  outcome.written.push_back("kernels_combined.json");
  return OkStatus();
}

Status WriteHtmlReport(const ImportRequest& request, const report::KernelsReport& kernels,
                       const report::RegionsReport* regions, const std::optional<report::TimelineOverview>& timeline) {
  report::RunContext context;
  if (request.html_run) {
    context = *request.html_run;
  } else if (!kernels.sources.empty()) {
    // Named by its inputs, not by where it is written: the same inputs give the same page.
    context.run_name = fs::path(kernels.sources.front().path).filename().string();
    if (kernels.sources.size() > 1) context.run_name += fmt::format(" and {} more", kernels.sources.size() - 1);
  }
  const report::RunModel run = report::BuildRunModel(context, kernels, regions);
  report::HtmlReportInput input{&run, &kernels, regions, timeline ? &*timeline : nullptr, request.trace_json_link};
  return WriteFileAtomically(request.out_dir / "report.html", report::HtmlReport(input));
}

}  // namespace

Result<ImportOutcome> RunImport(const ImportRequest& request, const ExtraReports& extra) {
  std::error_code ec;
  fs::create_directories(request.out_dir, ec);
  if (ec) {
    return MakeError(ExitStatus::kFailure,
                     fmt::format("cannot create output folder '{}': {}", request.out_dir.string(), ec.message()));
  }
  // What an import killed half-way left (callers hold the folder's lock).
  const fs::path regions_dir = request.out_dir / request.regions_subdir;
  RemoveLeftovers(request.out_dir, regions_dir.filename().string());
  if (regions_dir.parent_path() != request.out_dir) {
    RemoveLeftovers(regions_dir.parent_path(), regions_dir.filename().string());
  }
  ImportOutcome outcome;
  ASSIGN_OR_RETURN(analysis::KernelCategorizer categorizer,
                   analysis::KernelCategorizer::Create(request.regions.categories));
  analysis::KernelAggregator aggregator;
  report::TimelineCollector timeline;  // report.html's timeline overview when an input is a timeline
  analysis::GpuTimeline gpu_timeline;  // GPU busy and idle per device, for the reports
  ASSIGN_OR_RETURN(analysis::KernelFilter filter,
                   analysis::KernelFilter::Create(request.regions.kernels, request.regions.per_region));
  model::Diagnostics region_diagnostics;
  // One region builder per input: CombineRegions decides what adds up.
  std::vector<std::unique_ptr<analysis::RegionBuilder>> builders;
  std::vector<analysis::SourceRegions> region_sources;
  const bool read_ahead = ReadAheadWanted();
  model::GpuBreakdown gpu_breakdown;
  // Launch-by-launch pairing of a timeline with ncu (kernels_combined): it
  // buffers launches, so only where a timeline and an ncu input could meet.
  analysis::LaunchPairing pairing;
  NullSink no_pairing;
  model::RecordSink& pairing_sink = request.inputs.size() > 1 && TimelineAndNcuPossible(request.inputs)
                                        ? static_cast<model::RecordSink&>(pairing)
                                        : no_pairing;
  const std::vector<fs::path> inputs = UniqueInputs(request.inputs, outcome.report.diagnostics);
  for (const auto& file : inputs) {
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
    gpu_timeline.SetSource(info.path);
    // The region builder beside the rest: on a thread of its own for
    // importers that hand launches over in batches (Kineto traces).
    TeeSink with_busy(aggregator, gpu_timeline, gpu_breakdown);
    TeeSink with_timeline(with_busy, timeline, gpu_breakdown);
    TeeSink kernels_and_timelines(with_timeline, pairing_sink, gpu_breakdown);
    ParallelTee tee(kernels_and_timelines, *builders.back(), gpu_breakdown);
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
    pairing.EndInput(info.path, status.ok() ? info.family : model::SourceFamily::kSummary);
    outcome.report.sources.push_back(std::move(info));
  }
  // Every input failed before its first row: reports of no data would
  // replace what the folder holds (an earlier good import), so the folder
  // is left as it is. What a failed input read before its error is reported.
  if (outcome.failures.size() == inputs.size() && outcome.report.diagnostics.rows_read() == 0) return outcome;
  for (auto& b : builders) b->Finish();
  const analysis::CombinedRegions regions = analysis::CombineRegions(region_sources);
  outcome.report.kernels = aggregator.Sorted();
  outcome.report.runtime = aggregator.runtime();
  if (outcome.report.runtime.repeated_rows > 0) {
    outcome.report.diagnostics.Note(fmt::format(
        "{} nsys summary row(s) repeat what an earlier input gave (the same report imported twice?); not added",
        outcome.report.runtime.repeated_rows));
  }
  if (outcome.report.runtime.repeated_launch_paths > 0) {
    outcome.report.diagnostics.Note(fmt::format(
        "{} launch overhead row(s) measure launches an earlier input already gave (same process, thread, device, "
        "API and kernel: a timeline and its run's cuda_kern_exec_sum?); the earlier input's rows are kept",
        outcome.report.runtime.repeated_launch_paths));
  }
  ReportUnknownMetricRules(outcome.report);
  report::AnalyzeKernels(outcome.report, categorizer);
  outcome.report.gpu_busy = gpu_timeline.Busy();
  RETURN_IF_ERROR(
      WriteFileAtomically(request.out_dir / "kernels.md", report::KernelsMarkdown(outcome.report, request.top_k)));
  RETURN_IF_ERROR(WriteFileAtomically(request.out_dir / "kernels.json", report::KernelsJson(outcome.report)));
  outcome.written = {"kernels.md", "kernels.json"};
  RETURN_IF_ERROR(WriteCombinedKernels(request, pairing, outcome));
  if (!gpu_breakdown.devices.empty() || !gpu_breakdown.cpu_ops.empty()) {
    // Ranks in rank order (an archive lists its members in any order).
    std::stable_sort(gpu_breakdown.devices.begin(), gpu_breakdown.devices.end(), [](const auto& a, const auto& b) {
      return std::tuple(!a.rank.has_value(), a.rank.value_or(0)) < std::tuple(!b.rank.has_value(), b.rank.value_or(0));
    });
    RETURN_IF_ERROR(WriteFileAtomically(request.out_dir / "gpu_breakdown.md",
                                        report::GpuBreakdownMarkdown(gpu_breakdown, request.top_k)));
    RETURN_IF_ERROR(
        WriteFileAtomically(request.out_dir / "gpu_breakdown.json", report::GpuBreakdownJson(gpu_breakdown)));
    outcome.written.push_back("gpu_breakdown.md");
    outcome.written.push_back("gpu_breakdown.json");
  }
  const report::RegionsReport* html_regions = nullptr;
  std::optional<report::RegionsReport> region_report;
  if (regions.saw_nvtx) {
    model::Diagnostics merged = outcome.report.diagnostics;
    merged.Merge(region_diagnostics);
    region_report = report::BuildRegionsReport(regions, outcome.report.sources, request.regions.selection,
                                               request.regions.aggregate, merged, &categorizer);
    for (const auto& unused : filter.UnusedPatterns()) {
      region_report->notes.push_back(fmt::format("kernel pattern {} matched no kernel", unused));
    }
    report::LimitRegionFolders(*region_report, request.regions.max_folders);
    RETURN_IF_ERROR(WriteRegionFolder(request.out_dir / request.regions_subdir, request.regions_subdir, *region_report,
                                      outcome.written));
    html_regions = &*region_report;
  } else {
    // No region report this time: the previous import's must not pass for one.
    RETURN_IF_ERROR(RemoveReportFolder(request.out_dir / request.regions_subdir));
  }
  if (extra) {
    ASSIGN_OR_RETURN(auto files, extra(outcome.report, html_regions));
    outcome.written.insert(outcome.written.end(), files.begin(), files.end());
  }
  // A trace run's overview (from its traces: copies and NVTX ranges too) wins over the launches'.
  const std::optional<report::TimelineOverview> streamed = request.timeline ? std::nullopt : timeline.Finish();
  RETURN_IF_ERROR(
      WriteHtmlReport(request, outcome.report, html_regions, request.timeline ? request.timeline : streamed));
  outcome.written.push_back("report.html");
  // A report the previous import wrote and this one does not (gpu_breakdown.md
  // of an earlier trace) goes: the folder holds one import's outputs.
  RETURN_IF_ERROR(ReplaceOutputsRecord(request.out_dir, outcome.written));
  return outcome;
}

}  // namespace llmpo::pipeline
