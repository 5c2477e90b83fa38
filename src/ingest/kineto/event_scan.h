// The fast path of the Kineto reader: one trace event, an object that lies
// whole in the reader's buffer, read by jumping through a StructuralIndex
// of the buffer. It reads the same fields as the byte-by-byte path
// (trace_reader.cc's ReadEvent) and gives up, leaving the event to that
// path, on anything it does not expect: a syntax error (so that the
// message and its byte offset come from one place), a string that needs
// decoding, an event cut by the end of the buffer.
#pragma once

#include <cstddef>
#include <string_view>

#include "src/ingest/kineto/structural_index.h"

namespace llmpo::ingest::kineto {

// One event's fields of interest, as text: views into the buffer (fast
// path) or into the slow path's decoded strings. A string value is its
// content, a number or literal its text, an object or array empty.
struct EventFields {
  std::string_view ph, cat, name, pid, tid, ts, dur;
  std::string_view correlation, external_id, device, stream;
  bool has_ts = false, has_dur = false;
  bool skipped = false;  // read past: not a duration event, or an ignored category
};

// Categories read past without keeping anything.
bool IsIgnoredCategory(std::string_view category);

enum class ScanResult {
  kDone,        // `fields` filled; `end` is just past the event's '}'
  kIncomplete,  // the event goes on past the indexed bytes
  kOther,       // anything else: the byte-by-byte path reads it
};

// Reads the event whose '{' is text[start]; index covers text up to
// index.size(). `backslash`: the scan's memory of where the next backslash
// is, kept by the caller from event to event of one index (0 for a new
// index, and whenever a scan starts before an earlier one).
ScanResult ScanEvent(const char* text, const StructuralIndex& index, std::size_t start, EventFields& fields,
                     std::size_t& end, std::size_t& backslash);

}  // namespace llmpo::ingest::kineto
