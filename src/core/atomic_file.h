// Writes a whole file so that readers see either the old content or the new,
// never half of it: write a temp file beside it, fsync, rename over.
//
// Output folders may be shared or prepared by someone else, so no write here
// follows a symbolic link: temp files get an unpredictable name and are
// created exclusively (O_CREAT|O_EXCL|O_NOFOLLOW), a destination that is a
// symbolic link is refused, and a failed write removes its temp file
// (docs/security.md).
#pragma once

#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
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

// For outputs staged first and put in place together: whether `path` may
// receive one (absent, or not a symbolic link), then the move itself, which
// refuses a link put there since and replaces the file in one rename.
Status CheckOutputDestination(const std::filesystem::path& path);
Status MoveIntoPlace(const std::filesystem::path& staged, const std::filesystem::path& path);

Result<std::string> ReadWholeFile(const std::filesystem::path& path);

// A regular file opened for reading as a stream (closed when the pointer
// goes); anything else refused as ReadWholeFile refuses it.
using ReadStream = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;
Result<ReadStream> OpenRegularFileStream(const std::filesystem::path& path);

// For bulk output written in place (thousands of per-region files, where a
// temp file and rename per file would cost seconds).
//
// Creates the folder `dir`, whose trailing part `ours` (a relative path, e.g.
// "regions/A__A1") this program owns: each of those components is made, or
// must already be a real folder; a symbolic link or another kind of file
// there is refused, so nothing lands outside the output folder. What lies
// above `ours` is the user's (it may be a link they made) and is only created.
Status CreateFoldersNoFollow(const std::filesystem::path& dir, const std::filesystem::path& ours);

// Creates or replaces the regular file `path` in place, refusing a symbolic
// link, a file with other hard links, or anything but a regular file there.
Status WriteFileNoFollow(const std::filesystem::path& path, std::string_view content);

}  // namespace llmpo
