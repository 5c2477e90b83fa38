#include "src/pipeline/input_dedupe.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "src/core/hash.h"

namespace llmpo::pipeline {
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kChunk = 1 << 20;

struct Seen {
  fs::path path;
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = 0;
  std::optional<std::uint64_t> hash;  // computed when another input has the same size
};

// A regular file's identity and size; nullopt for anything else (a missing
// file, a FIFO: its import reports it).
std::optional<Seen> Identify(const fs::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return Seen{file, st.st_dev, st.st_ino, st.st_size, std::nullopt};
}

// Calls `chunk` with the file's bytes in order; false if it cannot be read
// or `chunk` says stop.
bool ForEachChunk(const fs::path& file, const std::function<bool(std::string_view)>& chunk) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return false;
  struct stat st {};
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  std::string buffer(kChunk, '\0');
  while (ok) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = n == 0;
      break;
    }
    ok = chunk(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
  }
  ::close(fd);
  return ok;
}

std::optional<std::uint64_t> HashOf(Seen& s) {
  if (s.hash) return s.hash;
  std::uint64_t h = 0;
  if (!ForEachChunk(s.path, [&](std::string_view bytes) {
        h = HashBytes(bytes, h);
        return true;
      })) {
    return std::nullopt;
  }
  s.hash = h;
  return s.hash;
}

// Byte for byte: a hash match alone could be a collision.
bool SameBytes(const fs::path& a, const fs::path& b) {
  const int fd = ::open(b.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return false;
  std::string other(kChunk, '\0');
  const bool same = ForEachChunk(a, [&](std::string_view bytes) {
    std::size_t got = 0;
    while (got < bytes.size()) {
      const ssize_t n = ::read(fd, other.data() + got, bytes.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      got += static_cast<std::size_t>(n);
    }
    return std::string_view(other.data(), got) == bytes;
  });
  char extra = 0;
  const bool at_end = same && ::read(fd, &extra, 1) == 0;
  ::close(fd);
  return at_end;
}

bool SameContent(Seen& earlier, Seen& later) {
  if (earlier.device == later.device && earlier.inode == later.inode) return true;
  if (earlier.size != later.size) return false;
  const std::optional<std::uint64_t> a = HashOf(earlier), b = HashOf(later);
  return a && b && *a == *b && SameBytes(earlier.path, later.path);
}

}  // namespace

std::vector<fs::path> UniqueInputs(const std::vector<fs::path>& inputs, model::Diagnostics& diagnostics) {
  std::vector<fs::path> unique;
  std::vector<Seen> seen;
  for (const auto& file : inputs) {
    std::optional<Seen> id = Identify(file);
    const Seen* same = nullptr;
    for (auto& s : seen) {
      if (id && SameContent(s, *id)) {
        same = &s;
        break;
      }
    }
    if (same != nullptr) {
      diagnostics.Note(fmt::format("{} has the same content as {}, given before it; read once", file.string(),
                                   same->path.string()));
      continue;
    }
    if (id) seen.push_back(std::move(*id));
    unique.push_back(file);
  }
  return unique;
}

}  // namespace llmpo::pipeline
