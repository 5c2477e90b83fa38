#include "src/core/csv_reader.h"

#include <algorithm>
#include <cstring>
#include <system_error>
#include <utility>

#include <unistd.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace llmpo {
namespace {

// How far ahead of the record being scanned its successors' bytes are
// requested from memory: a record's first touch of a page-cache page was
// the largest single cost of scanning (perf, 2026-11-26).
constexpr std::size_t kPrefetchAhead = 2048;

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

// The first '"' in data[i, size) when no '\n' or '\r' comes before it;
// size otherwise (a line break first, or no quote in the buffer).
inline std::size_t FindClosingQuote(const char* data, std::size_t i, std::size_t size) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i newline = _mm_set1_epi8('\n');
  const __m128i cr = _mm_set1_epi8('\r');
  for (; i + 16 <= size; i += 16) {
    const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i));
    const auto quotes = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(block, quote)));
    const auto stops = static_cast<unsigned>(
        _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(block, newline), _mm_cmpeq_epi8(block, cr))));
    if ((quotes | stops) != 0) {
      if (quotes == 0 || (stops & ((quotes & (~quotes + 1)) - 1)) != 0) return size;
      return i + static_cast<std::size_t>(__builtin_ctz(quotes));
    }
  }
#endif
  for (; i < size; ++i) {
    if (data[i] == '"') return i;
    if (data[i] == '\n' || data[i] == '\r') return size;
  }
  return size;
}

}  // namespace

CsvReader::CsvReader(std::istream& in, std::size_t chunk_bytes) : in_(&in), chunk_bytes_(chunk_bytes) {}

CsvReader::~CsvReader() {
  if (producer_.joinable()) {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    producer_.join();
  }
  if (fd_ >= 0) ::close(fd_);
}

bool CsvReader::Fill() {
  if (eof_) return false;
  if (in_ == nullptr) return MapNextWindow();
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
  bytes_ = data_.get();
  in_->read(data_.get() + size_, static_cast<std::streamsize>(chunk_bytes_));
  const auto got = static_cast<std::size_t>(in_->gcount());
  size_ += got;
  if (got == 0) eof_ = true;
  return got > 0;
}

bool CsvReader::NextRawLine(std::string& line) {
  line.clear();
  if (producer_.joinable()) return false;  // the bytes belong to the read-ahead thread now
  while (true) {
    if (pos_ >= size_ && !Fill()) return !line.empty();
    const char* start = bytes_ + pos_;
    const auto* found = static_cast<const char*>(std::memchr(start, '\n', size_ - pos_));
    if (found == nullptr) {
      line.append(start, size_ - pos_);
      pos_ = size_;
      continue;
    }
    const std::size_t nl = static_cast<std::size_t>(found - bytes_);
    line.append(start, nl - pos_);
    pos_ = nl + 1;
    ++line_;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  }
}

void CsvReader::ReuseRepeatedPrefix(std::size_t fields) {
  prefix_fields_ = fields;
  prefix_bytes_.clear();
}

// Parsing is a function of the bytes from a record's start, so identical
// leading bytes that ended at a field boundary parse into identical fields.
bool CsvReader::TakeRepeatedPrefix(std::size_t& i) {
  const std::size_t n = prefix_bytes_.size();
  if (n == 0 || size_ - pos_ < n || std::memcmp(bytes_ + pos_, prefix_bytes_.data(), n) != 0) return false;
  newlines_ += prefix_newlines_;
  i = pos_ + n;
  record_has_prefix_ = true;
  prefix_omitted_ = true;
  return true;
}

void CsvReader::RememberPrefix(std::size_t comma) {
  prefix_bytes_.assign(bytes_ + pos_, comma + 1 - pos_);
  prefix_spans_.clear();
  for (const Span& s : spans_) prefix_spans_.push_back({s.begin - pos_, s.end - pos_, s.unescape});
  prefix_newlines_ = newlines_;
  ++prefix_generation_;
  record_has_prefix_ = true;
  prefix_views_.clear();
  prefix_unescaped_.clear();
  prefix_unescaped_.reserve(prefix_bytes_.size());  // decoded text is never longer: views into it stay put
  for (const Span& s : prefix_spans_) {
    prefix_views_.push_back(s.unescape ? DecodeInto(prefix_unescaped_, prefix_bytes_.data(), s)
                                       : std::string_view(prefix_bytes_.data() + s.begin, s.end - s.begin));
  }
}

namespace {

// The common case: the rest of the record from `i` holds only plain fields
// (quoted without doubled quotes, line breaks or text after the closing
// quote; or unquoted without '\r') and ends with '\n' inside the buffer.
// Each field's text [begin, end) goes to emit(begin, end), which may return
// false to give up; the end of the record goes to `record_end`. False when
// the record is not of this kind (the field-by-field scan then decides: both
// give the same fields) or emit gave up; `emit` may have been called then.
template <typename Emit>
bool ScanPlainFields(const char* data, std::size_t size, std::size_t i, std::size_t& record_end, Emit&& emit) {
  // Within 64 bytes of the buffer's end the field-by-field scan decides, so
  // a reader of tiny chunks takes that path: the unit tests compare the two.
  if (size - i < 64) return false;
  std::size_t p = i;
  while (p < size) {
    std::size_t end;
    if (data[p] == '"') {
      const std::size_t close = FindClosingQuote(data, p + 1, size);
      end = close + 1;
      if (end >= size || (data[end] != ',' && data[end] != '\n')) return false;  // a doubled quote, or text after it
      if (!emit(p + 1, close)) return false;
    } else {
      end = FindFieldEnd(data, p, size);
      if (end >= size || (end > p && data[end - 1] == '\r')) return false;
      if (!emit(p, end)) return false;
    }
    if (data[end] == '\n') {
      record_end = end + 1;
      return true;
    }
    p = end + 1;
  }
  return false;
}

}  // namespace

bool CsvReader::ScanPlainTail(std::size_t i) {
  const std::size_t spans_before = spans_.size();
  std::size_t record_end = 0;
  const auto add = [this](std::size_t begin, std::size_t end) {
    AddSpan(begin, end, false);
    return true;
  };
  if (!ScanPlainFields(bytes_, size_, i, record_end, add)) {
    spans_.resize(spans_before);
    return false;
  }
  ++newlines_;
  record_end_ = record_end;
  return true;
}

// Next's common case on a details page: the record repeats the remembered
// prefix and its other fields are plain (ScanPlainFields). The prefix's views
// and the others' are written to `fields` directly, without the spans a
// general scan records. False, with nothing consumed, for any other record.
bool CsvReader::NextRepeated(std::vector<std::string_view>& fields) {
  const std::size_t n = prefix_bytes_.size();
  if (n == 0 || pos_ >= size_ || size_ - pos_ < n + 64) return false;
  const char* data = bytes_;
  if (size_ - pos_ > kPrefetchAhead + 320) {  // as ScanRecord does
    for (std::size_t k = 0; k < 320; k += 64) __builtin_prefetch(data + pos_ + kPrefetchAhead + k);
  }
  if (std::memcmp(data + pos_, prefix_bytes_.data(), n) != 0) return false;
  constexpr std::size_t kMaxTail = 32;  // more fields than this take the general path
  // Offsets, not string_views: an array of views is zeroed on every call
  // (string_view's constructor), which perf put at a sixth of this function.
  struct Piece {
    std::size_t begin, end;
  };
  Piece tail[kMaxTail];
  std::size_t count = 0, record_end = 0;
  const auto add = [&](std::size_t begin, std::size_t end) {
    if (count == kMaxTail) return false;
    tail[count++] = Piece{begin, end};
    return true;
  };
  if (!ScanPlainFields(data, size_, pos_ + n, record_end, add)) return false;
  const std::size_t shared = prefix_views_.size();
  if (fields.size() != shared + count) fields.resize(shared + count);
  std::copy_n(prefix_views_.data(), shared, fields.data());
  std::string_view* out = fields.data() + shared;
  for (std::size_t k = 0; k < count; ++k) out[k] = std::string_view(data + tail[k].begin, tail[k].end - tail[k].begin);
  truncated_ = false;
  record_line_ = line_;
  record_offset_ = map_offset_ + pos_;
  line_ += prefix_newlines_ + 1;
  pos_ = record_end;
  return true;
}

// One pass over the record at pos_: field spans (offsets, so a refill that
// moves the buffer does not invalidate them) and where the record ends.
// Fields are short, so 16-byte SSE2 steps beat memchr's setup cost here.
CsvReader::Scan CsvReader::ScanRecord(bool at_eof) {
  spans_.clear();
  spans_unescape_ = false;
  newlines_ = 0;
  scan_truncated_ = false;
  record_has_prefix_ = false;
  prefix_omitted_ = false;
  const char* data = bytes_;
  const std::size_t size = size_;
  std::size_t i = pos_;
  if (size - i > kPrefetchAhead + 320) {  // five cache lines: about one details-page row
    for (std::size_t k = 0; k < 320; k += 64) __builtin_prefetch(data + i + kPrefetchAhead + k);
  }
  const bool remember = prefix_fields_ > 0 && !TakeRepeatedPrefix(i);
  if (!remember && ScanPlainTail(i)) return Scan::kDone;
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
          scan_truncated_ = true;
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
    if (remember && spans_.size() == prefix_fields_) RememberPrefix(i);
    ++i;  // the comma
  }
}

// Decodes a quoted field with doubled quotes, or with text after its
// closing quote; the span starts at the opening quote.
std::string_view CsvReader::DecodeInto(std::string& out, const char* data, const Span& span) {
  const std::size_t begin = out.size();
  std::size_t i = span.begin + 1;  // past the opening quote
  bool quoted = true;
  while (i < span.end) {
    const char c = data[i];
    if (quoted && c == '"') {
      if (i + 1 < span.end && data[i + 1] == '"') {
        out += '"';
        i += 2;
        continue;
      }
      quoted = false;
      ++i;
      continue;
    }
    out += c;
    ++i;
  }
  return std::string_view(out.data() + begin, out.size() - begin);
}

void CsvReader::AppendFields(const char* data, const Span* spans, std::size_t count,
                             std::vector<std::string_view>& fields) {
  const std::size_t at = fields.size();
  fields.resize(at + count);  // one size check per record, not one per field
  std::string_view* out = fields.data() + at;
  for (std::size_t i = 0; i < count; ++i) {
    const Span& span = spans[i];
    out[i] = span.unescape ? Unescape(data, span) : std::string_view(data + span.begin, span.end - span.begin);
  }
}

bool CsvReader::Next(std::vector<std::string_view>& fields) {
  if (producer_.joinable()) {
    fields.clear();
    scratch_.clear();
    return NextFromBatch(fields);
  }
  if (NextRepeated(fields)) return true;
  truncated_ = false;
  record_line_ = line_;
  bool at_eof = false;
  while (true) {
    if (pos_ >= size_ && !Fill()) {
      fields.clear();
      return false;
    }
    if (ScanRecord(at_eof) == Scan::kDone) break;
    if (!Fill()) at_eof = true;  // Fill keeps pos_..end and appends; rescan from pos_
  }
  truncated_ = scan_truncated_;
  record_offset_ = map_offset_ + pos_;  // a refill may have moved both, never their sum
  // The vector keeps the size of the record before, usually this one's:
  // every element is overwritten, none constructed.
  const std::size_t shared = prefix_omitted_ ? prefix_views_.size() : 0;
  if (fields.size() != shared + spans_.size()) fields.resize(shared + spans_.size());  // resize is not inlined
  std::copy_n(prefix_views_.data(), shared, fields.data());
  if (spans_unescape_) {
    scratch_.clear();
    scratch_.reserve(record_end_ - pos_);  // views into scratch_ must not move
    std::string_view* out = fields.data() + shared;
    for (std::size_t k = 0; k < spans_.size(); ++k) {
      const Span& span = spans_[k];
      out[k] = span.unescape ? Unescape(bytes_, span) : std::string_view(bytes_ + span.begin, span.end - span.begin);
    }
  } else {
    std::string_view* out = fields.data() + shared;
    for (std::size_t k = 0; k < spans_.size(); ++k) {
      out[k] = std::string_view(bytes_ + spans_[k].begin, spans_[k].end - spans_[k].begin);
    }
  }
  line_ += newlines_;
  pos_ = record_end_;
  return true;
}

// ---- Read-ahead ----------------------------------------------------------

bool CsvReader::StartReadAhead() {
  if (producer_.joinable()) return true;
  constexpr int kBatches = 4;  // in flight: bounds memory at about kBatches chunks
  for (int i = 0; i < kBatches; ++i) {
    batches_.push_back(std::make_unique<Batch>());
    free_.push_back(batches_.back().get());
  }
  try {
    producer_ = std::thread([this] { ProduceBatchesOrStop(); });
  } catch (const std::system_error&) {
    batches_.clear();
    free_.clear();
    return false;
  }
  return true;
}

CsvReader::Batch* CsvReader::TakeFreeBatch() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return stopping_ || !free_.empty(); });
  if (stopping_) return nullptr;
  Batch* batch = free_.back();
  free_.pop_back();
  batch->spans.clear();
  batch->wide_spans.clear();
  batch->records.clear();
  batch->shared_generation = 0;
  batch->mapping.Reset();  // a mapped file's window, read by now
  return batch;
}

void CsvReader::Publish(Batch* batch) {
  {
    std::lock_guard lock(mutex_);
    if (batch != nullptr) {
      ready_.push_back(batch);
    } else {
      done_ = true;
    }
  }
  changed_.notify_all();
}

// The batch keeps the buffer its spans point into; scanning goes on in the
// batch's previous buffer, starting with the unfinished record.
void CsvReader::HandOver(Batch& batch) {
  if (in_ == nullptr) {  // the batch keeps the window; Fill maps the next one from the unfinished record
    batch.mapping = std::move(mapping_);
    batch.bytes = bytes_;
    return;
  }
  std::swap(data_, batch.data);
  batch.bytes = batch.data.get();
  std::swap(cap_, batch.cap);
  const std::size_t keep = size_ - pos_;
  if (cap_ < keep + chunk_bytes_) {  // room for a chunk after any unfinished record under one chunk long
    cap_ = std::max(2 * chunk_bytes_, keep + chunk_bytes_);
    data_ = std::make_unique_for_overwrite<char[]>(cap_);
  }
  if (keep > 0) std::memcpy(data_.get(), batch.data.get() + pos_, keep);
  bytes_ = data_.get();
  size_ = keep;
  pos_ = 0;
}

void CsvReader::ProduceBatchesOrStop() {
  try {
    ProduceBatches();
  } catch (...) {  // nothing may leave a thread's function: it would end the program
    {
      std::lock_guard lock(mutex_);
      producer_error_ = std::current_exception();
    }
    Publish(nullptr);
  }
}

// The scanning loop of Next, with records collected into batches instead of
// returned one by one.
void CsvReader::ProduceBatches() {
  Batch* batch = nullptr;
  bool at_eof = false;
  while (true) {
    if (batch == nullptr && (batch = TakeFreeBatch()) == nullptr) return;  // the reader is going away
    if (pos_ < size_ && ScanRecord(at_eof) == Scan::kDone) {
      AddToBatch(*batch);
      line_ += newlines_;
      pos_ = record_end_;
      continue;
    }
    // More bytes needed. A batch with records leaves with its buffer first;
    // one without (a record longer than a chunk) lets Fill grow the buffer.
    if (!batch->records.empty()) {
      HandOver(*batch);
      Publish(batch);
      batch = nullptr;
    }
    if (!Fill()) {
      if (pos_ >= size_) break;
      at_eof = true;  // the unfinished record is the last one
    }
  }
  if (batch != nullptr) {
    std::lock_guard lock(mutex_);
    free_.push_back(batch);
  }
  Publish(nullptr);
}

void CsvReader::AddToBatch(Batch& batch) {
  const std::size_t start = pos_, bytes = record_end_ - pos_;
  Record& r = batch.records.emplace_back();
  r = Record{start, bytes, line_, 0, 0, 0, 0, scan_truncated_, false};
  if (bytes > kMaxPackedRecord) {
    r.wide = true;
    r.own_first = static_cast<std::uint32_t>(batch.wide_spans.size());
    if (prefix_omitted_) {
      for (const Span& s : prefix_spans_) batch.wide_spans.push_back({start + s.begin, start + s.end, s.unescape});
    }
    batch.wide_spans.insert(batch.wide_spans.end(), spans_.begin(), spans_.end());
    r.own_count = static_cast<std::uint32_t>(batch.wide_spans.size() - r.own_first);
    return;
  }
  const auto pack = [](const Span& span, std::size_t from) {
    return PackedSpan{static_cast<std::uint32_t>(span.begin - from),
                      static_cast<std::uint32_t>(span.end - span.begin) | (span.unescape ? 0x80000000u : 0u)};
  };
  std::size_t own = 0;
  if (record_has_prefix_) {
    if (batch.shared_generation != prefix_generation_) {
      batch.shared_generation = prefix_generation_;
      batch.shared_first = static_cast<std::uint32_t>(batch.spans.size());
      for (const Span& s : prefix_spans_) batch.spans.push_back(pack(s, 0));  // already relative
    }
    r.shared_first = batch.shared_first;
    r.shared_count = static_cast<std::uint32_t>(prefix_fields_);
    own = prefix_omitted_ ? 0 : prefix_fields_;
  }
  r.own_first = static_cast<std::uint32_t>(batch.spans.size());
  r.own_count = static_cast<std::uint32_t>(spans_.size() - own);
  for (std::size_t i = own; i < spans_.size(); ++i) batch.spans.push_back(pack(spans_[i], start));
}

bool CsvReader::NextFromBatch(std::vector<std::string_view>& fields) {
  while (current_ == nullptr || next_record_ >= current_->records.size()) {
    std::unique_lock lock(mutex_);
    if (current_ != nullptr) {
      free_.push_back(current_);
      current_ = nullptr;
      changed_.notify_all();
    }
    changed_.wait(lock, [this] { return done_ || !ready_.empty(); });
    if (ready_.empty()) {
      if (producer_error_) std::rethrow_exception(std::exchange(producer_error_, nullptr));
      return false;
    }
    current_ = ready_.front();
    ready_.pop_front();
    next_record_ = 0;
  }
  const Record& record = current_->records[next_record_++];
  record_line_ = record.line;
  truncated_ = record.truncated;
  scratch_.reserve(record.bytes);  // views into scratch_ must not move
  const char* data = current_->bytes;
  if (record.wide) {
    AppendFields(data, current_->wide_spans.data() + record.own_first, record.own_count, fields);
    return true;
  }
  const char* text = data + record.start;
  const auto add = [&](const PackedSpan& packed) {
    const std::size_t length = packed.length & 0x7fffffffu;
    if ((packed.length & 0x80000000u) != 0) {
      fields.push_back(Unescape(text, Span{packed.begin, packed.begin + length, true}));
    } else {
      fields.emplace_back(text + packed.begin, length);
    }
  };
  for (std::size_t i = 0; i < record.shared_count; ++i) add(current_->spans[record.shared_first + i]);
  for (std::size_t i = 0; i < record.own_count; ++i) add(current_->spans[record.own_first + i]);
  return true;
}

}  // namespace llmpo
