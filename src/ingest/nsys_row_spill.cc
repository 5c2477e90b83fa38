#include "src/ingest/nsys_row_spill.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <string>
#include <utility>

#include "src/core/varint.h"
#include "src/ingest/importer.h"

namespace llmpo::ingest::nsys_sqlite {
namespace {

constexpr std::size_t kChunkBytes = std::size_t{1} << 20;
constexpr std::size_t kMaxRowBytes = 10 * (RowSpill::kMaxColumns + 1);  // a code word and a varint per column

// PutVarint's encoding, written through a pointer into room already there.
std::uint8_t* WriteVarint(std::uint8_t* out, std::uint64_t v) {
  while (v >= 0x80) {
    *out++ = static_cast<std::uint8_t>(v | 0x80);
    v >>= 7;
  }
  *out++ = static_cast<std::uint8_t>(v);
  return out;
}

// Each column's code in a row's code word, two bits a column.
constexpr std::uint64_t kNull = 0, kSame = 1, kDelta = 2;
// The high bit of every column's code: set for kDelta only, so the deltas
// of a row are the set bits of codes & kDeltaBits, in column order.
constexpr std::uint64_t kDeltaBits = 0xAAAAAAAAAAAAAAAAull;
static_assert(2 * RowSpill::kMaxColumns < 64, "a row's codes fit one word, with room for the column mask");

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
  const std::filesystem::path dir = SqliteScratchDir();
  if (dir.empty()) return -1;
#ifdef O_TMPFILE
  const int fd = open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
#endif
  std::string name = (dir / ".llmpo-calls-XXXXXX").string();
  const int named = mkostemp(name.data(), O_CLOEXEC);
  if (named >= 0) unlink(name.c_str());
  return named;
}

// All `size` bytes through `io` (read or write), which may move fewer at a time.
template <typename Byte, typename Io>
bool MoveAll(int fd, Byte* data, std::size_t size, Io io) {
  while (size > 0) {
    const ssize_t n = io(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

bool WriteAll(int fd, const std::uint8_t* data, std::size_t size) { return MoveAll(fd, data, size, ::write); }
bool ReadAll(int fd, std::uint8_t* data, std::size_t size) { return MoveAll(fd, data, size, ::read); }

}  // namespace

RowSpill::RowSpill() : fd_(OpenScratchFile()) { buffer_.resize(kChunkBytes + kMaxRowBytes); }

RowSpill::~RowSpill() {
  if (fd_ >= 0) close(fd_);
}

RowSpill::RowSpill(RowSpill&& other) noexcept { *this = std::move(other); }

RowSpill& RowSpill::operator=(RowSpill&& other) noexcept {
  if (this == &other) return *this;
  if (fd_ >= 0) close(fd_);
  columns_ = other.columns_;
  fd_ = std::exchange(other.fd_, -1);
  kept_ = std::move(other.kept_);
  chunk_sizes_ = std::move(other.chunk_sizes_);
  buffer_ = std::move(other.buffer_);
  used_ = other.used_;
  chunk_ = other.chunk_;
  pos_ = other.pos_;
  failed_ = other.failed_;
  reading_ = other.reading_;
  std::copy(std::begin(other.last_), std::end(other.last_), std::begin(last_));
  last_codes_ = other.last_codes_;
  return *this;
}

bool RowSpill::Put(std::span<const Column> row) {
  if (failed_ || reading_) return !(failed_ = true);  // no row after Rewind
  if (columns_ == 0) columns_ = std::min(row.size(), kMaxColumns);
  if (row.size() != columns_) return !(failed_ = true);  // a caller's mistake: never a short row
  std::uint64_t codes = 0;
  for (std::size_t i = 0; i < columns_; ++i) {
    const std::uint64_t code = !row[i] ? kNull : *row[i] == last_[i] ? kSame : kDelta;
    codes |= code << (2 * i);
  }
  std::uint8_t* out = WriteVarint(buffer_.data() + used_, codes ^ last_codes_);  // rows are alike: mostly 0
  last_codes_ = codes;
  for (std::uint64_t deltas = codes & kDeltaBits; deltas != 0; deltas &= deltas - 1) {
    const auto i = static_cast<std::size_t>(__builtin_ctzll(deltas)) / 2;
    out = WriteVarint(out, Zigzag(Minus(*row[i], last_[i])));
    last_[i] = *row[i];
  }
  used_ = static_cast<std::size_t>(out - buffer_.data());
  return used_ < kChunkBytes || Flush();
}

bool RowSpill::Flush() {
  if (used_ == 0) return true;
  chunk_sizes_.push_back(used_);
  if (fd_ < 0) {
    kept_.emplace_back(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(used_));
  } else if (!WriteAll(fd_, buffer_.data(), used_)) {
    failed_ = true;
  }
  used_ = 0;
  return !failed_;
}

bool RowSpill::Rewind() {
  if (reading_) return !(failed_ = true);  // once, after the rows
  reading_ = true;
  if (!Flush()) return false;
  if (fd_ >= 0 && lseek(fd_, 0, SEEK_SET) != 0) failed_ = true;
  chunk_ = 0;
  pos_ = 0;
  std::fill(std::begin(last_), std::end(last_), 0);
  last_codes_ = 0;
  used_ = 0;
  return !failed_;
}

bool RowSpill::LoadChunk() {
  if (failed_ || chunk_ >= chunk_sizes_.size()) return false;
  used_ = chunk_sizes_[chunk_];
  if (fd_ < 0) {
    buffer_ = std::move(kept_[chunk_]);
  } else if (!ReadAll(fd_, buffer_.data(), used_)) {  // buffer_ holds a chunk and more
    return !(failed_ = true);
  }
  ++chunk_;
  pos_ = 0;
  return true;
}

bool RowSpill::Next(std::span<Column> row) {
  if (row.size() < columns_) return !(failed_ = true);
  if (pos_ >= used_ && !LoadChunk()) return false;
  // Rows never straddle chunks: each chunk ends after a whole one.
  const std::uint8_t* bytes = buffer_.data();
  const std::uint64_t codes = GetVarint(bytes, pos_) ^ last_codes_;
  last_codes_ = codes;
  // Only this spill's columns (2 * kMaxColumns < 64 bits), whatever the bytes say.
  const std::uint64_t columns = (std::uint64_t{1} << (2 * columns_)) - 1;
  for (std::uint64_t deltas = codes & kDeltaBits & columns; deltas != 0; deltas &= deltas - 1) {
    const auto i = static_cast<std::size_t>(__builtin_ctzll(deltas)) / 2;
    last_[i] = Plus(last_[i], Unzigzag(GetVarint(bytes, pos_)));
  }
  for (std::size_t i = 0; i < columns_; ++i) {
    if (((codes >> (2 * i)) & 3) == kNull) {
      row[i].reset();
    } else {
      row[i] = last_[i];
    }
  }
  return true;
}

}  // namespace llmpo::ingest::nsys_sqlite
