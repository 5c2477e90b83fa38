#include "src/core/csv_reader.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace llmpo {
namespace {

// The first ',' or '\n' in data[i, size), or size. 16 bytes at a time where
// SSE2 is there (every x86-64), then byte by byte.
inline std::size_t FindFieldEnd(const char* data, std::size_t i, std::size_t size) {
#if defined(__SSE2__)
  const __m128i comma = _mm_set1_epi8(',');
  const __m128i newline = _mm_set1_epi8('\n');
  for (; i + 16 <= size; i += 16) {
    const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i));
    const int mask = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(block, comma), _mm_cmpeq_epi8(block, newline)));
    if (mask != 0) return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  }
#endif
  while (i < size && data[i] != ',' && data[i] != '\n') ++i;
  return i;
}

// The first '"' in data[i, size), or size; adds the newlines before it to
// `newlines` (quoted fields may span lines).
inline std::size_t FindQuote(const char* data, std::size_t i, std::size_t size, std::uint64_t& newlines) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i newline = _mm_set1_epi8('\n');
  for (; i + 16 <= size; i += 16) {
    const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i));
    const auto quotes = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(block, quote)));
    auto lines = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(block, newline)));
    if (quotes != 0) {
      const unsigned first = static_cast<unsigned>(__builtin_ctz(quotes));
      lines &= (1u << first) - 1;
      if (lines != 0) newlines += static_cast<unsigned>(__builtin_popcount(lines));  // rare: no POPCNT needed
      return i + first;
    }
    if (lines != 0) newlines += static_cast<unsigned>(__builtin_popcount(lines));
  }
#endif
  while (i < size && data[i] != '"') {
    newlines += data[i] == '\n';
    ++i;
  }
  return i;
}

}  // namespace

CsvReader::CsvReader(std::istream& in, std::size_t chunk_bytes) : in_(in), chunk_bytes_(chunk_bytes) {}

bool CsvReader::Fill() {
  if (eof_) return false;
  const std::size_t keep = size_ - pos_;  // the unfinished record
  if (pos_ > 0 && keep > 0) std::memmove(data_.get(), data_.get() + pos_, keep);
  size_ = keep;
  pos_ = 0;
  if (cap_ < size_ + chunk_bytes_) {  // a record longer than a chunk: grow
    const std::size_t cap = std::max(2 * cap_, size_ + chunk_bytes_);
    auto bigger = std::make_unique_for_overwrite<char[]>(cap);
    if (size_ > 0) std::memcpy(bigger.get(), data_.get(), size_);
    data_ = std::move(bigger);
    cap_ = cap;
  }
  in_.read(data_.get() + size_, static_cast<std::streamsize>(chunk_bytes_));
  const auto got = static_cast<std::size_t>(in_.gcount());
  size_ += got;
  bytes_read_ += got;
  if (got == 0) eof_ = true;
  return got > 0;
}

bool CsvReader::NextRawLine(std::string& line) {
  line.clear();
  while (true) {
    if (pos_ >= size_ && !Fill()) return !line.empty();
    const char* start = data_.get() + pos_;
    const auto* found = static_cast<const char*>(std::memchr(start, '\n', size_ - pos_));
    if (found == nullptr) {
      line.append(start, size_ - pos_);
      pos_ = size_;
      continue;
    }
    const std::size_t nl = static_cast<std::size_t>(found - data_.get());
    line.append(start, nl - pos_);
    pos_ = nl + 1;
    ++line_;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  }
}

// One pass over the record at pos_: field spans (offsets, so a refill that
// moves the buffer does not invalidate them) and where the record ends.
// Fields are short, so 16-byte SSE2 steps beat memchr's setup cost here.
CsvReader::Scan CsvReader::ScanRecord(bool at_eof) {
  spans_.clear();
  newlines_ = 0;
  const char* data = data_.get();
  const std::size_t size = size_;
  std::size_t i = pos_;
  while (true) {
    // Locals, not a Span on the stack: building one there and copying it
    // into spans_ stalled on store-to-load forwarding (perf, 2026-11-22).
    std::size_t begin = i, end = i;
    bool unescape = false;
    if (i < size && data[i] == '"') {
      std::size_t j = i + 1;
      while (true) {
        j = FindQuote(data, j, size, newlines_);
        if (j + 1 >= size && !at_eof) return Scan::kNeedMore;  // the quote's successor is not read yet
        if (j >= size) {                                       // end of input inside quotes
          truncated_ = true;
          AddSpan(i + 1, size, false);
          record_end_ = size;
          return Scan::kDone;
        }
        if (j + 1 < size && data[j + 1] == '"') {  // a doubled quote
          unescape = true;
          j += 2;
          continue;
        }
        break;
      }
      begin = unescape ? i : i + 1;
      end = unescape ? j + 1 : j;
      i = j + 1;
      if (i < size && data[i] == '\r') {  // CRLF after a closing quote
        if (i + 1 >= size && !at_eof) return Scan::kNeedMore;
        if (i + 1 < size && data[i + 1] == '\n') ++i;
      }
      if (i < size && data[i] != ',' && data[i] != '\n') {
        const std::size_t open = unescape ? begin : begin - 1;
        while (i < size && data[i] != ',' && data[i] != '\n') ++i;  // text after the closing quote
        if (i >= size && !at_eof) return Scan::kNeedMore;
        begin = open;
        end = i;
        unescape = true;
        if (i < size && data[i] == '\n' && data[i - 1] == '\r') end = i - 1;
      }
    } else {
      i = FindFieldEnd(data, i, size);
      if (i >= size && !at_eof) return Scan::kNeedMore;
      end = i;
      if (i < size && data[i] == '\n' && end > begin && data[end - 1] == '\r') --end;  // CRLF
    }
    AddSpan(begin, end, unescape);
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
  const char* data = data_.get();
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
    if (pos_ >= size_ && !Fill()) return false;
    if (ScanRecord(at_eof) == Scan::kDone) break;
    if (!Fill()) at_eof = true;  // Fill keeps pos_..end and appends; rescan from pos_
  }
  scratch_.reserve(record_end_ - pos_);  // views into scratch_ must not move
  const char* data = data_.get();
  for (const Span& span : spans_) {
    fields.push_back(span.unescape ? Unescape(span) : std::string_view(data + span.begin, span.end - span.begin));
  }
  line_ += newlines_;
  pos_ = record_end_;
  return true;
}

}  // namespace llmpo
