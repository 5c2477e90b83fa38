// The launch calls of a GPU table's rows, kept by the pass that checks
// whether a merge join is possible (nsys_sqlite.cc, CanMergeCalls) for the
// pass that reads the rows: the CUDA API table is then read once, not twice.
//
// A few bytes per row (varint deltas: launches come in runs of one thread
// and one API function, a few microseconds apart), written in chunks of
// about 1 MiB to an unnamed file in SQLite's scratch folder (the output
// folder; UseSqliteScratchDir) and read back chunk by chunk, so memory does
// not grow with the rows. Without a scratch folder, or where the file cannot
// be made, the chunks stay in memory.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace llmpo::ingest::nsys_sqlite {

// The launch call columns of a GPU row (all unknown where it has none).
struct LaunchCall {
  std::optional<std::int64_t> tid, start, end, name_id;
};

class CallSpill {
 public:
  CallSpill();
  ~CallSpill();
  CallSpill(CallSpill&& other) noexcept;
  CallSpill& operator=(CallSpill&& other) noexcept;
  CallSpill(const CallSpill&) = delete;
  CallSpill& operator=(const CallSpill&) = delete;

  // Writing, in table order: the row `rowid` and its call (null: none).
  // False when the scratch file could not be written (the spill is unusable).
  bool Put(std::int64_t rowid, const LaunchCall* call);
  // Ends writing; reading starts at the first row. False as Put.
  bool Rewind();

  // Reading: sets `call` to the call of row `rowid` (all unknown: none),
  // which must be the next row written or the last one read again (a join
  // may repeat a row). False when the rows read do not follow the rows
  // written (the table changed between the passes) or the file failed.
  bool Next(std::int64_t rowid, LaunchCall& call);

 private:
  bool Flush();
  bool LoadChunk();

  int fd_ = -1;                                  // the scratch file; -1: chunks in memory
  std::vector<std::vector<std::uint8_t>> kept_;  // the chunks without a file
  std::vector<std::size_t> chunk_sizes_;
  std::vector<std::uint8_t> buffer_;  // the chunk being written or read
  std::size_t chunk_ = 0, pos_ = 0;   // reading: the chunk in buffer_ and the place in it
  bool failed_ = false;
  // The row before, the base of the deltas, on both sides.
  std::int64_t rowid_ = 0;
  LaunchCall last_;  // the last known tid, start and name: the bases of the deltas
  LaunchCall read_;  // reading: the call of row rowid_
  bool has_last_ = false;
  bool last_has_call_ = false;
};

}  // namespace llmpo::ingest::nsys_sqlite
