// Replacing a whole report folder (regions/, ncu/regions/) at once: the new
// one is built beside it under a hidden name and swapped in with one rename,
// so a reader, or an import killed half-way, sees the previous report or the
// new one, never a mix, and no file of the previous import survives.
#pragma once

#include <filesystem>
#include <string>

#include "src/core/result.h"

namespace llmpo::pipeline {

// A new empty folder beside `final_dir`: "<parent>/.<name>.new-XXXXXX".
Result<std::filesystem::path> MakeStagingFolder(const std::filesystem::path& final_dir);

// Puts `staging` in the place of `final_dir`: an atomic exchange when
// `final_dir` exists (then the old content is removed), else a rename. A
// `final_dir` that llm-perf-opt did not write (no report.json of ours) or
// that is not a real folder is left alone and refused with a usage error.
Status ReplaceFolder(const std::filesystem::path& final_dir, const std::filesystem::path& staging);

// Ok when `final_dir` is absent or a report folder of ours (checked before
// the new one is written, so a refusal costs nothing).
Status CheckReportFolder(const std::filesystem::path& final_dir);

// Removes `final_dir` when it is a report folder of ours (the new import has
// no such report); refuses one that is not.
Status RemoveReportFolder(const std::filesystem::path& final_dir);

// What a killed import leaves in `folder`: hidden staging folders of
// `final_name` and "<file>.tmp.<random>" files of the atomic writer.
// Removed; returns how many. Call only while holding the folder's lock.
std::size_t RemoveLeftovers(const std::filesystem::path& folder, const std::string& final_name);

}  // namespace llmpo::pipeline
