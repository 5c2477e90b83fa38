// An RFC 4180 CSV reader that works on a stream in chunks, so memory stays
// bounded by the longest record, not the file. Quoted fields may hold
// commas, doubled quotes and newlines; CRLF and LF both end records.
#pragma once

#include <cstdint>
#include <istream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace llmpo {

class CsvReader {
 public:
  explicit CsvReader(std::istream& in, std::size_t chunk_bytes = 1 << 20);

  // Reads the next record into `fields` (views valid until the next call of
  // Next or NextRawLine). Returns false at end of input.
  bool Next(std::vector<std::string_view>& fields);

  // 1-based line number where the last record started (for messages).
  std::uint64_t record_line() const { return record_line_; }
  // Bytes consumed so far.
  std::uint64_t bytes_read() const { return bytes_read_; }
  // True when the last record ended inside an unclosed quote at end of input.
  bool last_record_truncated() const { return truncated_; }

  // The raw text of the next line, without parsing it as CSV; used to skip
  // preamble lines (==PROF== output) before the header. False at end.
  bool NextRawLine(std::string& line);

 private:
  bool Fill();  // reads another chunk; false at end of input
  enum class Scan { kDone, kNeedMore };
  struct Span {
    std::size_t begin, end;  // offsets into data_
    bool unescape;           // decode doubled quotes (begin is then at the opening quote)
  };
  Scan ScanRecord(bool at_eof);
  void AddSpan(std::size_t begin, std::size_t end, bool unescape) {
    Span& s = spans_.emplace_back();
    s.begin = begin;
    s.end = end;
    s.unescape = unescape;
  }
  std::string_view Unescape(const Span& span);

  std::istream& in_;
  std::size_t chunk_bytes_;
  // The read buffer: bytes [0, size_) of data_, capacity cap_. Not a
  // std::string: growing one zero-fills the bytes a read then overwrites.
  std::unique_ptr<char[]> data_;
  std::size_t size_ = 0;
  std::size_t cap_ = 0;
  std::size_t pos_ = 0;
  std::string scratch_;  // unescaped text of fields with doubled quotes
  std::vector<Span> spans_;
  std::size_t record_end_ = 0;
  std::uint64_t newlines_ = 0;
  std::uint64_t line_ = 1;
  std::uint64_t record_line_ = 0;
  std::uint64_t bytes_read_ = 0;
  bool truncated_ = false;
  bool eof_ = false;
};

}  // namespace llmpo
