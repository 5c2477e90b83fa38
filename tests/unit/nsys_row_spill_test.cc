// RowSpill keeps a GPU table's rows between the nsys SQLite import's
// passes: every row written comes back as written, in memory and through a
// scratch file, across chunks, nulls and extreme values included.
#include "src/ingest/nsys_row_spill.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <vector>

#include "src/ingest/importer.h"
#include "tests/unit/temp_dir.h"

namespace llmpo::ingest::nsys_sqlite {
namespace {

using Row = std::array<RowSpill::Column, 15>;

// Kernel-like rows: times microseconds apart, runs of one device, stream,
// thread and name, a few nulls, extreme values here and there.
std::vector<Row> Rows(int n) {
  std::vector<Row> rows;
  std::int64_t start = 1'000'000'000, rowid = 0;
  for (int i = 0; i < n; ++i) {
    start += 3000 + i % 7;
    rowid += i % 97 == 0 ? 3 : 1;
    Row r;
    r[0] = start;
    r[1] = start + 2500 - i % 5;
    r[2] = i / 50'000;
    r[3] = 7 + (i / 1000) % 3;
    r[4] = i % 11 == 0 ? std::nullopt : std::optional<std::int64_t>(i);
    r[5] = std::int64_t{300} << 24;
    r[6] = 1 + (i / 500) % 40;
    r[7] = rowid;
    if (i % 11 != 0) {
      r[8] = (std::int64_t{300} << 24) + 301 + (i / 1000) % 2;
      r[9] = start - 900;
      r[11] = start - 100;
      r[12] = 2;
    }
    r[10] = r[6];
    if (i % 13 == 0) r[13] = -1;
    if (i == 5) {
      r[0] = std::numeric_limits<std::int64_t>::max();
      r[1] = std::numeric_limits<std::int64_t>::min();
      r[14] = 0;
    }
    rows.push_back(r);
  }
  return rows;
}

void RoundTrip(RowSpill& spill, int n) {
  const auto rows = Rows(n);
  for (const auto& r : rows) ASSERT_TRUE(spill.Put(r));
  ASSERT_TRUE(spill.Rewind());
  Row got;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ASSERT_TRUE(spill.Next(got)) << "row " << i;
    ASSERT_EQ(got, rows[i]) << "row " << i;
  }
  EXPECT_FALSE(spill.Next(got));  // nothing after the last row
  EXPECT_FALSE(spill.failed());
}

TEST(NsysRowSpill, InMemoryAcrossChunks) {
  RowSpill spill;             // no scratch folder set in this test: the chunks stay in memory
  RoundTrip(spill, 300'000);  // several MiB: more than one chunk
}

TEST(NsysRowSpill, ThroughAScratchFileLeavingNothing) {
  testing::TempDir dir;
  UseSqliteScratchDir(dir.path());
  {
    RowSpill spill;
    RoundTrip(spill, 300'000);
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
  sqlite3_free(sqlite3_temp_directory);  // SQLite's default again: the folder goes away
  sqlite3_temp_directory = nullptr;
}

TEST(NsysRowSpill, RowsOfAnotherWidthAreRefused) {
  RowSpill spill;
  const std::array<RowSpill::Column, 3> three{1, std::nullopt, 3};
  const std::array<RowSpill::Column, 2> two{1, 2};
  ASSERT_TRUE(spill.Put(three));
  EXPECT_FALSE(spill.Put(two));
  EXPECT_TRUE(spill.failed());
}

}  // namespace
}  // namespace llmpo::ingest::nsys_sqlite
