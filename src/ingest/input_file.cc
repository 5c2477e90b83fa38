#include "src/ingest/input_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <set>

#include "src/core/atomic_file.h"
#include "src/core/utf8.h"
#include "src/ingest/text_lines.h"

namespace llmpo::ingest {
namespace fs = std::filesystem;

// Says what is wrong with a path before anything is read from it: missing,
// a dangling link or a loop of links, a folder, or not a regular file (a FIFO
// would block the read, a device like /dev/zero would never end).
Status CheckInputFile(const fs::path& file) {
  const std::string name = file.string();
  struct stat link_st {};
  if (::lstat(file.c_str(), &link_st) != 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) {
      Error missing = MakeError(ExitStatus::kInput, fmt::format("{}: no such file", name));
      // "key=value" given where an input goes: a config override without --set.
      if (name.find('=') != std::string::npos && name.find('/') == std::string::npos) {
        return std::move(missing).WithNote(fmt::format("a config override goes after --set: --set '{}'", name));
      }
      return missing;
    }
    return MakeError(ExitStatus::kInput, fmt::format("{}: cannot be reached: {}", name, std::strerror(err)))
        .WithNote("check the permissions of the folders above it");
  }
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ELOOP) {
      return MakeError(ExitStatus::kInput,
                       fmt::format("{}: a loop of symbolic links (or too many links in a row)", name))
          .WithNote("point the link at the profiler output itself (ls -l shows where each link leads)");
    }
    if (err == ENOENT || err == ENOTDIR) {
      return MakeError(ExitStatus::kInput, fmt::format("{}: a symbolic link to a file that does not exist", name))
          .WithNote("point the link at the profiler output, or name the output itself");
    }
    return MakeError(ExitStatus::kInput, fmt::format("{}: cannot be reached: {}", name, std::strerror(err)))
        .WithNote("check the permissions of the folders above it");
  }
  if (S_ISDIR(st.st_mode)) {
    return MakeError(ExitStatus::kInput, fmt::format("{}: a folder, not a file", name))
        .WithNote(fmt::format("name the profiler outputs inside it, e.g. {}/*.csv", name));
  }
  if (!S_ISREG(st.st_mode)) {
    const char* kind = S_ISFIFO(st.st_mode)   ? "a named pipe (FIFO)"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "a special file";
    return MakeError(ExitStatus::kInput,
                     fmt::format("{}: {}, not a regular file; not read (it could block or never end)", name, kind))
        .WithNote("save the profiler output to a regular file first and import that");
  }
  return OkStatus();
}

namespace {

Error ReadError(const fs::path& file, int err) {
  if (err == EACCES || err == EPERM) {
    return MakeError(ExitStatus::kInput, fmt::format("{}: cannot be read: permission denied", file.string()))
        .WithNote("make it readable (chmod a+r), or run as a user who may read it");
  }
  return MakeError(ExitStatus::kInput, fmt::format("{}: cannot be read: {}", file.string(), std::strerror(err)))
      .WithNote("check the disk, or copy or export the file again");
}

// Opens a regular file for reading without blocking (the file may have been
// swapped for a FIFO since CheckInputFile looked) and checks it again.
Result<int> OpenRegular(const fs::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return ReadError(file, errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return MakeError(ExitStatus::kInput, fmt::format("{}: not a regular file; not read", file.string()))
        .WithNote("save the profiler output to a regular file first and import that");
  }
  return fd;
}

// Reads up to `size` bytes (fewer only at the end of the file).
Result<std::size_t> ReadSome(int fd, const fs::path& file, char* buffer, std::size_t size) {
  std::size_t got = 0;
  while (got < size) {
    const ssize_t n = ::read(fd, buffer + got, size - got);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return ReadError(file, errno);
    }
    got += static_cast<std::size_t>(n);
  }
  return got;
}

}  // namespace

Result<std::string> ReadHead(const fs::path& file) {
  ASSIGN_OR_RETURN(int fd, OpenRegular(file));
  std::string head(kHeadBytes, '\0');
  Result<std::size_t> got = ReadSome(fd, file, head.data(), head.size());
  ::close(fd);
  if (!got.ok()) return std::move(got).error();
  head.resize(*got);
  return head;
}

namespace {

// Text as Windows tools write it (PowerShell's Out-File, Excel): a UTF-8
// byte order mark, or UTF-16 with one.
enum class TextEncoding { kPlain, kUtf8Bom, kUtf16Le, kUtf16Be };

TextEncoding DetectEncoding(std::string_view head) {
  if (head.starts_with("\xEF\xBB\xBF")) return TextEncoding::kUtf8Bom;
  if (head.starts_with("\xFF\xFE")) return TextEncoding::kUtf16Le;
  if (head.starts_with("\xFE\xFF")) return TextEncoding::kUtf16Be;
  return TextEncoding::kPlain;
}

// UTF-16 to UTF-8, chunk by chunk: an odd byte or a high surrogate at the end
// of one chunk waits for the next; an unpaired surrogate becomes U+FFFD.
class Utf16Decoder {
 public:
  explicit Utf16Decoder(bool big_endian) : big_endian_(big_endian) {}
  void Feed(std::string_view bytes, std::string& out) {
    for (const char c : bytes) {
      if (!have_byte_) {
        byte_ = static_cast<unsigned char>(c);
        have_byte_ = true;
        continue;
      }
      have_byte_ = false;
      const auto other = static_cast<unsigned char>(c);
      const std::uint32_t unit = big_endian_ ? (byte_ << 8 | other) : (other << 8 | byte_);
      Unit(unit, out);
    }
  }
  void Finish(std::string& out) {
    if (high_ != 0 || have_byte_) AppendUtf8(out, 0xFFFD);
    high_ = 0;
    have_byte_ = false;
  }

 private:
  void Unit(std::uint32_t unit, std::string& out) {
    if (unit >= 0xDC00 && unit <= 0xDFFF && high_ != 0) {
      AppendUtf8(out, 0x10000 + ((high_ - 0xD800) << 10) + (unit - 0xDC00));
      high_ = 0;
      return;
    }
    if (high_ != 0) AppendUtf8(out, 0xFFFD);
    high_ = 0;
    if (unit >= 0xD800 && unit <= 0xDBFF) {
      high_ = unit;
    } else if (unit >= 0xDC00 && unit <= 0xDFFF) {
      AppendUtf8(out, 0xFFFD);
    } else {
      AppendUtf8(out, unit);
    }
  }
  bool big_endian_;
  bool have_byte_ = false;
  std::uint32_t byte_ = 0;
  std::uint32_t high_ = 0;
};

// Writes the input as plain UTF-8 (no byte order mark) to a temporary file
// inside the scratch folder (the output folder), never outside it; the
// caller removes it.
Result<fs::path> ReencodeToUtf8(const fs::path& file, TextEncoding encoding, const fs::path& out_dir) {
  const fs::path copy = out_dir / (kUtf8CopyPrefix + file.filename().string());
  ASSIGN_OR_RETURN(int fd, OpenRegular(file));
  Status read_status = OkStatus();
  Status written = WriteFileAtomically(copy, [&](std::ostream& out) {
    std::string chunk(1 << 20, '\0');
    std::string converted;
    Utf16Decoder decoder(encoding == TextEncoding::kUtf16Be);
    std::size_t skip = encoding == TextEncoding::kUtf8Bom ? 3 : 2;  // the byte order mark
    while (true) {
      Result<std::size_t> got = ReadSome(fd, file, chunk.data(), chunk.size());
      if (!got.ok()) {
        read_status = std::move(got).error();
        return;
      }
      std::string_view bytes(chunk.data(), *got);
      const std::size_t drop = std::min(skip, bytes.size());
      bytes.remove_prefix(drop);
      skip -= drop;
      if (encoding == TextEncoding::kUtf8Bom) {
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      } else {
        converted.clear();
        decoder.Feed(bytes, converted);
        if (*got < chunk.size()) decoder.Finish(converted);
        out.write(converted.data(), static_cast<std::streamsize>(converted.size()));
      }
      if (*got < chunk.size()) return;
    }
  });
  ::close(fd);
  if (!read_status.ok()) {
    std::error_code ec;
    fs::remove(copy, ec);
    return std::move(read_status).error();
  }
  RETURN_IF_ERROR(std::move(written));
  return copy;
}


Error Unrecognised(const fs::path& file, const std::string& head) {
  Error e = MakeError(ExitStatus::kInput, fmt::format("{}: not a profiler output this tool reads", file.string()));
  if (head.find("==ERROR==") != std::string::npos || head.find("==PROF==") != std::string::npos) {
    std::move(e).WithNote("it is ncu console output with no CSV: the profiled run failed or profiled nothing");
    std::size_t shown = 0;
    for (std::string_view line : SplitLines(head)) {
      if ((line.starts_with("==ERROR==") || line.starts_with("==WARNING==")) && shown++ < 3) {
        std::move(e).WithNote(fmt::format("ncu said: {}", line));
      }
    }
    if (head.find("No kernels were profiled") != std::string::npos) {
      std::move(e).WithNote(
          "no kernel matched the filters: check --kernel-name, --nvtx-include (push/pop ranges "
          "need a trailing '/'), --launch-skip/--launch-count");
    }
    return e;
  }
  return std::move(e).WithNote("expected: " + ReadableFormats());
}

// `file` is the input as named; `bytes` the file holding its content (a
// UTF-8 copy of a UTF-16 input, else `file` itself).
Status ImportDetected(const fs::path& file, const fs::path& bytes, const std::string& head,
                      const InputOptions& options, ImportContext& ctx, const Importer** used) {
  const Importer* importer = &ImporterFor(DetectFormat(head, file));
  *used = importer;
  if (importer->format == InputFormat::kUnknown) return Unrecognised(file, head);
  if (importer->import != nullptr) return importer->import(bytes, ctx);
  // Known by name, read after an external tool converts it.
  const Importer& target = ImporterFor(importer->converts_to);
  if (!options.convert || target.import == nullptr) {
    return MakeError(ExitStatus::kToolMissing,
                     fmt::format("{}: {}; this build cannot convert it", file.string(), importer->description));
  }
  ASSIGN_OR_RETURN(fs::path converted, options.convert(importer->format, target.format, file, options.scratch_dir));
  *used = &target;
  return target.import(converted, ctx);
}

}  // namespace

std::string ReadableFormats() {
  std::vector<std::string_view> hints;
  for (const Importer& importer : Importers()) {
    if (!importer.hint.empty() && std::find(hints.begin(), hints.end(), importer.hint) == hints.end()) {
      hints.push_back(importer.hint);
    }
  }
  std::string text;
  for (std::size_t i = 0; i < hints.size(); ++i) {
    if (i > 0) text += i + 1 == hints.size() ? ", or " : ", ";
    text += hints[i];
  }
  return text;
}

const Importer* GuessImporter(const fs::path& file) {
  Result<std::string> head = ReadHead(file);
  if (!head.ok() || DetectEncoding(*head) != TextEncoding::kPlain) return nullptr;
  return &ImporterFor(DetectFormat(*head, file));
}

Status ImportFile(const fs::path& file, const InputOptions& options, ImportContext& ctx, const Importer** format_used) {
  const Importer* ignored = nullptr;
  const Importer** used = format_used != nullptr ? format_used : &ignored;
  RETURN_IF_ERROR(CheckInputFile(file));
  if (!options.scratch_dir.empty()) UseSqliteScratchDir(options.scratch_dir);
  ASSIGN_OR_RETURN(std::string head, ReadHead(file));
  const TextEncoding encoding = DetectEncoding(head);
  if (encoding == TextEncoding::kPlain) return ImportDetected(file, file, head, options, ctx, used);
  // A byte order mark: read a plain UTF-8 copy, named in messages as the input.
  ASSIGN_OR_RETURN(fs::path copy, ReencodeToUtf8(file, encoding, options.scratch_dir));
  Result<std::string> copy_head = ReadHead(copy);
  Status status = copy_head.ok() ? ImportDetected(file, copy, *copy_head, options, ctx, used)
                                 : Status(std::move(copy_head).error());
  std::error_code ec;
  fs::remove(copy, ec);
  return status;
}

}  // namespace llmpo::ingest
