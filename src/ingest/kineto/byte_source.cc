#include "src/ingest/kineto/byte_source.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace llmpo::ingest::kineto {
namespace {

// The limit set in the environment; 0 when unset or not a positive number.
std::uint64_t LimitFromEnvironment() {
  const char* text = std::getenv(kInflateLimitVariable);
  if (text == nullptr || *text == '\0') return 0;
  char* end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (errno != 0 || *end != '\0' || text[0] == '-') return 0;
  return value;
}

// Counts the bytes a gzip stream inflates to against its limit; false (and
// the source's error set) once they pass it.
class InflateBudget {
 public:
  InflateBudget() : fixed_(LimitFromEnvironment()) {}
  // `compressed`: the stream's compressed bytes (so far, or all of them).
  bool Add(std::size_t inflated, std::uint64_t compressed, std::string& error) {
    inflated_ += inflated;
    const std::uint64_t limit = fixed_ != 0 ? fixed_ : InflateLimit(compressed);
    if (inflated_ <= limit) return true;
    error = fmt::format("the gzip stream inflates past {} bytes ({} compressed bytes); refused as a likely gzip bomb",
                        limit, compressed);
    return false;
  }

 private:
  std::uint64_t fixed_;
  std::uint64_t inflated_ = 0;
};

}  // namespace

std::uint64_t InflateLimitOrOverride(std::uint64_t compressed) {
  const std::uint64_t fixed = LimitFromEnvironment();
  return fixed != 0 ? fixed : InflateLimit(compressed);
}

namespace {

class GzFileSource : public ByteSource {
 public:
  GzFileSource(gzFile file, std::uint64_t compressed, std::size_t buffer) : file_(file), compressed_(compressed) {
    gzbuffer(file_, static_cast<unsigned>(buffer));
  }
  ~GzFileSource() override { gzclose(file_); }
  GzFileSource(const GzFileSource&) = delete;
  GzFileSource& operator=(const GzFileSource&) = delete;

  std::size_t Read(char* buffer, std::size_t size) override {
    if (done_) return 0;
    const int got = gzread(file_, buffer, static_cast<unsigned>(size > INT_MAX ? INT_MAX : size));
    if (got > 0 && budget_.Add(static_cast<std::size_t>(got), compressed_, error_))
      return static_cast<std::size_t>(got);
    done_ = true;
    if (got > 0) {
      over_limit_ = true;
      return 0;
    }
    int code = Z_OK;
    const char* message = gzerror(file_, &code);
    if (code != Z_OK && code != Z_STREAM_END) {
      error_ = code == Z_BUF_ERROR ? "the gzip stream is cut short (unexpected end of file)"
                                   : std::string("gzip: ") + (message ? message : "read error");
    } else if (got < 0) {
      error_ = "read error";
    }
    return 0;
  }

 private:
  gzFile file_;
  std::uint64_t compressed_;
  InflateBudget budget_;
  bool done_ = false;
};

// A file that is not gzip, read straight into the caller's buffer (gzread
// would copy it through a buffer of its own first).
class PlainFileSource : public ByteSource {
 public:
  explicit PlainFileSource(int fd) : fd_(fd) {}
  ~PlainFileSource() override { ::close(fd_); }
  PlainFileSource(const PlainFileSource&) = delete;
  PlainFileSource& operator=(const PlainFileSource&) = delete;

  std::size_t Read(char* buffer, std::size_t size) override {
    if (done_) return 0;
    for (;;) {
      const ssize_t got = ::read(fd_, buffer, size);
      if (got > 0) return static_cast<std::size_t>(got);
      if (got < 0 && errno == EINTR) continue;
      done_ = true;
      if (got < 0) error_ = std::string("read error: ") + std::strerror(errno);
      return 0;
    }
  }

  bool Seek(std::uint64_t offset) override {
    if (::lseek(fd_, static_cast<off_t>(offset), SEEK_SET) < 0) return false;
    done_ = false;
    return true;
  }

 private:
  int fd_;
  bool done_ = false;
};

class PagesSource : public ByteSource {
 public:
  PagesSource(PageBuffer bytes, std::string error) : bytes_(std::move(bytes)), end_error_(std::move(error)) {}
  std::size_t Read(char* buffer, std::size_t size) override {
    const std::size_t n = std::min(size, bytes_.size() - at_);
    if (n < size) error_ = end_error_;  // as the archive's source: on the read it could not fill
    if (n > 0) std::memcpy(buffer, bytes_.data() + at_, n);
    at_ += n;
    return n;
  }
  // No Seek: read as the archive member it was, in one pass.

 private:
  PageBuffer bytes_;
  std::string end_error_;
  std::size_t at_ = 0;
};

// zlib's inflate over another source, for gzip members of an archive.
class InflatingSource : public ByteSource {
 public:
  explicit InflatingSource(ByteSource& in) : in_(in), input_(1 << 20) {
    ok_ = inflateInit2(&z_, 16 + MAX_WBITS) == Z_OK;  // 16: gzip framing
    if (!ok_) error_ = "gzip: cannot start inflating";
  }
  ~InflatingSource() override {
    if (ok_) inflateEnd(&z_);
  }
  InflatingSource(const InflatingSource&) = delete;
  InflatingSource& operator=(const InflatingSource&) = delete;

  std::size_t Read(char* buffer, std::size_t size) override {
    if (!ok_ || done_) return 0;
    z_.next_out = reinterpret_cast<Bytef*>(buffer);
    const auto want = static_cast<uInt>(size > UINT_MAX ? UINT_MAX : size);
    z_.avail_out = want;
    while (z_.avail_out == want) {  // until some output (or the end)
      if (z_.avail_in == 0) {
        const std::size_t got = in_.Read(input_.data(), input_.size());
        if (got == 0) {
          done_ = true;
          error_ = in_.error().empty() ? "the gzip stream is cut short (unexpected end of file)" : in_.error();
          break;
        }
        z_.next_in = reinterpret_cast<Bytef*>(input_.data());
        z_.avail_in = static_cast<uInt>(got);
        compressed_ += got;
      }
      const int rc = inflate(&z_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        done_ = true;
        break;
      }
      if (rc != Z_OK && rc != Z_BUF_ERROR) {
        done_ = true;
        error_ = std::string("gzip: ") + (z_.msg ? z_.msg : "damaged data");
        break;
      }
    }
    const std::size_t produced = want - z_.avail_out;
    if (!budget_.Add(produced, compressed_, error_)) {
      done_ = over_limit_ = true;
      return 0;
    }
    return produced;
  }

 private:
  ByteSource& in_;
  std::vector<char> input_;
  std::uint64_t compressed_ = 0;  // read from in_ so far
  InflateBudget budget_;
  z_stream z_{};
  bool ok_ = false;
  bool done_ = false;
};

}  // namespace

std::uint64_t InflateLimit(std::uint64_t compressed) {
  const std::uint64_t scaled = compressed > UINT64_MAX / kInflateRatio ? UINT64_MAX : compressed * kInflateRatio;
  return std::max(kInflateFloorBytes, scaled);
}

PageBuffer::PageBuffer(std::size_t size) {
  if (size == 0) return;
  void* pages = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (pages == MAP_FAILED) return;
  data_ = static_cast<char*>(pages);
  size_ = mapped_ = size;
}

PageBuffer::~PageBuffer() {
  if (data_ != nullptr) ::munmap(data_, mapped_);
}

PageBuffer::PageBuffer(PageBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      mapped_(std::exchange(other.mapped_, 0)) {}

PageBuffer& PageBuffer::operator=(PageBuffer&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) ::munmap(data_, mapped_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    mapped_ = std::exchange(other.mapped_, 0);
  }
  return *this;
}

std::unique_ptr<ByteSource> MemorySource(PageBuffer bytes, std::string error) {
  return std::make_unique<PagesSource>(std::move(bytes), std::move(error));
}

std::unique_ptr<ByteSource> GunzipSource(ByteSource& compressed) {
  return std::make_unique<InflatingSource>(compressed);
}

bool IsGzip(const char* bytes, std::size_t size) {
  return size >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::unique_ptr<ByteSource> OpenFileSource(const std::string& path, std::string& why, std::size_t gzip_buffer) {
  // A regular file without gzip's magic is read plainly; anything else
  // (gzip, a pipe that cannot be peeked at) through zlib.
  if (const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC); fd >= 0) {
    char magic[2];
    if (const ssize_t n = ::pread(fd, magic, sizeof(magic), 0); n >= 0 && !IsGzip(magic, static_cast<std::size_t>(n))) {
      return std::make_unique<PlainFileSource>(fd);
    }
    ::close(fd);
  }
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) {
    why = "cannot be opened for reading";
    return nullptr;
  }
  struct stat st {};
  const std::uint64_t compressed = ::stat(path.c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
  return std::make_unique<GzFileSource>(file, compressed, gzip_buffer);
}

}  // namespace llmpo::ingest::kineto
