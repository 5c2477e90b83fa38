// Opening one input file for import, the same way for every format: the path
// checked before anything is read (missing, a dangling link, a folder, a FIFO
// or a device), its first bytes read, a byte order mark decoded (UTF-16 and
// UTF-8 with BOM become a plain UTF-8 copy), the format detected through the
// importer table, a format that needs an external tool converted through the
// converter the caller provides, and the file read by its importer. Pure
// apart from the files it reads and the scratch copies it writes (and
// removes) inside the caller's scratch folder.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "src/core/result.h"
#include "src/ingest/importer.h"

namespace llmpo::ingest {

// Turns a file of `from` (an .nsys-rep) into a file of `to` (an nsys SQLite
// export) inside `scratch_dir`; returns its path. Provided by the pipeline,
// which may run processes; ingest does not.
using ExternalConverter = std::function<Result<std::filesystem::path>(
    InputFormat from, InputFormat to, const std::filesystem::path& input, const std::filesystem::path& scratch_dir)>;

struct InputOptions {
  // Where a re-encoded copy or a converted file is written: the output
  // folder, never outside it.
  std::filesystem::path scratch_dir;
  ExternalConverter convert;  // null: formats that need a conversion are refused
};

// The name of a UTF-8 copy of a UTF-16 input in the scratch folder begins
// with this ("<prefix><input's file name>"); the copy is removed after the
// import, and by the next import when one was stopped before that.
inline constexpr const char* kUtf8CopyPrefix = ".llmpo-utf8-";

// How much of a file DetectFormat looks at.
inline constexpr std::size_t kHeadBytes = 64 * 1024;

// Says what is wrong with a path before anything is read from it.
Status CheckInputFile(const std::filesystem::path& file);

// The first kHeadBytes of a regular file (fewer for a shorter one).
Result<std::string> ReadHead(const std::filesystem::path& file);

// What this tool reads, from the importer table's hints: "A, B, or C".
std::string ReadableFormats();

// The importer that reads `file`, judged from its first bytes (else its name)
// without importing it; kUnknown's entry when nothing matches; nullptr when
// it cannot be judged this way (unreadable, or text with a byte order mark).
const Importer* GuessImporter(const std::filesystem::path& file);

// Reads `file` into ctx.sink. `format_used` is set to the importer that read
// the data (after a conversion: the converted format's), also on failure once
// the format is known.
Status ImportFile(const std::filesystem::path& file, const InputOptions& options, ImportContext& ctx,
                  const Importer** format_used);

}  // namespace llmpo::ingest
