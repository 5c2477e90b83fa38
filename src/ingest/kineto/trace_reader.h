// Reads one Kineto Chrome-trace JSON text (object or bare-array form) from a
// byte source into a TraceStore, event by event. Damaged input stops the
// read at the first syntax error: what was read before it is kept and the
// error (with its byte offset) is returned for the caller to report.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "src/ingest/kineto/byte_source.h"
#include "src/ingest/kineto/trace_store.h"
#include "src/model/diagnostics.h"

namespace llmpo::ingest::kineto {

// Microseconds written as decimal text ("1712195495519689.047", "12",
// "1.5e3") to integer nanoseconds, exactly (rounded half away from zero
// past the nanosecond); nullopt if it is not a number or does not fit.
std::optional<std::int64_t> MicrosToNs(std::string_view text);

// Times past ±2^62 ns (about 146 years) are refused (kineto_time_out_of_range):
// within it a start plus a duration, a time plus baseTimeNanoseconds (kept
// within it too, attribution.cc) and the difference of two times all fit in
// 64 bits.
inline constexpr std::int64_t kMaxAbsTimeNs = std::int64_t{1} << 62;
inline bool TimeInRange(std::int64_t ns) { return ns > -kMaxAbsTimeNs && ns < kMaxAbsTimeNs; }

// An unsigned or signed integer id ("10159970886766084423", "-1" → two's
// complement), or a "stream 7"-style text ending in digits.
std::optional<std::uint64_t> IdFromText(std::string_view text);

// 256 KiB stays in a core's L2 cache between the read() that fills it and
// the parse: on the 1 GB benchmark trace about 8 % less CPU time than 1 MiB
// (bench/RESULTS.md).
inline constexpr std::size_t kDefaultBufferBytes = std::size_t{1} << 18;

struct ReadOutcome {
  std::string error;  // empty: the whole text was read
  // Where a second thread's part began (SplitRead); 0: one thread read it all.
  std::uint64_t second_thread_from = 0;
};

// `buffer_bytes`: the reader's buffer (tests use tiny ones to put every
// token across a refill). `indexed`: events that lie
// whole in the buffer are read through a structural index of it
// (event_scan.h); false reads every event byte by byte (tests compare the two).
//
// `split`: a plain file this large is read by two threads, one from the
// start and one from an event start guessed after the middle; the first
// checks the guess when it gets there (and reads on alone when it was
// wrong), so the outcome is the one reading alone gives.
struct SplitRead {
  std::string path;             // the file `source` reads (opened again for the second thread)
  std::uint64_t size = 0;       // its size in bytes
  std::uint64_t min_bytes = 0;  // smaller files are read by one thread
};
ReadOutcome ReadTrace(ByteSource& source, TraceStore& store, model::Diagnostics& diagnostics, const std::string& label,
                      std::size_t buffer_bytes = kDefaultBufferBytes, bool indexed = true,
                      const SplitRead* split = nullptr);

}  // namespace llmpo::ingest::kineto
