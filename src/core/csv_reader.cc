#include "src/core/csv_reader.h"

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
    const char c = buffer_[pos_++];
    any = true;
    if (state == State::kQuoted) {
      if (c == '"') {
        state = State::kQuoteInQuoted;
      } else {
        if (c == '\n') ++line_;
        record_ += c;
      }
      continue;
    }
    if (state == State::kQuoteInQuoted && c == '"') {  // a doubled quote
      record_ += '"';
      state = State::kQuoted;
      continue;
    }
    if (c == ',') {
      field_ends_.push_back(record_.size());
      state = State::kFieldStart;
    } else if (c == '\n') {
      ++line_;
      break;
    } else if (c == '\r') {
      // CR of a CRLF ends the record with the LF; a lone CR is kept as text.
      if (pos_ >= buffer_.size()) Fill();
      if (pos_ < buffer_.size() && buffer_[pos_] == '\n') continue;
      record_ += c;
    } else if (c == '"' && state == State::kFieldStart) {
      state = State::kQuoted;
    } else {
      record_ += c;  // includes a stray quote after a closing quote: kept as text
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
