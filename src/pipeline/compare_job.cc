#include "src/pipeline/compare_job.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <system_error>

#include "src/core/atomic_file.h"
#include "src/pipeline/import_job.h"
#include "src/pipeline/manifest.h"
#include "src/report/report_set_json.h"

namespace llmpo::pipeline {
namespace fs = std::filesystem;

namespace {

Error SideError(const std::string& side, std::string message) {
  return MakeError(ExitStatus::kInput, fmt::format("compare: side '{}': {}", side, std::move(message)));
}

// The regular files directly in `dir`, in name order (a folder of one run's
// exports: nsys stats CSVs, rank files).
std::vector<fs::path> FilesIn(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_regular_file(ec) && !entry.path().filename().string().starts_with(".")) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

Result<SideInputs> ResolveFolder(const std::string& side, const fs::path& dir) {
  SideInputs in;
  std::error_code ec;
  if (fs::is_regular_file(dir / "report_set.json", ec)) {
    in.report_set = dir / "report_set.json";
    return in;
  }
  if (fs::exists(dir / "run.json", ec)) {
    return SideError(side, "a run folder without report_set.json (written before report sets existed)")
        .WithNote(fmt::format("run `llm-perf-opt report {}` to write it, then compare again", dir.string()));
  }
  in.files = FilesIn(dir);
  if (in.files.empty()) {
    return SideError(side, "an empty folder: no report_set.json and no profiler files")
        .WithNote("give an import output folder, a run folder, or profiler files");
  }
  return in;
}

}  // namespace

Result<SideInputs> ResolveSide(const std::string& side) {
  std::error_code ec;
  const fs::path path(side);
  if (fs::is_directory(path, ec)) return ResolveFolder(side, path);
  if (fs::exists(path, ec) || side.find(',') == std::string::npos) {
    if (!fs::exists(path, ec)) {
      return SideError(side, "no such file or folder").WithNote("give a folder with report_set.json or profiler files");
    }
    SideInputs in;
    if (path.filename() == "report_set.json") {
      in.report_set = path;
    } else {
      in.files.push_back(path);
    }
    return in;
  }
  SideInputs in;  // a comma-separated list of files
  std::size_t start = 0;
  while (start <= side.size()) {
    const std::size_t comma = std::min(side.find(',', start), side.size());
    const std::string part = side.substr(start, comma - start);
    if (!part.empty()) {
      if (!fs::exists(part, ec)) return SideError(side, fmt::format("'{}': no such file", part));
      in.files.emplace_back(part);
    }
    start = comma + 1;
  }
  if (in.files.empty()) return SideError(side, "no file named");
  return in;
}

std::pair<std::string, std::optional<report::ScopeFilter>> SplitScope(const std::string& side) {
  const std::size_t at = side.rfind('@');
  std::error_code ec;
  if (at == std::string::npos || fs::exists(side, ec)) return {side, std::nullopt};
  const std::string scope = side.substr(at + 1);
  for (const std::string key : {"rank", "device"}) {
    if (scope.starts_with(key + "=") && scope.size() > key.size() + 1) {
      return {side.substr(0, at), report::ScopeFilter{key, scope.substr(key.size() + 1)}};
    }
  }
  return {side, std::nullopt};
}

namespace {

// A side's report set: read from its report_set.json, or imported into
// out/sides/N first; narrowed to one scope when the side names one.
Result<report::ReportSet> LoadSide(const CompareRequest& request, std::size_t index,
                                   std::vector<std::string>& written) {
  const std::string& side = request.sides[index];
  const auto [where, scope] = SplitScope(side);
  ASSIGN_OR_RETURN(SideInputs in, ResolveSide(where));
  fs::path set_file;
  if (in.report_set) {
    set_file = *in.report_set;
  } else {
    ImportRequest import;
    import.inputs = in.files;
    import.out_dir = request.out_dir / "sides" / std::to_string(index);
    import.regions = request.regions;
    import.regions.selection = {};  // files made elsewhere: every metric they hold
    ASSIGN_OR_RETURN(ImportOutcome outcome, RunImport(import));
    if (outcome.written.empty()) {
      return SideError(side, "none of its files could be imported")
          .WithNote(outcome.failures.empty() ? std::string("see the messages above")
                                             : outcome.failures.front().message);
    }
    for (const auto& f : outcome.written) written.push_back(fmt::format("sides/{}/{}", index, f));
    set_file = import.out_dir / "report_set.json";
  }
  ASSIGN_OR_RETURN(std::string text, ReadRunFile(set_file));
  auto set = report::ReadReportSetJson(text, set_file.string());
  if (!set.ok()) return std::move(set).error().WithContext(fmt::format("compare: side '{}'", side));
  if (scope) {
    if (auto why = report::SelectScope(*set, *scope)) {
      return SideError(side, *why).WithNote("name a scope the side has: SIDE@rank=N or SIDE@device=N");
    }
  }
  return set;
}

}  // namespace

Result<CompareOutcome> RunCompare(const CompareRequest& request) {
  if (request.sides.size() < 2) {
    return MakeError(ExitStatus::kUsage, "compare: needs two sides or more (BASE NEW [MORE...])");
  }
  CompareOutcome outcome;
  std::deque<report::ReportSet> sets;  // stable addresses for the sides
  std::vector<report::CompareSide> sides;
  for (std::size_t i = 0; i < request.sides.size(); ++i) {
    ASSIGN_OR_RETURN(report::ReportSet set, LoadSide(request, i, outcome.written));
    sets.push_back(std::move(set));
    sides.push_back({request.sides[i], &sets.back()});
  }
  outcome.report = report::BuildCompareReport(sides, request.options);
  for (const auto& c : outcome.report.comparisons) {
    const bool kernel =
        std::any_of(c.kernels.begin(), c.kernels.end(), [](const auto& k) { return k.match == "name"; });
    const bool region =
        std::any_of(c.regions.begin(), c.regions.end(), [](const auto& r) { return r.match.starts_with("path"); });
    if (!kernel && !region) {
      return MakeError(ExitStatus::kInput, fmt::format("compare: '{}' and '{}' have nothing in common: no kernel name "
                                                       "and no NVTX region path on both sides",
                                                       c.base_label, c.new_label))
          .WithNote(
              "compare profiles of the same program (kernel times from ncu, nsys, a PyTorch trace or our "
              "traces, or NVTX regions)");
    }
  }
  RETURN_IF_ERROR(WriteFileAtomically(request.out_dir / "compare.md", report::CompareMarkdown(outcome.report)));
  RETURN_IF_ERROR(WriteFileAtomically(request.out_dir / "compare.json", report::CompareJson(outcome.report)));
  RETURN_IF_ERROR(WriteFileAtomically(request.out_dir / "compare.html", report::CompareHtml(outcome.report)));
  outcome.written.push_back("compare.md");
  outcome.written.push_back("compare.json");
  outcome.written.push_back("compare.html");
  return outcome;
}

}  // namespace llmpo::pipeline
