// Rows of integer columns kept by the nsys SQLite import's first pass over
// a GPU table (nsys_sqlite.cc, CanMergeCalls: is a merge join with the CUDA
// API rows possible?) for the pass that hands the rows to the sink: with
// each row's launch call joined on the way, neither the API table nor (for
// kernels) the GPU table is read a second time.
//
// A few bytes per row: each column is null, the column's last value again,
// or a varint of the difference (launches come in runs of one device,
// stream, thread and name, microseconds apart); which of the three, for
// every column, is kept as its change from the row before. Written in chunks of about
// 1 MiB to an unnamed file in SQLite's scratch folder (the output folder;
// UseSqliteScratchDir) and read back chunk by chunk, so memory does not grow
// with the rows. Without a scratch folder, or where the file cannot be
// made, the chunks stay in memory (and then grow with the rows).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace llmpo::ingest::nsys_sqlite {

class RowSpill {
 public:
  static constexpr std::size_t kMaxColumns = 16;
  using Column = std::optional<std::int64_t>;

  RowSpill();
  ~RowSpill();
  RowSpill(RowSpill&& other) noexcept;
  RowSpill& operator=(RowSpill&& other) noexcept;
  RowSpill(const RowSpill&) = delete;
  RowSpill& operator=(const RowSpill&) = delete;

  // Writing: one row, of as many columns as the first (at most
  // kMaxColumns). False when the scratch file could not be written (the
  // spill is then unusable).
  bool Put(std::span<const Column> row);
  // Ends writing, once; reading starts at the first row. False as Put.
  bool Rewind();
  // Reading: the next row into the first columns() of `row`; false after
  // the last (or when the file failed: failed() tells).
  bool Next(std::span<Column> row);
  bool failed() const { return failed_; }
  std::size_t columns() const { return columns_; }

 private:
  bool Flush();
  bool LoadChunk();

  std::size_t columns_ = 0;                      // set by the first row
  int fd_ = -1;                                  // the scratch file; -1: chunks in memory
  std::vector<std::vector<std::uint8_t>> kept_;  // the chunks without a file
  std::vector<std::size_t> chunk_sizes_;
  std::vector<std::uint8_t> buffer_;  // the chunk being written or read: its first used_ bytes
  std::size_t used_ = 0;
  std::size_t chunk_ = 0, pos_ = 0;  // reading: the next chunk, and the place in buffer_
  bool failed_ = false;
  bool reading_ = false;                 // Rewind was called: no more rows, no second Rewind
  std::int64_t last_[kMaxColumns] = {};  // each column's last known value: the base of its deltas
  std::uint64_t last_codes_ = 0;         // the row before's code word
};

}  // namespace llmpo::ingest::nsys_sqlite
