#include "src/core/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <vector>

#include "src/core/name_gate.h"

namespace llmpo {
namespace {

namespace fs = std::filesystem;

Error IoError(const fs::path& path, std::string_view what) {
  return MakeError(ExitStatus::kFailure, fmt::format("cannot {} '{}': {}", what, path.string(), std::strerror(errno)));
}

Error SymlinkRefused(const fs::path& path) {
  return MakeError(ExitStatus::kFailure,
                   fmt::format("refusing to write '{}': it is a symbolic link, and output files never follow one",
                               path.string()))
      .WithNote("remove the link, or choose another output folder (docs/security.md)");
}

Error NotAFolder(const fs::path& path) {
  return MakeError(
             ExitStatus::kFailure,
             fmt::format("cannot create folder '{}': something that is not a folder is in the way", path.string()))
      .WithNote("remove it, or choose another output folder");
}

bool WriteAll(int fd, std::string_view content) {
  while (!content.empty()) {
    const ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    content.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// A destination that is a symbolic link is refused rather than replaced:
// rename would replace the link itself, but a link there means someone
// expected the output to go elsewhere.
Status CheckNotSymlink(const fs::path& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) return SymlinkRefused(path);
  return OkStatus();
}

// 12 characters from a 32-letter alphabet: 60 random bits, not guessable
// from the process id or the time.
std::string RandomSuffix() {
  unsigned char bytes[12];
  std::size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    got += static_cast<std::size_t>(n);
  }
  if (got < sizeof bytes) {  // no getrandom (old kernel, seccomp): the C++ library's source
    std::random_device device;
    for (auto& b : bytes) b = static_cast<unsigned char>(device());
  }
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
  std::string out;
  for (unsigned char b : bytes) out += kAlphabet[b % 32];
  return out;
}

// The temp file: "<file>.tmp.<random>" in the same folder (so the rename
// stays on one file system), created exclusively and never through a link.
struct TempFile {
  fs::path path;
  int fd = -1;
};

Result<TempFile> CreateTemp(const fs::path& path) {
  fs::path tmp;
  for (int attempt = 0; attempt < 16; ++attempt) {
    tmp = path;
    tmp += ".tmp." + RandomSuffix();
    const int fd = ThroughNameGate(
        [&] { return ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644); });
    if (fd >= 0) return TempFile{tmp, fd};
    if (errno != EEXIST) return IoError(tmp, "create");
  }
  return IoError(tmp, "create a temp file like");
}

// Closes the temp file, then renames it over `path`, or removes it.
Status Finish(TempFile& tmp, const fs::path& path, bool written, int write_errno, Durability durability) {
  if (written && durability == Durability::kSynced && ::fsync(tmp.fd) != 0) {
    written = false;
    write_errno = errno;
  }
  if (::close(tmp.fd) != 0 && written) {
    written = false;
    write_errno = errno;
  }
  tmp.fd = -1;
  if (!written) {
    errno = write_errno;
    Error e = IoError(tmp.path, "write");
    ::unlink(tmp.path.c_str());
    return e;
  }
  if (ThroughNameGate([&] { return ::rename(tmp.path.c_str(), path.c_str()); }) != 0) {
    Error e = IoError(path, "rename temp file onto");
    ::unlink(tmp.path.c_str());
    return e;
  }
  return OkStatus();
}

// An ostream's buffer over a file descriptor, so streamed output goes to the
// temp file opened above instead of a second open by name.
class FdStreamBuf : public std::streambuf {
 public:
  explicit FdStreamBuf(int fd) : fd_(fd), buffer_(1 << 16) { setp(buffer_.data(), buffer_.data() + buffer_.size()); }
  bool ok() const { return ok_; }
  int error() const { return errno_; }
  bool Flush() {
    if (ok_ && !WriteAll(fd_, std::string_view(pbase(), static_cast<std::size_t>(pptr() - pbase())))) {
      ok_ = false;
      errno_ = errno;
    }
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return ok_;
  }

 protected:
  int_type overflow(int_type ch) override {
    if (!Flush()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override { return Flush() ? 0 : -1; }

 private:
  int fd_;
  std::vector<char> buffer_;
  bool ok_ = true;
  int errno_ = 0;
};

}  // namespace

Status WriteFileAtomically(const fs::path& path, std::string_view content, Durability durability) {
  RETURN_IF_ERROR(CheckNotSymlink(path));
  ASSIGN_OR_RETURN(TempFile tmp, CreateTemp(path));
  const bool written = WriteAll(tmp.fd, content);
  return Finish(tmp, path, written, errno, durability);
}

Status WriteFileAtomically(const fs::path& path, const std::function<void(std::ostream&)>& writer,
                           Durability durability) {
  RETURN_IF_ERROR(CheckNotSymlink(path));
  ASSIGN_OR_RETURN(TempFile tmp, CreateTemp(path));
  FdStreamBuf buffer(tmp.fd);
  std::ostream out(&buffer);
  try {
    writer(out);
  } catch (...) {  // bad_alloc in a report writer: no temp file left behind
    ::close(tmp.fd);
    ::unlink(tmp.path.c_str());
    throw;
  }
  const bool written = out.flush() && buffer.Flush();
  return Finish(tmp, path, written, buffer.error(), durability);
}

Status CreateFoldersNoFollow(const fs::path& dir, const fs::path& ours) {
  if (ours.is_absolute()) {
    return MakeError(ExitStatus::kFailure, fmt::format("'{}' is not a relative path", ours.string()));
  }
  fs::path base = dir;
  std::vector<fs::path> parts;
  for (const auto& part : ours) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      return MakeError(ExitStatus::kFailure, fmt::format("'{}' leaves its folder ('..')", ours.string()));
    }
    parts.push_back(part);
  }
  for (std::size_t i = 0; i < parts.size(); ++i) base = base.parent_path();
  std::error_code ec;
  if (ThroughNameGate([&] {
        fs::create_directories(base, ec);
        return 0;
      }) != 0) {
    return IoError(base, "create");
  }
  if (ec) return MakeError(ExitStatus::kFailure, fmt::format("cannot create '{}': {}", base.string(), ec.message()));
  fs::path at = base;
  for (const auto& part : parts) {
    at /= part;
    if (ThroughNameGate([&] { return ::mkdir(at.c_str(), 0755); }) == 0) continue;
    if (errno != EEXIST) return IoError(at, "create folder");
    struct stat st {};
    if (::lstat(at.c_str(), &st) != 0) return IoError(at, "inspect");
    if (S_ISLNK(st.st_mode)) return SymlinkRefused(at);
    if (!S_ISDIR(st.st_mode)) return NotAFolder(at);
  }
  return OkStatus();
}

Status WriteFileNoFollow(const fs::path& path, std::string_view content) {
  // O_NONBLOCK: a FIFO planted here fails to open instead of blocking.
  const int fd = ThroughNameGate(
      [&] { return ::open(path.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644); });
  if (fd < 0) {
    if (errno == ELOOP) return SymlinkRefused(path);
    return IoError(path, "create");
  }
  struct stat st {};
  Status refused = OkStatus();
  if (::fstat(fd, &st) != 0) {
    refused = IoError(path, "inspect");
  } else if (!S_ISREG(st.st_mode)) {
    refused =
        MakeError(ExitStatus::kFailure, fmt::format("refusing to write '{}': it is not a regular file", path.string()))
            .WithNote("remove it, or choose another output folder");
  } else if (st.st_nlink > 1) {
    refused =
        MakeError(ExitStatus::kFailure,
                  fmt::format("refusing to write '{}': it has other hard links, which would change too", path.string()))
            .WithNote("remove it, or choose another output folder (docs/security.md)");
  }
  if (!refused.ok()) {
    ::close(fd);
    return refused;
  }
  const bool written = ::ftruncate(fd, 0) == 0 && WriteAll(fd, content);
  const int saved_errno = errno;
  if (::close(fd) != 0 || !written) {
    if (!written) errno = saved_errno;
    return IoError(path, "write");
  }
  return OkStatus();
}

Status CheckOutputDestination(const fs::path& path) { return CheckNotSymlink(path); }

Status MoveIntoPlace(const fs::path& staged, const fs::path& path) {
  RETURN_IF_ERROR(CheckNotSymlink(path));
  if (ThroughNameGate([&] { return ::rename(staged.c_str(), path.c_str()); }) != 0) return IoError(path, "write");
  return OkStatus();
}

namespace {

// Opens `path` for reading without blocking (a FIFO fails to open or reads
// nothing instead of waiting for a writer) and refuses anything but a
// regular file (a device such as /dev/zero would never end).
Result<int> OpenRegularForReading(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    return MakeError(ExitStatus::kInput, fmt::format("cannot open '{}': {}", path.string(), std::strerror(errno)));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return MakeError(ExitStatus::kInput,
                     fmt::format("'{}' is not a regular file; not read (it could block or never end)", path.string()));
  }
  return fd;
}

}  // namespace

Result<std::string> ReadWholeFile(const fs::path& path) {
  ASSIGN_OR_RETURN(const int fd, OpenRegularForReading(path));
  std::string text;
  std::vector<char> chunk(1 << 16);
  while (true) {
    const ssize_t n = ::read(fd, chunk.data(), chunk.size());
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      return MakeError(ExitStatus::kInput, fmt::format("cannot read '{}': {}", path.string(), std::strerror(err)));
    }
    text.append(chunk.data(), static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

Result<ReadStream> OpenRegularFileStream(const fs::path& path) {
  ASSIGN_OR_RETURN(const int fd, OpenRegularForReading(path));
  std::FILE* file = ::fdopen(fd, "rb");
  if (file == nullptr) {
    const int err = errno;
    ::close(fd);
    return MakeError(ExitStatus::kInput, fmt::format("cannot read '{}': {}", path.string(), std::strerror(err)));
  }
  return ReadStream(file, &std::fclose);
}

}  // namespace llmpo
