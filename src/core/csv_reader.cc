#include "src/core/csv_reader.h"

#include <algorithm>
#include <cstring>

namespace llmpo {

CsvReader::CsvReader(std::istream& in, std::size_t chunk_bytes) : in_(in), chunk_bytes_(chunk_bytes) {}

bool CsvReader::Fill() {
  if (eof_) return false;
  buffer_.erase(0, pos_);
  pos_ = 0;
  const std::size_t old = buffer_.size();
  buffer_.resize(old + chunk_bytes_);
  in_.read(buffer_.data() + old, static_cast<std::streamsize>(chunk_bytes_));
  const auto got = static_cast<std::size_t>(in_.gcount());
  buffer_.resize(old + got);
  bytes_read_ += got;
  if (got == 0) eof_ = true;
  return got > 0;
}

bool CsvReader::NextRawLine(std::string& line) {
  line.clear();
  while (true) {
    if (pos_ >= buffer_.size() && !Fill()) return !line.empty();
    const std::size_t nl = buffer_.find('\n', pos_);
    if (nl == std::string::npos) {
      line.append(buffer_, pos_, std::string::npos);
      pos_ = buffer_.size();
      continue;
    }
    line.append(buffer_, pos_, nl - pos_);
    pos_ = nl + 1;
    ++line_;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  }
}

// One pass over the record at pos_: field spans (offsets, so a refill that
// moves the buffer does not invalidate them) and where the record ends.
// Fields are short, so plain loops beat memchr's setup cost here.
CsvReader::Scan CsvReader::ScanRecord(bool at_eof) {
  spans_.clear();
  newlines_ = 0;
  const char* data = buffer_.data();
  const std::size_t size = buffer_.size();
  std::size_t i = pos_;
  while (true) {
    Span span{i, i, false};
    if (i < size && data[i] == '"') {
      std::size_t j = i + 1;
      while (true) {
        while (j < size && data[j] != '"') {
          newlines_ += data[j] == '\n';
          ++j;
        }
        if (j + 1 >= size && !at_eof) return Scan::kNeedMore;  // the quote's successor is not read yet
        if (j >= size) {                                       // end of input inside quotes
          truncated_ = true;
          spans_.push_back(Span{i + 1, size, false});
          record_end_ = size;
          return Scan::kDone;
        }
        if (j + 1 < size && data[j + 1] == '"') {  // a doubled quote
          span.unescape = true;
          j += 2;
          continue;
        }
        break;
      }
      span = span.unescape ? Span{i, j + 1, true} : Span{i + 1, j, false};
      i = j + 1;
      if (i < size && data[i] == '\r') {  // CRLF after a closing quote
        if (i + 1 >= size && !at_eof) return Scan::kNeedMore;
        if (i + 1 < size && data[i + 1] == '\n') ++i;
      }
      if (i < size && data[i] != ',' && data[i] != '\n') {
        const std::size_t open = span.unescape ? span.begin : span.begin - 1;
        while (i < size && data[i] != ',' && data[i] != '\n') ++i;  // text after the closing quote
        if (i >= size && !at_eof) return Scan::kNeedMore;
        span = Span{open, i, true};
        if (i < size && data[i] == '\n' && data[i - 1] == '\r') span.end = i - 1;
      }
    } else {
      while (i < size && data[i] != ',' && data[i] != '\n') ++i;
      if (i >= size && !at_eof) return Scan::kNeedMore;
      span.end = i;
      if (i < size && data[i] == '\n' && span.end > span.begin && data[span.end - 1] == '\r') --span.end;  // CRLF
    }
    spans_.push_back(span);
    if (i >= size) {
      record_end_ = size;
      return Scan::kDone;
    }
    if (data[i] == '\n') {
      ++newlines_;
      record_end_ = i + 1;
      return Scan::kDone;
    }
    ++i;  // the comma
  }
}

// Decodes a quoted field with doubled quotes, or with text after its
// closing quote; the span starts at the opening quote.
std::string_view CsvReader::Unescape(const Span& span) {
  const char* data = buffer_.data();
  const std::size_t begin = scratch_.size();
  std::size_t i = span.begin + 1;  // past the opening quote
  bool quoted = true;
  while (i < span.end) {
    const char c = data[i];
    if (quoted && c == '"') {
      if (i + 1 < span.end && data[i + 1] == '"') {
        scratch_ += '"';
        i += 2;
        continue;
      }
      quoted = false;
      ++i;
      continue;
    }
    scratch_ += c;
    ++i;
  }
  return std::string_view(scratch_.data() + begin, scratch_.size() - begin);
}

bool CsvReader::Next(std::vector<std::string_view>& fields) {
  fields.clear();
  scratch_.clear();
  truncated_ = false;
  record_line_ = line_;
  bool at_eof = false;
  while (true) {
    if (pos_ >= buffer_.size() && !Fill()) return false;
    if (ScanRecord(at_eof) == Scan::kDone) break;
    if (!Fill()) at_eof = true;  // Fill keeps pos_..end and appends; rescan from pos_
  }
  scratch_.reserve(record_end_ - pos_);  // views into scratch_ must not move
  const char* data = buffer_.data();
  for (const Span& span : spans_) {
    fields.push_back(span.unescape ? Unescape(span) : std::string_view(data + span.begin, span.end - span.begin));
  }
  line_ += newlines_;
  pos_ = record_end_;
  return true;
}

}  // namespace llmpo
