#include "src/ingest/nsys_call_spill.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>
#include <utility>

#include "src/core/varint.h"

namespace llmpo::ingest::nsys_sqlite {
namespace {

constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

// Record flags: which fields a row has, and which repeat the call before.
constexpr std::uint8_t kHasCall = 1, kTid = 2, kStart = 4, kEnd = 8, kName = 16, kSameTid = 32, kSameName = 64;

std::uint64_t Zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
std::int64_t Unzigzag(std::uint64_t v) { return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1); }
// Deltas wrap as unsigned numbers do: any two int64 values round-trip.
std::int64_t Minus(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}
std::int64_t Plus(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}

// An unnamed file in SQLite's scratch folder (removed when closed, even
// after a crash), else -1.
int OpenScratchFile() {
  const char* dir = sqlite3_temp_directory;
  if (dir == nullptr) return -1;
#ifdef O_TMPFILE
  const int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
#endif
  std::string name = std::string(dir) + "/.llmpo-calls-XXXXXX";
  const int named = mkstemp(name.data());
  if (named >= 0) unlink(name.c_str());
  return named;
}

bool WriteAll(int fd, const std::uint8_t* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

bool ReadAll(int fd, std::uint8_t* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = read(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

CallSpill::CallSpill() : fd_(OpenScratchFile()) { buffer_.reserve(kChunkBytes + 64); }

CallSpill::~CallSpill() {
  if (fd_ >= 0) close(fd_);
}

CallSpill::CallSpill(CallSpill&& other) noexcept { *this = std::move(other); }

CallSpill& CallSpill::operator=(CallSpill&& other) noexcept {
  if (this == &other) return *this;
  if (fd_ >= 0) close(fd_);
  fd_ = std::exchange(other.fd_, -1);
  kept_ = std::move(other.kept_);
  chunk_sizes_ = std::move(other.chunk_sizes_);
  buffer_ = std::move(other.buffer_);
  chunk_ = other.chunk_;
  pos_ = other.pos_;
  failed_ = other.failed_;
  rowid_ = other.rowid_;
  last_ = other.last_;
  read_ = other.read_;
  has_last_ = other.has_last_;
  last_has_call_ = other.last_has_call_;
  return *this;
}

bool CallSpill::Put(std::int64_t rowid, const LaunchCall* call) {
  if (failed_) return false;
  PutVarint(buffer_, Zigzag(Minus(rowid, rowid_)));
  rowid_ = rowid;
  if (call == nullptr) {
    buffer_.push_back(0);
  } else {
    std::uint8_t flags = kHasCall;
    if (call->tid) flags |= *call->tid == last_.tid ? kTid | kSameTid : kTid;
    if (call->start) flags |= kStart;
    if (call->end) flags |= kEnd;
    if (call->name_id) flags |= *call->name_id == last_.name_id ? kName | kSameName : kName;
    buffer_.push_back(flags);
    if ((flags & kTid) && !(flags & kSameTid)) PutVarint(buffer_, Zigzag(*call->tid));
    if (call->start) PutVarint(buffer_, Zigzag(Minus(*call->start, last_.start.value_or(0))));
    if (call->end) PutVarint(buffer_, Zigzag(Minus(*call->end, call->start.value_or(0))));
    if ((flags & kName) && !(flags & kSameName)) PutVarint(buffer_, Zigzag(*call->name_id));
    if (call->tid) last_.tid = call->tid;
    if (call->start) last_.start = call->start;
    if (call->name_id) last_.name_id = call->name_id;
  }
  return buffer_.size() < kChunkBytes || Flush();
}

bool CallSpill::Flush() {
  if (buffer_.empty()) return true;
  chunk_sizes_.push_back(buffer_.size());
  if (fd_ < 0) {
    kept_.push_back(buffer_);
  } else if (!WriteAll(fd_, buffer_.data(), buffer_.size())) {
    failed_ = true;
  }
  buffer_.clear();
  return !failed_;
}

bool CallSpill::Rewind() {
  if (!Flush()) return false;
  if (fd_ >= 0 && lseek(fd_, 0, SEEK_SET) != 0) failed_ = true;
  chunk_ = 0;
  pos_ = 0;
  rowid_ = 0;
  last_ = LaunchCall{};
  has_last_ = false;
  buffer_.clear();
  return !failed_;
}

bool CallSpill::LoadChunk() {
  if (failed_ || chunk_ >= chunk_sizes_.size()) return false;
  if (fd_ < 0) {
    buffer_ = std::move(kept_[chunk_]);
  } else {
    buffer_.resize(chunk_sizes_[chunk_]);
    if (!ReadAll(fd_, buffer_.data(), buffer_.size())) return !(failed_ = true);
  }
  ++chunk_;
  pos_ = 0;
  return true;
}

bool CallSpill::Next(std::int64_t rowid, LaunchCall& call) {
  if (has_last_ && rowid == rowid_) {  // the row again
    call = last_has_call_ ? read_ : LaunchCall{};
    return true;
  }
  if (pos_ >= buffer_.size() && !LoadChunk()) return false;
  // Records never straddle chunks: each chunk ends after a whole one.
  const std::uint8_t* bytes = buffer_.data();
  const std::int64_t next = Plus(rowid_, Unzigzag(GetVarint(bytes, pos_)));
  const std::uint8_t flags = bytes[pos_++];
  rowid_ = next;
  has_last_ = true;
  last_has_call_ = (flags & kHasCall) != 0;
  read_ = LaunchCall{};
  if (last_has_call_) {
    if (flags & kTid) read_.tid = (flags & kSameTid) ? last_.tid : std::optional(Unzigzag(GetVarint(bytes, pos_)));
    if (flags & kStart) read_.start = Plus(last_.start.value_or(0), Unzigzag(GetVarint(bytes, pos_)));
    if (flags & kEnd) read_.end = Plus(read_.start.value_or(0), Unzigzag(GetVarint(bytes, pos_)));
    if (flags & kName) {
      read_.name_id = (flags & kSameName) ? last_.name_id : std::optional(Unzigzag(GetVarint(bytes, pos_)));
    }
    if (read_.tid) last_.tid = read_.tid;
    if (read_.start) last_.start = read_.start;
    if (read_.name_id) last_.name_id = read_.name_id;
  }
  call = last_has_call_ ? read_ : LaunchCall{};
  return next == rowid;
}

}  // namespace llmpo::ingest::nsys_sqlite
