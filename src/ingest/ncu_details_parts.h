// A large ncu details page read by two threads: the file is cut into parts
// where a new result starts, a second thread reads every other part into a
// buffer while this one reads the rest straight into the sink, and the parts'
// launches and diagnostics reach the sink in file order. Each cut is checked
// once both sides of it are read: a part whose reader would not have been in
// the same state there (a cut inside a quoted field, a result going on over
// the cut, IDs out of order) is read again on one thread from the cut on, and
// one whose diagnostics would be the first of their kind (their examples need
// the true line numbers) is read again by the first thread; so the records,
// diagnostics and line numbers are always those of one reader.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/core/csv_reader.h"
#include "src/core/result.h"
#include "src/ingest/importer.h"

namespace llmpo::ingest::ncu {

// When a file is read in parts: from min_bytes of rows up (0: never), in
// parts of about part_bytes.
struct PartsPolicy {
  std::uint64_t min_bytes = 0;
  std::uint64_t part_bytes = 0;
};

// 64 MiB and 4 MiB where the process may use two CPUs or more; never
// otherwise. LLMPO_NCU_PARTS overrides: a number of bytes reads every file in
// parts of that size (tests, measurements), "0" never.
PartsPolicy DefaultPartsPolicy();

// Tests: the policy of this thread's imports, until called with nullopt.
void SetPartsPolicyForTesting(std::optional<PartsPolicy> policy);

struct DetailsParts {
  int fd = -1;  // the reader's descriptor, open while it lives
  std::uint64_t file_size = 0;
  std::uint64_t first_line = 0;       // the line at bounds.front()
  std::vector<std::uint64_t> bounds;  // part i is [bounds[i], bounds[i + 1]); at least two parts
};

// Parts for the rows after the header `reader` has just read, or nullopt to
// read them on one thread: a stream, a small file, one CPU, read-ahead asked
// for, or no place to cut.
std::optional<DetailsParts> PlanDetailsParts(const CsvReader& reader, const ImportContext& ctx);

Status ImportDetailsInParts(const DetailsParts& parts, const std::vector<std::string>& header, ImportContext& ctx);

// What the last ImportDetailsInParts of this thread did, for tests that
// must know which path they exercised.
struct PartsOutcome {
  std::size_t parts = 0;
  std::size_t handed_over = 0;         // parts of the second thread whose launches were taken
  std::size_t read_again = 0;          // ... read again here for their diagnostics' line numbers
  bool one_thread_from_cut = false;    // a cut failed its check; the rest was read on one thread
  bool resumed_inside_record = false;  // ... because it fell inside a record
};
PartsOutcome LastPartsOutcomeForTesting();

// Building blocks, for tests.
// The offset of the first line at or after `from` whose ID differs from the
// ID of the line before it, looked for in the 256 KiB from `from`; nullopt
// when there is none there.
std::optional<std::uint64_t> FindResultStart(int fd, std::uint64_t from, std::uint64_t end);

}  // namespace llmpo::ingest::ncu
