// The timeline's CPU ranges of one input, kept until the region tree is
// finished (RegionBuilder nests them then, after every launch placed its
// regions). A trace may hold millions of them, so while they arrive in the
// order RegionBuilder nests them in (by process, thread, start, the longer
// first; nsys SQLite sends them so) they are kept as a byte log of
// differences from the range before, about 8 bytes a range instead of 40,
// and read back in that order with no sort. The first range out of that
// order turns the log into a plain vector, sorted at the end as before.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace llmpo::analysis {

struct TimedRange {
  std::uint32_t process = 0;  // an index into the builder's processes (or its rank in ProcessId order)
  std::uint32_t arrival = 0;  // its place in arrival order (ties sort by it)
  std::int64_t tid = 0;
  std::int64_t start = 0, end = 0;  // end >= start
  bool push_pop = true;
  bool end_unknown = false;  // cut at the trace's end: nests, no CPU time
  std::uint32_t name = 0;    // an index into the builder's (domain, name) table
};

// a before b in nesting order: process, thread, start, the longer first,
// then arrival.
bool NestsBefore(const TimedRange& a, const TimedRange& b);

class TimedRangeLog {
 public:
  // Keeps `r` (its arrival is its place: size() before the call).
  void Add(TimedRange r);
  std::size_t size() const { return count_; }
  // Whether every range so far came in nesting order by process index
  // (the log form); false once one did not (the vector form).
  bool in_order() const { return in_order_; }

  // Calls f(range) for each range in arrival order (the log form: nesting
  // order by process index too).
  template <typename F>
  void ForEach(F&& f) const {
    if (!in_order_) {
      for (const TimedRange& r : ranges_) f(r);
      return;
    }
    Reader reader(*this);
    TimedRange r;
    while (reader.Next(r)) f(r);
  }
  // The ranges as a vector (the log is emptied), to be sorted by the caller.
  std::vector<TimedRange> TakeVector();
  void Clear();

  // Bytes held, for tests and benchmarks.
  std::size_t bytes() const;

 private:
  static constexpr std::size_t kChunkBytes = std::size_t{1} << 20;
  static constexpr std::size_t kMaxRecordBytes = 1 + 5 + 10 + 10 + 10 + 5;

  class Reader {
   public:
    explicit Reader(const TimedRangeLog& log) : log_(log) {}
    bool Next(TimedRange& r);

   private:
    const TimedRangeLog& log_;
    std::size_t chunk_ = 0, pos_ = 0, index_ = 0;
    TimedRange prev_;
  };

  void Append(const TimedRange& r);
  void ToVector();

  std::vector<std::vector<std::uint8_t>> chunks_;  // records never span two chunks
  std::vector<TimedRange> ranges_;                 // the vector form
  TimedRange last_;
  std::size_t count_ = 0;
  bool in_order_ = true;
};

}  // namespace llmpo::analysis
