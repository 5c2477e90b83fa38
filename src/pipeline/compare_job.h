// `compare`: read each side's report set (a folder holding report_set.json:
// an import output or a run folder), or import a side's profiler files on
// the fly (a file, a folder of files, or a comma-separated list) into
// OUT/sides/N/, then build and write compare.md, compare.json and compare.html into the
// output folder (docs/compare.md).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "src/core/result.h"
#include "src/pipeline/region_options.h"
#include "src/report/compare_model.h"

namespace llmpo::pipeline {

struct CompareRequest {
  std::vector<std::string> sides;  // as given, the base first
  std::filesystem::path out_dir;
  report::CompareOptions options;
  RegionOptions regions;  // for sides imported on the fly
};

struct CompareOutcome {
  report::CompareReport report;
  std::vector<std::string> written;  // under out_dir
};

Result<CompareOutcome> RunCompare(const CompareRequest& request);

// What a side argument names: a report set to read, or profiler files to import.
struct SideInputs {
  std::optional<std::filesystem::path> report_set;  // a report_set.json
  std::vector<std::filesystem::path> files;         // else: files to import
};
Result<SideInputs> ResolveSide(const std::string& side);

// A side's place and, when it ends in `@rank=N` or `@device=N` (and the
// whole text names no file), the scope to keep.
std::pair<std::string, std::optional<report::ScopeFilter>> SplitScope(const std::string& side);

}  // namespace llmpo::pipeline
