#include "src/analysis/timed_range_log.h"

#include <utility>

#include "src/core/varint.h"

namespace llmpo::analysis {
namespace {

// A record's first byte.
constexpr std::uint8_t kPushPop = 1, kEndUnknown = 2, kNewThread = 4;

std::uint64_t Zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
std::int64_t Unzigzag(std::uint64_t v) { return static_cast<std::int64_t>((v >> 1) ^ (~(v & 1) + 1)); }

// Differences taken modulo 2^64: exact for any int64 pair with a >= b.
std::uint64_t Gap(std::int64_t a, std::int64_t b) {
  return static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b);
}
std::int64_t Plus(std::int64_t base, std::uint64_t gap) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(base) + gap);
}

bool KeyBefore(const TimedRange& a, const TimedRange& b) {
  if (a.process != b.process) return a.process < b.process;
  if (a.tid != b.tid) return a.tid < b.tid;
  if (a.start != b.start) return a.start < b.start;
  return a.end > b.end;
}

}  // namespace

bool NestsBefore(const TimedRange& a, const TimedRange& b) {
  if (KeyBefore(a, b)) return true;
  if (KeyBefore(b, a)) return false;
  return a.arrival < b.arrival;
}

void TimedRangeLog::Add(TimedRange r) {
  r.arrival = static_cast<std::uint32_t>(count_);
  if (in_order_ && (r.end < r.start || (count_ > 0 && KeyBefore(r, last_)))) ToVector();
  if (in_order_) {
    Append(r);
    last_ = r;
  } else {
    ranges_.push_back(r);
  }
  ++count_;
}

void TimedRangeLog::Append(const TimedRange& r) {
  if (chunks_.empty() || chunks_.back().size() + kMaxRecordBytes > kChunkBytes) {
    chunks_.emplace_back().reserve(kChunkBytes);
  }
  std::vector<std::uint8_t>& out = chunks_.back();
  const bool new_thread = count_ == 0 || r.process != last_.process || r.tid != last_.tid;
  out.push_back(static_cast<std::uint8_t>((r.push_pop ? kPushPop : 0) | (r.end_unknown ? kEndUnknown : 0) |
                                          (new_thread ? kNewThread : 0)));
  if (new_thread) {
    PutVarint(out, r.process);
    PutVarint(out, Zigzag(r.tid));
    PutVarint(out, Zigzag(r.start));
  } else {
    PutVarint(out, Gap(r.start, last_.start));  // in order: start >= the last one's
  }
  PutVarint(out, Gap(r.end, r.start));
  PutVarint(out, r.name);
}

bool TimedRangeLog::Reader::Next(TimedRange& r) {
  if (index_ == log_.count_) return false;
  if (pos_ == log_.chunks_[chunk_].size()) ++chunk_, pos_ = 0;
  const std::uint8_t* bytes = log_.chunks_[chunk_].data();
  const std::uint8_t flags = bytes[pos_++];
  r.push_pop = (flags & kPushPop) != 0;
  r.end_unknown = (flags & kEndUnknown) != 0;
  if ((flags & kNewThread) != 0) {
    r.process = static_cast<std::uint32_t>(GetVarint(bytes, pos_));
    r.tid = Unzigzag(GetVarint(bytes, pos_));
    r.start = Unzigzag(GetVarint(bytes, pos_));
  } else {
    r.process = prev_.process;
    r.tid = prev_.tid;
    r.start = Plus(prev_.start, GetVarint(bytes, pos_));
  }
  r.end = Plus(r.start, GetVarint(bytes, pos_));
  r.name = static_cast<std::uint32_t>(GetVarint(bytes, pos_));
  r.arrival = static_cast<std::uint32_t>(index_++);
  prev_ = r;
  return true;
}

void TimedRangeLog::ToVector() {
  std::vector<TimedRange> ranges;
  ranges.reserve(count_ + 1);
  ForEach([&](const TimedRange& r) { ranges.push_back(r); });
  chunks_.clear();
  chunks_.shrink_to_fit();
  ranges_ = std::move(ranges);
  in_order_ = false;
}

std::vector<TimedRange> TimedRangeLog::TakeVector() {
  if (in_order_) ToVector();
  std::vector<TimedRange> out = std::move(ranges_);
  Clear();
  return out;
}

void TimedRangeLog::Clear() {
  chunks_.clear();
  chunks_.shrink_to_fit();
  ranges_.clear();
  ranges_.shrink_to_fit();
  last_ = TimedRange{};
  count_ = 0;
  in_order_ = true;
}

std::size_t TimedRangeLog::bytes() const {
  std::size_t n = ranges_.capacity() * sizeof(TimedRange);
  for (const auto& c : chunks_) n += c.capacity();
  return n;
}

}  // namespace llmpo::analysis
