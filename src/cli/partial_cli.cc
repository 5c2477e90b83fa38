#include "src/cli/partial_cli.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "src/cli/diagnostics.h"
#include "src/cli/run_common.h"
#include "src/core/atomic_file.h"
#include "src/pipeline/partial_import.h"
#include "src/pipeline/partial_merge.h"
#include "src/pipeline/region_options.h"

namespace llmpo::cli {
namespace fs = std::filesystem;

Result<pipeline::ImportRequest> RequestFromConfig(const ConfigArgs& config, std::size_t top) {
  ASSIGN_OR_RETURN(auto composed, ComposeFromArgs(config));
  ASSIGN_OR_RETURN(auto regions, pipeline::RegionOptionsFromConfig(composed.config));
  pipeline::ImportRequest request;
  request.top_k = top;
  request.regions = std::move(regions);
  // As `import`: files made elsewhere show every section unless the user chose.
  const bool chose = std::any_of(config.overrides.begin(), config.overrides.end(), [](const std::string& o) {
    return o.find("ncu_cli.sections") != std::string::npos || o.find("ncu_cli.metrics") != std::string::npos;
  });
  if (!chose) request.regions.selection = {};
  return request;
}

namespace {

std::size_t RankCount(const report::PartialSet& set) {
  std::set<std::int64_t> ranks;
  for (const auto& d : set.gpu_breakdown.devices) {
    if (d.rank) ranks.insert(*d.rank);
  }
  return ranks.size();
}

}  // namespace

Status WritePartial(const report::PartialSet& set, const std::string& file) {
  RETURN_IF_ERROR(WriteFileAtomically(file, [&](std::ostream& out) { report::WritePartialSetJson(set, out); }));
  std::size_t failed = 0;
  for (const auto& s : set.sources) failed += s.ok() ? 0 : 1;
  Out() << fmt::format("wrote partial {}: {} input(s) ({} failed), {} rank(s), {} kernel row(s){}\n", file,
                       set.sources.size(), failed, RankCount(set), set.kernels.size(),
                       set.job.empty() ? "" : fmt::format(", job \"{}\"", set.job));
  return OkStatus();
}

void WarnFailedInputs(const report::PartialSet& set) {
  for (const auto& s : set.sources) {
    if (!s.ok()) ReportWarning(MakeError(ExitStatus::kOk, fmt::format("input not imported: {}", *s.failure)));
  }
}

void WarnDataLoss(const model::Diagnostics& diagnostics) {
  for (const auto& [code, entry] : diagnostics.entries()) {
    if (entry.severity != model::Severity::kDataLoss) continue;
    ReportWarning(MakeError(ExitStatus::kOk,
                            fmt::format("data loss ({}, {} time(s)): {}", code, entry.count, entry.first_example)));
  }
}

int WriteReportsFromPartial(report::PartialSet set, const pipeline::ImportRequest& request,
                            const LockHolder& hold_lock) {
  auto claimed = ClaimOutputFolder(request.out_dir.string());
  if (!claimed.ok()) return ReportError(claimed.error());
  std::optional<pipeline::RunLock> lock = std::move(claimed).value();
  if (hold_lock) hold_lock(std::move(lock));
  model::Diagnostics shown = set.diagnostics;  // for the warnings, with the missing ranks noted as in the reports
  pipeline::NoteMissingRanks(set.gpu_breakdown, shown);
  auto written = pipeline::WritePartialReports(std::move(set), request);
  if (!written.ok()) return ReportError(written.error());
  std::size_t region_files = 0;
  for (const auto& file : *written) {
    const bool region_top = file == "regions/report.md" || file == "regions/report.json";
    if (file.starts_with("regions/") && !region_top) {
      ++region_files;
    } else {
      Out() << fmt::format("wrote {}/{}\n", request.out_dir.string(), file);
    }
  }
  if (region_files > 0) {
    Out() << fmt::format("wrote {} per-region file(s) under {}/regions/\n", region_files, request.out_dir.string());
  }
  WarnDataLoss(shown);
  return 0;
}

int RunPooledImport(const pipeline::ImportRequest& request, const std::string& partial, const std::string& job,
                    unsigned threads, const LockHolder& hold_lock) {
  auto collected = pipeline::CollectPartial(request, job, threads);
  if (!collected.ok()) return ReportError(collected.error());
  int exit_code = 0;
  for (const auto& failure : collected->failures) exit_code = ReportError(failure);
  const auto& set = collected->set;
  const std::size_t ok = collected->inputs - collected->failures.size();
  if (threads <= 1 && partial.empty()) {  // as a one-thread import says it
    Out() << fmt::format("imported {} of {} input(s): {} kernel(s), {} row(s) read, {} skipped\n", ok,
                         collected->inputs, set.kernels.size(), set.diagnostics.rows_read(),
                         set.diagnostics.rows_skipped());
  } else {
    Out() << fmt::format("imported {} of {} input(s) with {} thread(s): {} kernel row(s), {} row(s) read\n", ok,
                         collected->inputs,
                         std::min<std::size_t>(std::max(threads, 1u), std::max<std::size_t>(collected->inputs, 1)),
                         set.kernels.size(), set.diagnostics.rows_read());
  }
  if (!partial.empty()) {
    const Status wrote = WritePartial(set, partial);
    if (!wrote.ok()) return ReportError(wrote.error());
    return exit_code;
  }
  // As a one-process import: when every input failed before its first row,
  // reports of no data would replace what the folder holds (an earlier good
  // import), so the folder is left as it was.
  if (ok == 0 && set.diagnostics.rows_read() == 0) return exit_code;
  const int wrote = WriteReportsFromPartial(std::move(collected->set), request, hold_lock);
  return wrote != 0 ? wrote : exit_code;
}

}  // namespace llmpo::cli
