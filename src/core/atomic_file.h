// Writes a whole file so that readers see either the old content or the new,
// never half of it: write a temp file beside it, fsync, rename over.
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>
#include <string_view>

#include "src/core/result.h"

namespace llmpo {

// kSynced also fsyncs before the rename, so the file survives a power loss;
// kUnsynced (bulk report files) is still atomic against a crash of this
// process, at a fraction of the cost when thousands of files are written.
enum class Durability { kSynced, kUnsynced };

Status WriteFileAtomically(const std::filesystem::path& path, std::string_view content,
                           Durability durability = Durability::kSynced);

// The same for content produced by a writer, streamed to the temp file (for
// outputs too large to build in memory first).
Status WriteFileAtomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& writer,
                           Durability durability = Durability::kUnsynced);

Result<std::string> ReadWholeFile(const std::filesystem::path& path);

}  // namespace llmpo
