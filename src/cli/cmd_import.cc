#include <fmt/format.h>
#include <string.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>

#include "src/cli/diagnostics.h"
#include "src/cli/mpi_import.h"
#include "src/cli/parse_args.h"
#include "src/cli/partial_cli.h"
#include "src/cli/run_common.h"
#include "src/ingest/input_file.h"
#include "src/pipeline/import_job.h"
#include "src/pipeline/import_stop.h"
#include "src/pipeline/mpi_share.h"
#include "src/pipeline/outputs.h"
#include "src/pipeline/run_lock.h"

namespace llmpo::cli {
namespace fs = std::filesystem;
namespace {

// Rows or events lost to damaged input reach stderr too, not only the
// reports' Data quality section: the import still succeeds (exit 0) with
// what was readable, so the user must hear that part of the input is missing.
void WarnDataLoss(const model::Diagnostics& diagnostics, bool written) {
  for (const auto& [code, entry] : diagnostics.entries()) {
    if (entry.severity != model::Severity::kDataLoss) continue;
    std::string message = fmt::format("data loss ({}, {} time(s)): {}", code, entry.count, entry.first_example);
    if (written) message += "; the Data quality section of kernels.md lists every case";
    ReportWarning(MakeError(ExitStatus::kOk, std::move(message)));
  }
}

// Ctrl-C or SIGTERM (on the stop thread): what this import made in `out`
// goes, its lock too, and the user hears what the folder holds. Before the
// lock is taken the import has made nothing there, and what is there may be
// another import's: nothing is touched.
// A rank of import --mpi holds no lock: it removes its own half-written
// partial (the launcher stops the other ranks when one fails).
struct MpiRankFiles {
  fs::path folder;
  std::int64_t rank = 0;
};

void StopImport(int signal, const std::string& out, std::optional<pipeline::RunLock>& lock,
                const std::optional<MpiRankFiles>& mpi_rank) {
  std::string held = "it is unchanged (the import had not started writing)";
  if (mpi_rank) {
    pipeline::RemoveMpiTempFiles(mpi_rank->folder, mpi_rank->rank);
    held = "no unfinished partial of this rank is left in it";
  }
  if (lock) {
    pipeline::RemoveOutputLeftovers(out, "regions");
    lock->Release();
    held = pipeline::OutputsCommitted()
               ? "the new reports were already all in place"
               : "it holds the reports it held before (nothing of this import was put in place)";
  }
  ReportError(
      MakeError(ExitStatus::kInterrupted, fmt::format("import interrupted by {}; {}: {}", strsignal(signal), out, held))
          .WithNote("its staged files and temporary copies were removed"));
}

// Several timelines (rank files, nsys reports, traces) and nothing else:
// each is read and reduced to its summary before the next is opened, as
// with -j 1, so memory does not grow with their number. ncu inputs are
// paired launch by launch with the timelines (kernels_combined), which the
// summaries no longer allow: an import with one is read whole.
// Several timelines (rank files), or one archive of traces (a tar of ranks,
// each member an input of its own): read one at a time, each reduced first.
bool SeveralTimelines(const std::vector<fs::path>& inputs, bool no_captures) {
  if (!no_captures || inputs.empty()) return false;
  const bool timelines = std::all_of(inputs.begin(), inputs.end(), [](const fs::path& file) {
    const ingest::Importer* importer = ingest::GuessImporter(file);
    return importer != nullptr && importer->family == model::SourceFamily::kTimeline;
  });
  if (!timelines) return false;
  return inputs.size() > 1 || ingest::IsKinetoArchive(inputs.front());
}

}  // namespace

int RunImport(const Invocation& inv) {
  CLI::App app{
      "Build reports (kernels.md/.json, regions/, report.html, gpu_breakdown.md for PyTorch traces) from existing "
      "profiler outputs: " +
          ingest::ReadableFormats() +
          ". The format is detected from the content (an .nsys-rep is read through `nsys export`, when nsys is "
          "installed).",
      "llm-perf-opt import"};
  std::vector<std::string> inputs;
  std::string out;
  std::size_t top = 50;
  std::vector<std::pair<std::string, std::string>> captures;
  app.add_option("inputs", inputs, "profiler output files");
  app.add_option("--capture", captures,
                 "REGION FILE: FILE is a capture of the NVTX region REGION alone (one ncu run per region); repeatable");
  app.add_option("--out,-o", out, "output folder for kernels.md and kernels.json (or --partial)");
  std::string partial, job;
  unsigned threads = 1;
  app.add_option("--partial", partial,
                 "write one partial result (OUT.json) instead of reports, for `merge` (docs/multirank.md)");
  app.add_option("--job", job, "the job the partial belongs to: merge refuses partials of different jobs");
  app.add_option("-j,--jobs", threads,
                 "read the inputs with up to N threads, each input reduced to a summary before the next is opened (a "
                 "lone archive of traces: its members)")
      ->check(CLI::PositiveNumber);
  bool read_whole = false;
  app.add_flag("--read-whole", read_whole,
               "read several timelines in one pass, all kept until the reports are built, instead of one at a time "
               "(the same reports, more memory; for checking the two paths against each other)");
  bool mpi = false;
  double mpi_timeout = 3600;
  app.add_flag("--mpi", mpi,
               "one rank of an MPI job (mpirun -np K llm-perf-opt import --mpi FILES... --out DIR): each rank "
               "imports its share of the files, rank 0 merges them into DIR (docs/multirank.md)");
  app.add_option("--mpi-timeout", mpi_timeout,
                 "with --mpi: seconds rank 0 waits for the other ranks' partials once its own share is done "
                 "(default 3600)")
      ->check(CLI::PositiveNumber);
  app.add_option("--top", top, "kernels per table in kernels.md (kernels.json has all)")->check(CLI::PositiveNumber);
  ConfigArgs config;
  app.add_option("--config-dir", config.config_dir, "a folder of your own configs, searched before conf/");
  app.add_option("--config-name", config.config_name, "the primary config (default: config)");
  app.add_option("--set", config.overrides,
                 "config overrides for the region report (repeatable), e.g. --set "
                 "'pipeline.ncu.ncu_cli.kernels.include=[gemm*]'");
  if (auto stop = Parse(app, inv.args)) return *stop;
  // From here, Ctrl-C or SIGTERM removes what this import made in `out` (its
  // lock too, once taken) and exits 130.
  std::optional<pipeline::RunLock> lock;
  std::optional<MpiRankFiles> mpi_rank;
  const pipeline::ImportStop stop([&](int signal) { StopImport(signal, out, lock, mpi_rank); }, [&] { lock.reset(); });
  auto composed = ComposeFromArgs(config);
  if (!composed.ok()) return ReportError(composed.error());
  auto regions = pipeline::RegionOptionsFromConfig(composed->config);
  if (!regions.ok()) return ReportError(regions.error());

  pipeline::ImportRequest request;
  request.inputs.assign(inputs.begin(), inputs.end());
  for (const auto& [region, file] : captures) {
    request.inputs.emplace_back(file);
    request.capture_regions[file] = region;
  }
  if (request.inputs.empty()) {
    return ReportError(MakeError(ExitStatus::kUsage, "import: no input files")
                           .WithNote("give profiler outputs as arguments, or --capture REGION FILE"));
  }
  if (mpi && (out.empty() || !partial.empty() || !captures.empty())) {
    return ReportError(MakeError(ExitStatus::kUsage, "import --mpi: give --out DIR, without --partial or --capture")
                           .WithNote("rank 0 writes the reports into DIR; the ranks' partials are kept inside it "
                                     "until the merge"));
  }
  if (out.empty() == partial.empty()) {
    return ReportError(MakeError(ExitStatus::kUsage, "import: give exactly one of --out DIR and --partial FILE")
                           .WithNote("--out writes the reports; --partial writes a partial result for `merge`"));
  }
  request.out_dir = partial.empty() ? fs::path(out) : fs::path(partial).parent_path();
  if (request.out_dir.empty()) request.out_dir = ".";
  request.top_k = top;
  request.regions = std::move(regions).value();
  // The preset's sections and metrics describe what `profile` collects; for
  // files made elsewhere, show everything unless the user chose.
  const bool chose = std::any_of(config.overrides.begin(), config.overrides.end(), [](const std::string& o) {
    return o.find("ncu_cli.sections") != std::string::npos || o.find("ncu_cli.metrics") != std::string::npos;
  });
  if (!chose) request.regions.selection = {};
  if (mpi) {
    MpiImportOptions options{job, threads, mpi_timeout, {}};
    options.on_rank_known = [&](const fs::path& folder, std::int64_t rank) {
      stop.Guarded([&] { mpi_rank = MpiRankFiles{folder, rank}; });
    };
    return RunMpiImport(request, options);
  }
  if (!partial.empty() || threads > 1 || (!read_whole && SeveralTimelines(request.inputs, captures.empty()))) {
    if (!captures.empty()) {
      return ReportError(MakeError(ExitStatus::kUsage, "import: --capture does not go with --partial or -j")
                             .WithNote("import region captures in one process, without them"));
    }
    return RunPooledImport(request, partial, job, threads, [&](std::optional<pipeline::RunLock> claimed) {
      stop.Guarded([&] { lock = std::move(claimed); });
    });
  }
  auto claimed = ClaimOutputFolder(out);
  if (!claimed.ok()) return ReportError(claimed.error());
  stop.Guarded([&] { lock = std::move(claimed).value(); });
  auto outcome = pipeline::RunImport(request);
  if (!outcome.ok()) return ReportError(outcome.error());

  int exit_code = 0;
  for (const auto& failure : outcome->failures) exit_code = ReportError(failure);
  const auto& report = outcome->report;
  Out() << fmt::format("imported {} of {} input(s): {} kernel(s), {} row(s) read, {} skipped\n",
                       report.sources.size() - outcome->failures.size(), report.sources.size(), report.kernels.size(),
                       report.diagnostics.rows_read(), report.diagnostics.rows_skipped());
  std::size_t region_files = 0;
  for (const auto& file : outcome->written) {
    const bool region_top = file == "regions/report.md" || file == "regions/report.json";
    if (file.starts_with("regions/") && !region_top) {
      ++region_files;
    } else {
      Out() << fmt::format("wrote {}/{}\n", out, file);
    }
  }
  if (region_files > 0) Out() << fmt::format("wrote {} per-region file(s) under {}/regions/\n", region_files, out);
  if (outcome->written.empty())
    Out() << fmt::format("no input could be imported: nothing written, {} is unchanged\n", out);
  WarnDataLoss(report.diagnostics, !outcome->written.empty());
  return exit_code;
}

}  // namespace llmpo::cli
