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

// Scans in spans (memchr / a short loop to the next special character) and
// appends whole spans, which is what makes large files fast.
bool CsvReader::Next(std::vector<std::string_view>& fields) {
  record_.clear();
  field_ends_.clear();
  fields.clear();
  truncated_ = false;
  record_line_ = line_;
  enum class State { kFieldStart, kUnquoted, kQuoted, kQuoteInQuoted } state = State::kFieldStart;
  bool any = false;
  while (true) {
    if (pos_ >= buffer_.size() && !Fill()) {
      if (!any) return false;
      truncated_ = state == State::kQuoted;
      break;
    }
    any = true;
    const char* data = buffer_.data();
    const std::size_t size = buffer_.size();
    if (state == State::kQuoted) {
      const void* hit = std::memchr(data + pos_, '"', size - pos_);
      const std::size_t stop = hit ? static_cast<std::size_t>(static_cast<const char*>(hit) - data) : size;
      line_ += static_cast<std::uint64_t>(std::count(data + pos_, data + stop, '\n'));
      record_.append(data + pos_, stop - pos_);
      pos_ = stop;
      if (hit) {
        ++pos_;
        state = State::kQuoteInQuoted;
      }
      continue;
    }
    const char c = data[pos_];
    if (state == State::kQuoteInQuoted && c == '"') {  // a doubled quote
      record_ += '"';
      ++pos_;
      state = State::kQuoted;
      continue;
    }
    if (c == ',') {
      ++pos_;
      field_ends_.push_back(record_.size());
      state = State::kFieldStart;
    } else if (c == '\n') {
      ++pos_;
      ++line_;
      break;
    } else if (c == '\r') {
      // CR of a CRLF ends the record with the LF; a lone CR is kept as text.
      ++pos_;
      if (pos_ >= buffer_.size()) Fill();
      if (pos_ < buffer_.size() && buffer_[pos_] == '\n') continue;
      record_ += '\r';
    } else if (c == '"' && state == State::kFieldStart) {
      ++pos_;
      state = State::kQuoted;
    } else {
      // Plain text up to the next special character; a stray quote after a
      // closing quote is kept as text.
      std::size_t stop = pos_ + 1;
      while (stop < size && data[stop] != ',' && data[stop] != '\n' && data[stop] != '\r' && data[stop] != '"') {
        ++stop;
      }
      if (stop < size && data[stop] == '"') ++stop;
      record_.append(data + pos_, stop - pos_);
      pos_ = stop;
      state = State::kUnquoted;
    }
  }
  field_ends_.push_back(record_.size());
  std::size_t begin = 0;
  for (std::size_t end : field_ends_) {
    fields.emplace_back(record_.data() + begin, end - begin);
    begin = end;
  }
  return true;
}

}  // namespace llmpo
