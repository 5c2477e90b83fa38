#include "src/cli/mpi_import.h"

#include <fmt/format.h>

#include <cstdlib>

#include "src/cli/diagnostics.h"
#include "src/cli/partial_cli.h"
#include "src/core/atomic_file.h"
#include "src/pipeline/mpi_share.h"
#include "src/pipeline/partial_import.h"

namespace llmpo::cli {
namespace fs = std::filesystem;
using pipeline::MpiRank;

namespace {

// This rank's share imported and written as its partial (or its failure
// file); the exit code of a failure, 0 when the partial is there.
int ImportShare(const pipeline::ImportRequest& request, const MpiImportOptions& options, const MpiRank& who,
                const fs::path& folder) {
  const pipeline::Share share = pipeline::ShareOf(request.inputs.size(), who.rank, who.size);
  pipeline::ImportRequest mine = request;
  mine.inputs.assign(request.inputs.begin() + share.begin, request.inputs.begin() + share.end);
  auto collected = pipeline::CollectPartial(mine, options.job, options.threads);
  Status wrote = collected.ok() ? pipeline::CreateMpiPartialFolder(folder) : Status(collected.error());
  if (wrote.ok()) {
    wrote = WriteFileAtomically(pipeline::MpiPartialFile(folder, who.rank),
                                [&](std::ostream& out) { report::WritePartialSetJson(collected->set, out); });
  }
  if (!wrote.ok()) {
    Error error = std::move(wrote).error();
    const Status marked = pipeline::WriteMpiFailure(folder, who.rank, error);
    const int code = ReportError(std::move(error).WithContext(fmt::format("import --mpi, rank {}", who.rank)));
    // A rank other than 0 whose failure file is written leaves the report to
    // rank 0, and exits 0 so that the launcher does not stop rank 0 first.
    if (!marked.ok()) return ReportError(marked.error());
    return who.rank == 0 ? code : 0;
  }
  const std::size_t failed = collected->failures.size(), count = share.end - share.begin;
  const std::string which = count == 0
                                ? "no input: more ranks than inputs"
                                : fmt::format("#{}..#{} of {}", share.begin + 1, share.end, request.inputs.size());
  Out() << fmt::format("rank {} of {}: imported {} of {} input(s) ({}){}, wrote {}\n", who.rank, who.size,
                       count - failed, count, which,
                       failed > 0 ? fmt::format(", {} failed (rank 0 reports them)", failed) : "",
                       pipeline::MpiPartialFile(folder, who.rank).string());
  return 0;
}

// Every input the merged partial lists as failed, as `import` reports a
// bad input (exit 3); 0 when none failed.
int ReportFailedInputs(const report::PartialSet& set) {
  int code = 0;
  for (const auto& source : set.sources) {
    if (source.failure) code = ReportError(MakeError(ExitStatus::kInput, *source.failure));
  }
  return code;
}

// Rank 0: every rank's partial, merged in rank order into the reports.
int MergeRanks(const pipeline::ImportRequest& request, const MpiImportOptions& options, const MpiRank& who,
               const fs::path& folder) {
  pipeline::MpiWait wait;
  wait.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(options.timeout_s * 1000));
  auto merged = pipeline::GatherMpiPartials(folder, who.size, wait);
  pipeline::RemoveMpiPartials(folder);  // read, or of no use any more
  if (!merged.ok()) return ReportError(merged.error());
  const int failed = ReportFailedInputs(*merged);
  std::size_t bad = 0;
  for (const auto& s : merged->sources) bad += s.ok() ? 0 : 1;
  Out() << fmt::format("imported {} of {} input(s) on {} rank(s) (ranks from {}/{}{}): {} kernel row(s)\n",
                       merged->sources.size() - bad, merged->sources.size(), who.size, who.rank_from, who.size_from,
                       who.job.empty() ? "" : fmt::format(", job {} from {}", who.job, who.job_from),
                       merged->kernels.size());
  merged->merged_from.clear();  // made from inputs, as one import
  const int wrote = WriteReportsFromPartial(std::move(merged).value(), request);
  return wrote != 0 ? wrote : failed;
}

}  // namespace

int RunMpiImport(const pipeline::ImportRequest& request, const MpiImportOptions& options) {
  auto who = pipeline::MpiRankFromEnv([](const char* name) { return std::getenv(name); });
  if (!who.ok()) return ReportError(who.error());
  const fs::path folder = pipeline::MpiPartialFolder(request.out_dir, options.job.empty() ? who->job : options.job);
  if (options.on_rank_known) options.on_rank_known(folder, who->rank);
  const int share = ImportShare(request, options, *who, folder);
  if (who->rank != 0) return share;
  if (share != 0) {
    pipeline::RemoveMpiPartials(folder);
    return share;
  }
  return MergeRanks(request, options, *who, folder);
}

}  // namespace llmpo::cli
