// CallSpill keeps the launch calls of a GPU table's rows between the nsys
// SQLite import's two passes: every call written comes back as written, in
// memory and through a scratch file, across chunks, with repeated rows and
// a changed table noticed.
#include "src/ingest/nsys_call_spill.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <vector>

#include "src/ingest/importer.h"
#include "tests/unit/temp_dir.h"

namespace llmpo::ingest::nsys_sqlite {
namespace {

bool operator==(const LaunchCall& a, const LaunchCall& b) {
  return a.tid == b.tid && a.start == b.start && a.end == b.end && a.name_id == b.name_id;
}

// Rows 1..n (some rowids skipped), a call on most: runs of one thread and
// name, a few calls with unknown fields, extreme values among them.
std::vector<std::pair<std::int64_t, std::optional<LaunchCall>>> Rows(int n) {
  std::vector<std::pair<std::int64_t, std::optional<LaunchCall>>> rows;
  std::int64_t rowid = 0, start = 1'000'000'000;
  for (int i = 0; i < n; ++i) {
    rowid += i % 97 == 0 ? 3 : 1;
    if (i % 11 == 0) {
      rows.emplace_back(rowid, std::nullopt);
      continue;
    }
    start += 3000 + i % 7;
    LaunchCall call{(std::int64_t{300} << 24) + 301 + (i / 1000) % 2, start, start + 2500 - i % 5, 1 + (i / 500) % 3};
    if (i % 13 == 0) call.end.reset();
    if (i % 17 == 0) call.name_id.reset();
    if (i % 19 == 0) call.start.reset();
    if (i == 5)
      call = LaunchCall{std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min(),
                        std::numeric_limits<std::int64_t>::max(), -1};
    rows.emplace_back(rowid, call);
  }
  return rows;
}

void RoundTrip(CallSpill& spill, int n) {
  const auto rows = Rows(n);
  for (const auto& [rowid, call] : rows) ASSERT_TRUE(spill.Put(rowid, call ? &*call : nullptr));
  ASSERT_TRUE(spill.Rewind());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    LaunchCall got;
    ASSERT_TRUE(spill.Next(rows[i].first, got)) << "row " << rows[i].first;
    EXPECT_TRUE(got == rows[i].second.value_or(LaunchCall{})) << "row " << rows[i].first;
    if (i % 5 == 0) {  // a join repeats a row: the same call again
      LaunchCall again;
      ASSERT_TRUE(spill.Next(rows[i].first, again));
      EXPECT_TRUE(again == got);
    }
  }
  LaunchCall past;
  EXPECT_FALSE(spill.Next(rows.back().first + 1, past));  // nothing was written after the last row
}

TEST(NsysCallSpill, InMemoryAcrossChunks) {
  CallSpill spill;            // no scratch folder set in this test: the chunks stay in memory
  RoundTrip(spill, 400'000);  // several MiB: more than one chunk
}

TEST(NsysCallSpill, ThroughAScratchFileLeavingNothing) {
  testing::TempDir dir;
  UseSqliteScratchDir(dir.path());
  {
    CallSpill spill;
    RoundTrip(spill, 400'000);
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
  sqlite3_free(sqlite3_temp_directory);  // SQLite's default again: the folder goes away
  sqlite3_temp_directory = nullptr;
}

TEST(NsysCallSpill, RowsThatDoNotFollowTheWrittenOnesAreNoticed) {
  CallSpill spill;
  const LaunchCall call{5033165101, 100, 110, 1};
  ASSERT_TRUE(spill.Put(1, &call));
  ASSERT_TRUE(spill.Put(2, nullptr));
  ASSERT_TRUE(spill.Rewind());
  LaunchCall got;
  ASSERT_TRUE(spill.Next(1, got));
  EXPECT_FALSE(spill.Next(3, got));  // row 2 was next
}

}  // namespace
}  // namespace llmpo::ingest::nsys_sqlite
