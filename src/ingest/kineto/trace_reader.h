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

// An unsigned or signed integer id ("10159970886766084423", "-1" → two's
// complement), or a "stream 7"-style text ending in digits.
std::optional<std::uint64_t> IdFromText(std::string_view text);

struct ReadOutcome {
  std::string error;  // empty: the whole text was read
};

// `buffer_bytes`: the reader's buffer (tests use tiny ones to put every
// token across a refill). 256 KiB stays in a core's L2 cache between the
// read() that fills it and the parse: on the 1 GB benchmark trace about 8 %
// less CPU time than 1 MiB (bench/RESULTS.md). `indexed`: events that lie
// whole in the buffer are read through a structural index of it
// (event_scan.h); false reads every event byte by byte (tests compare the two).
ReadOutcome ReadTrace(ByteSource& source, TraceStore& store, model::Diagnostics& diagnostics, const std::string& label,
                      std::size_t buffer_bytes = 1 << 18, bool indexed = true);

}  // namespace llmpo::ingest::kineto
