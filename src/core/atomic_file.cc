#include "src/core/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace llmpo {
namespace {

Error IoError(const std::filesystem::path& path, std::string_view what) {
  return MakeError(ExitStatus::kFailure, fmt::format("cannot {} '{}': {}", what, path.string(), std::strerror(errno)));
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

Status RenameOver(const std::filesystem::path& tmp, const std::filesystem::path& path) {
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    Error e = IoError(path, "rename temp file onto");
    ::unlink(tmp.c_str());
    return e;
  }
  return OkStatus();
}

std::filesystem::path TempPathFor(const std::filesystem::path& path) {
  std::filesystem::path tmp = path;
  tmp += fmt::format(".tmp.{}", ::getpid());
  return tmp;
}

}  // namespace

Status WriteFileAtomically(const std::filesystem::path& path, std::string_view content, Durability durability) {
  const std::filesystem::path tmp = TempPathFor(path);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return IoError(tmp, "create");
  const bool written = WriteAll(fd, content) && (durability == Durability::kUnsynced || ::fsync(fd) == 0);
  const int saved_errno = errno;
  ::close(fd);
  if (!written) {
    errno = saved_errno;
    Error e = IoError(tmp, "write");
    ::unlink(tmp.c_str());
    return e;
  }
  return RenameOver(tmp, path);
}

Status WriteFileAtomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& writer,
                           Durability durability) {
  const std::filesystem::path tmp = TempPathFor(path);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return IoError(tmp, "create");
    writer(out);
    out.flush();
    if (!out) {
      Error e = IoError(tmp, "write");
      ::unlink(tmp.c_str());
      return e;
    }
  }
  if (durability == Durability::kSynced) {
    const int fd = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      ::fsync(fd);
      ::close(fd);
    }
  }
  return RenameOver(tmp, path);
}

Result<std::string> ReadWholeFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return MakeError(ExitStatus::kInput, fmt::format("cannot open '{}': {}", path.string(), std::strerror(errno)));
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace llmpo
