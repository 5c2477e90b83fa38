// CsvReader over a memory-mapped regular file: windows of the file are
// mapped in turn and scanned in place, which saves the copy a read() makes
// into a buffer (most of the cost of reading a file the page cache holds).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>
#include <utility>

#include "src/core/csv_reader.h"

namespace llmpo {

CsvReader::Mapping& CsvReader::Mapping::operator=(Mapping&& other) noexcept {
  if (this != &other) {
    Reset();
    addr_ = std::exchange(other.addr_, nullptr);
    length_ = std::exchange(other.length_, 0);
  }
  return *this;
}

void CsvReader::Mapping::Reset() {
  if (addr_ != nullptr) ::munmap(const_cast<char*>(addr_), length_);
  addr_ = nullptr;
  length_ = 0;
}

CsvReader::CsvReader(int fd, std::uint64_t file_size, std::size_t window_bytes)
    : fd_(fd), file_size_(file_size), window_bytes_(window_bytes) {}

std::unique_ptr<CsvReader> CsvReader::MapFile(const std::filesystem::path& file, std::size_t window_bytes) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return nullptr;
  }
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);  // a hint for a file not yet cached; harmless otherwise
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  window_bytes = std::max(page, (window_bytes + page - 1) / page * page);
  return std::unique_ptr<CsvReader>(new CsvReader(fd, static_cast<std::uint64_t>(st.st_size), window_bytes));
}

std::unique_ptr<CsvReader> CsvReader::MapRange(int fd, std::uint64_t begin, std::uint64_t end, std::uint64_t first_line,
                                               std::size_t window_bytes) {
  const int own = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (own < 0) return nullptr;
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  window_bytes = std::max(page, (window_bytes + page - 1) / page * page);
  auto reader = std::unique_ptr<CsvReader>(new CsvReader(own, std::max(begin, end), window_bytes));
  reader->map_offset_ = begin;  // the first window maps from the page holding `begin`
  reader->line_ = first_line;
  return reader;
}

std::optional<CsvReader::MappedPosition> CsvReader::mapped_position() const {
  if (in_ != nullptr || producer_.joinable()) return std::nullopt;
  return MappedPosition{fd_, map_offset_ + pos_, line_, file_size_};
}

// Maps the file from the page holding the unfinished record (pos_) to a
// window past the bytes mapped so far; a record longer than that doubles
// the span next time. At the end of the file nothing is added, but the
// unfinished record is mapped again if a batch took the window holding it.
bool CsvReader::MapNextWindow() {
  static const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  const std::uint64_t keep_from = map_offset_ + pos_;
  const std::uint64_t mapped_end = map_offset_ + size_;
  const bool at_end = mapped_end >= file_size_;
  if (at_end) eof_ = true;
  if (at_end && (!mapping_.empty() || keep_from >= mapped_end)) return false;
  const std::uint64_t start = keep_from - keep_from % page;
  const std::uint64_t kept = mapped_end - start;
  const std::uint64_t length =
      at_end ? kept : std::min(kept + std::max<std::uint64_t>(window_bytes_, kept), file_size_ - start);
  void* addr = ::mmap(nullptr, length, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd_, static_cast<off_t>(start));
  if (addr == MAP_FAILED) throw std::system_error(errno, std::generic_category(), "mapping the file");
  mapping_ = Mapping(static_cast<const char*>(addr), length);  // unmaps the window before, unless a batch took it
  bytes_ = static_cast<const char*>(addr);
  map_offset_ = start;
  pos_ = keep_from - start;
  size_ = length;
  return !at_end;
}

}  // namespace llmpo
