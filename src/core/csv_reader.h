// An RFC 4180 CSV reader that works on a stream in chunks, so memory stays
// bounded by the longest record, not the file. Quoted fields may hold
// commas, doubled quotes and newlines; CRLF and LF both end records.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <filesystem>
#include <istream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace llmpo {

class CsvReader {
 public:
  explicit CsvReader(std::istream& in, std::size_t chunk_bytes = 1 << 20);
  // Reads a regular file through read-only memory mappings of a window at a
  // time (rounded up to whole pages) instead of copying it into a buffer:
  // the bytes are scanned where the page cache holds them, and memory stays
  // bounded by a few windows. nullptr when `file` cannot be opened or is not
  // a regular file (a pipe, a device): read it as a stream then. A file cut
  // shorter while it is read may end the process with SIGBUS, as with any
  // mapping.
  static std::unique_ptr<CsvReader> MapFile(const std::filesystem::path& file, std::size_t window_bytes = 8 << 20);
  // A reader of bytes [begin, end) of an open regular file, as if the file
  // ended at `end`, its first line numbered `first_line`: one part of a file
  // that threads read side by side. It maps windows as MapFile does, through
  // a duplicate of `fd` (the caller keeps its own). nullptr when the
  // descriptor cannot be duplicated.
  static std::unique_ptr<CsvReader> MapRange(int fd, std::uint64_t begin, std::uint64_t end, std::uint64_t first_line,
                                             std::size_t window_bytes = 8 << 20);
  // Where a mapped reader stands: the next byte it reads (file offset) and
  // that byte's line; the file's descriptor and size. Empty for a stream and
  // once read-ahead started.
  struct MappedPosition {
    int fd;
    std::uint64_t offset, line, file_size;
  };
  std::optional<MappedPosition> mapped_position() const;
  ~CsvReader();
  CsvReader(const CsvReader&) = delete;
  CsvReader& operator=(const CsvReader&) = delete;

  // Reads the next record into `fields` (views valid until the next call of
  // Next or NextRawLine). Returns false at end of input.
  bool Next(std::vector<std::string_view>& fields);

  // 1-based line number where the last record started (for messages).
  std::uint64_t record_line() const { return record_line_; }
  // The file offset where the last record started; meaningful for a mapped
  // reader without read-ahead only.
  std::uint64_t record_offset() const { return record_offset_; }
  // True when the last record ended inside an unclosed quote at end of input.
  bool last_record_truncated() const { return truncated_; }

  // The raw text of the next line, without parsing it as CSV; used to skip
  // preamble lines (==PROF== output) before the header. False at end, and
  // after StartReadAhead.
  bool NextRawLine(std::string& line);

  // A hint for files whose records repeat their first `fields` fields from
  // one record to the next (ncu's details page repeats a result's identity
  // columns on each of its metric rows): when the bytes match the previous
  // record's, their field positions are reused instead of scanned again.
  // The fields returned are the same either way. 0 turns it off. Call before
  // StartReadAhead.
  void ReuseRepeatedPrefix(std::size_t fields);

  // From here on, reading and scanning run on a second thread, a few chunks
  // ahead of the caller, so a caller that does real work per record gets the
  // scanning for free on a second core. Records, line numbers and flags are
  // exactly those of the single-threaded reader; memory stays bounded (a few
  // chunks). Views from earlier calls become invalid. Returns false, and
  // stays single-threaded, when no thread can be started. An exception on
  // the second thread (bad_alloc, or a stream set to throw) is thrown again
  // by a later Next in the caller's thread, as it would have been without
  // read-ahead, instead of ending the program.
  bool StartReadAhead();

 private:
  // One read-only mapping of part of a file; unmapped when destroyed.
  class Mapping {
   public:
    Mapping() = default;
    Mapping(const char* addr, std::size_t length) : addr_(addr), length_(length) {}
    Mapping(Mapping&& other) noexcept { *this = std::move(other); }
    Mapping& operator=(Mapping&& other) noexcept;
    Mapping(const Mapping&) = delete;
    Mapping& operator=(const Mapping&) = delete;
    ~Mapping() { Reset(); }
    void Reset();
    bool empty() const { return addr_ == nullptr; }

   private:
    const char* addr_ = nullptr;
    std::size_t length_ = 0;
  };

  CsvReader(int fd, std::uint64_t file_size, std::size_t window_bytes);

  struct Span {
    std::size_t begin, end;  // offsets into the buffer
    bool unescape;           // decode doubled quotes (begin is then at the opening quote)
  };
  // Read-ahead hands records over in batches: one buffer of bytes and the
  // records scanned in it. The caller reads them from another core's cache,
  // which is slow, so they are kept small: spans are packed and relative to
  // their record, and a run of records that repeat their first fields
  // (ReuseRepeatedPrefix) shares one copy of those fields' spans.
  struct PackedSpan {
    std::uint32_t begin;   // from the record's start
    std::uint32_t length;  // top bit: unescape
  };
  static constexpr std::size_t kMaxPackedRecord = 0x7fffffff;
  struct Record {
    std::size_t start, bytes;
    std::uint64_t line;
    std::uint32_t shared_first, shared_count;  // leading spans shared with neighbours (in spans)
    std::uint32_t own_first, own_count;        // the others (in spans, or in wide_spans when wide)
    bool truncated;
    bool wide;  // longer than kMaxPackedRecord: unpacked spans, absolute offsets
  };
  struct alignas(64) Batch {  // one the caller reads must not share a cache line with one being filled
    const char* bytes = nullptr;  // data, or the window in mapping
    std::unique_ptr<char[]> data;
    Mapping mapping;
    std::size_t cap = 0;
    std::vector<PackedSpan> spans;
    std::vector<Span> wide_spans;
    std::vector<Record> records;
    std::uint64_t shared_generation = 0;  // which remembered prefix spans[shared_first...] hold; 0: none
    std::uint32_t shared_first = 0;
  };

  // The scanner: the caller's thread, or the read-ahead thread once started.
  bool Fill();  // reads another chunk; false at end of input
  bool MapNextWindow();  // Fill for a mapped file
  enum class Scan { kDone, kNeedMore };
  Scan ScanRecord(bool at_eof);
  bool ScanPlainTail(std::size_t i);  // a fast path of ScanRecord
  bool NextRepeated(std::vector<std::string_view>& fields);  // a fast path of Next
  void AddSpan(std::size_t begin, std::size_t end, bool unescape) {
    Span& s = spans_.emplace_back();
    s.begin = begin;
    s.end = end;
    s.unescape = unescape;
    spans_unescape_ |= unescape;
  }
  // The repeated-prefix hint: true when the record at pos_ starts with the
  // remembered prefix; its spans are then added and `i` moved past it.
  bool TakeRepeatedPrefix(std::size_t& i);
  void RememberPrefix(std::size_t comma);
  void ProduceBatches();
  void ProduceBatchesOrStop();  // ProduceBatches, keeping an exception for the caller
  void AddToBatch(Batch& batch);
  void HandOver(Batch& batch);  // the batch takes the buffer; the unfinished record moves to the batch's old one
  Batch* TakeFreeBatch();
  void Publish(Batch* batch);

  // The caller's side.
  std::string_view Unescape(const char* data, const Span& span) { return DecodeInto(scratch_, data, span); }
  static std::string_view DecodeInto(std::string& out, const char* data, const Span& span);
  void AppendFields(const char* data, const Span* spans, std::size_t count, std::vector<std::string_view>& fields);
  bool NextFromBatch(std::vector<std::string_view>& fields);

  // The scanner's side (the read-ahead thread's, once started).
  alignas(64) std::istream* in_ = nullptr;  // nullptr: a mapped file
  std::size_t chunk_bytes_ = 0;
  // The bytes being scanned, [0, size_): data_, or the mapped window.
  const char* bytes_ = nullptr;
  // The read buffer of a stream, capacity cap_. Not a std::string: growing
  // one zero-fills the bytes a read then overwrites.
  std::unique_ptr<char[]> data_;
  // A mapped file: its descriptor and size when opened, the window mapped
  // now (empty once a batch took it) and the file offset of its first byte.
  int fd_ = -1;
  std::uint64_t file_size_ = 0;
  std::size_t window_bytes_ = 0;
  Mapping mapping_;
  std::uint64_t map_offset_ = 0;
  std::size_t size_ = 0;
  std::size_t cap_ = 0;
  std::size_t pos_ = 0;
  std::vector<Span> spans_;
  bool spans_unescape_ = false;  // some span of spans_ needs decoding
  std::size_t record_end_ = 0;
  std::uint64_t newlines_ = 0;
  std::uint64_t line_ = 1;
  bool scan_truncated_ = false;
  bool eof_ = false;
  std::size_t prefix_fields_ = 0;   // ReuseRepeatedPrefix; 0: off
  std::string prefix_bytes_;        // the previous record's first fields, through the comma after them
  std::vector<Span> prefix_spans_;  // their spans, relative to the record start
  std::uint64_t prefix_newlines_ = 0;
  std::uint64_t prefix_generation_ = 0;  // counts RememberPrefix calls
  bool record_has_prefix_ = false;       // the last record scanned starts with the remembered prefix
  bool prefix_omitted_ = false;          // ...and spans_ leaves its fields out (they are prefix_spans_)
  // The remembered prefix's fields as views into prefix_bytes_ (or, decoded,
  // into prefix_unescaped_): what Next returns for a repeated prefix.
  std::vector<std::string_view> prefix_views_;
  std::string prefix_unescaped_;

  // The caller's side. With read-ahead the two sides run on two cores, so
  // each group starts on its own cache line (and the object on one of its
  // own): sharing one made every record bounce it between the cores and cost
  // more than the second core gained.
  alignas(64) std::string scratch_;  // unescaped text of fields with doubled quotes
  std::uint64_t record_line_ = 0;
  std::uint64_t record_offset_ = 0;
  bool truncated_ = false;
  Batch* current_ = nullptr;
  std::size_t next_record_ = 0;

  // Read-ahead state; the mutex guards free_, ready_, done_ and stopping_.
  alignas(64) std::thread producer_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::unique_ptr<Batch>> batches_;
  std::vector<Batch*> free_;
  std::deque<Batch*> ready_;
  bool done_ = false;      // the producer has published its last batch
  std::exception_ptr producer_error_;  // why the producer stopped early, if it did
  bool stopping_ = false;  // the reader is being destroyed
};

}  // namespace llmpo
