// Where a Kineto trace's bytes come from: a plain or gzip-compressed file
// (zlib's gzread passes plain files through unchanged), or one member of a
// tar archive (libarchive, any compression it knows). Reads are in chunks,
// so the file never sits in memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace llmpo::ingest::kineto {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Up to `size` bytes; 0 at the end or on an error (then error() says which).
  virtual std::size_t Read(char* buffer, std::size_t size) = 0;
  // Reading goes on from byte `offset`; false when this source cannot seek
  // (only a plain file can).
  virtual bool Seek(std::uint64_t /*offset*/) { return false; }
  // Empty while the bytes are whole; else why reading stopped early
  // ("unexpected end of file" for a cut gzip stream).
  const std::string& error() const { return error_; }
  // True when reading stopped because a gzip stream inflated past its
  // limit (InflateLimit; error() says how far): the input is refused, not
  // read as a trace cut short.
  bool over_limit() const { return over_limit_; }

 protected:
  std::string error_;
  bool over_limit_ = false;
};

// Against gzip bombs (docs/security.md): a gzip stream may inflate to at
// most max(kInflateFloorBytes, kInflateRatio x its compressed size), or to
// the byte count in the environment variable kInflateLimitVariable when that
// is a positive number.
inline constexpr std::uint64_t kInflateFloorBytes = std::uint64_t{1} << 30;
inline constexpr std::uint64_t kInflateRatio = 200;
inline constexpr const char* kInflateLimitVariable = "LLMPO_MAX_INFLATED_BYTES";

// The limit for a stream of `compressed` bytes.
std::uint64_t InflateLimit(std::uint64_t compressed);
// The same, or the environment variable's count when that is set.
std::uint64_t InflateLimitOrOverride(std::uint64_t compressed);

// A plain or gzip file; nullptr and `why` set when it cannot be opened.
// `gzip_buffer`: zlib's input buffer (it inflates up to twice that ahead of
// a read): large for reading a whole trace, small for a look at its head.
inline constexpr std::size_t kGzipReadBuffer = std::size_t{1} << 20;
inline constexpr std::size_t kGzipPeekBuffer = std::size_t{1} << 13;
std::unique_ptr<ByteSource> OpenFileSource(const std::string& path, std::string& why,
                                           std::size_t gzip_buffer = kGzipReadBuffer);

// Bytes in pages of their own (an anonymous mapping), given back to the
// system when freed: an archive member of some MB read whole would
// otherwise raise malloc's mmap threshold and stay in the heap after.
class PageBuffer {
 public:
  PageBuffer() = default;
  explicit PageBuffer(std::size_t size);  // size() is 0 if the pages cannot be had
  ~PageBuffer();
  PageBuffer(PageBuffer&& other) noexcept;
  PageBuffer& operator=(PageBuffer&& other) noexcept;
  PageBuffer(const PageBuffer&) = delete;
  PageBuffer& operator=(const PageBuffer&) = delete;

  char* data() { return data_; }
  const char* data() const { return data_; }
  std::size_t size() const { return size_; }
  void Shrink(std::size_t size) { size_ = size < size_ ? size : size_; }  // keeps the pages

 private:
  char* data_ = nullptr;
  std::size_t size_ = 0, mapped_ = 0;
};

// Bytes already in memory (an archive member read whole, to be parsed on
// another thread); the source owns them. A non-empty `error` is the
// source's error() once the bytes are read: why reading them stopped early.
std::unique_ptr<ByteSource> MemorySource(PageBuffer bytes, std::string error = {});

// Inflates a gzip stream read from `compressed` (which it does not own).
std::unique_ptr<ByteSource> GunzipSource(ByteSource& compressed);

// True when the first bytes are gzip's magic.
bool IsGzip(const char* bytes, std::size_t size);

}  // namespace llmpo::ingest::kineto
