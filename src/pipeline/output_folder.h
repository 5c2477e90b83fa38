// Replacing a whole report folder (regions/, ncu/regions/) at once: the new
// one is built beside it under a hidden name and swapped in with one rename,
// so a reader, or an import killed half-way, sees the previous report or the
// new one, never a mix, and no file of the previous import survives.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "src/core/result.h"

namespace llmpo::pipeline {

// A new empty folder beside `final_dir`: "<parent>/.<name>.new-XXXXXX".
Result<std::filesystem::path> MakeStagingFolder(const std::filesystem::path& final_dir);

// Puts `staging` in the place of `final_dir`: an atomic exchange when
// `final_dir` exists, else a rename. Returns where the previous content now
// is (`staging`'s path; none when there was none), for the caller to remove
// once every output is in place. A `final_dir` that llm-perf-opt did not
// write (no report.json of ours) or that is not a real folder is left alone
// and refused.
Result<std::optional<std::filesystem::path>> ReplaceFolder(const std::filesystem::path& final_dir,
                                                           const std::filesystem::path& staging);

// Ok when `final_dir` is absent or a report folder of ours (checked before
// the new one is written, so a refusal costs nothing).
Status CheckReportFolder(const std::filesystem::path& final_dir);

// Moves `final_dir` aside, in one rename, when it is a report folder of ours
// (the new import has no such report): to a hidden ".<name>.old-XXXXXX"
// beside it, which it returns for the caller to remove (or the next import,
// as a leftover); refuses one that is not ours.
Result<std::optional<std::filesystem::path>> MoveAsideReportFolder(const std::filesystem::path& final_dir);

// The record of which top-level report files the last import into a folder
// wrote, so the next one can remove those it does not write again.
inline constexpr const char* kOutputsRecordName = ".llmpo-outputs";

// Removes the top-level files that `folder`'s record lists and `written`
// does not hold, then records `written`'s top-level files. Only plain names
// (no '/', no leading '.') of regular files are ever removed, so a record
// someone edited cannot reach outside the folder.
Status ReplaceOutputsRecord(const std::filesystem::path& folder, const std::vector<std::string>& written);

// What a killed import leaves in `folder`: hidden staging folders of
// `final_name` (".<name>.new-*", ".<name>.old-*"), "<file>.tmp.<random>"
// files of the atomic writer, and UTF-8 copies of inputs (".llmpo-utf8-*").
// Removed; returns how many. Call only while holding the folder's lock.
std::size_t RemoveLeftovers(const std::filesystem::path& folder, const std::string& final_name);

}  // namespace llmpo::pipeline
