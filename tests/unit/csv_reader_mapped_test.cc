// CsvReader::MapFile must give exactly the records of the stream reader,
// across window edges, with and without read-ahead and the prefix hint.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

#include "src/core/csv_reader.h"
#include "tests/unit/temp_dir.h"

namespace llmpo {
namespace {

struct Record {
  std::vector<std::string> fields;
  std::uint64_t line;
  bool truncated;
  bool operator==(const Record&) const = default;
};

std::vector<Record> ReadAllFrom(CsvReader& reader, std::size_t prefix, bool read_ahead) {
  reader.ReuseRepeatedPrefix(prefix);
  if (read_ahead) {
    EXPECT_TRUE(reader.StartReadAhead());
  }
  std::vector<Record> out;
  std::vector<std::string_view> fields;
  while (reader.Next(fields)) {
    out.push_back({{fields.begin(), fields.end()}, reader.record_line(), reader.last_record_truncated()});
  }
  return out;
}

std::vector<Record> ReadStream(const std::string& text) {
  std::istringstream in(text);
  CsvReader reader(in);
  return ReadAllFrom(reader, 0, false);
}

std::filesystem::path WriteFile(const testing::TempDir& dir, const std::string& text) {
  const auto path = dir.path() / "in.csv";
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// Runs of records sharing their first fields, quoted fields with commas,
// doubled quotes and line breaks, CRLF, and fields longer than a page.
std::string RandomCsv(std::mt19937& rng, int records) {
  static const std::vector<std::string> kFields = {
      "a", "", "\"q\"", "\"x,y\"", "\"say \"\"hi\"\"\"", "\"two\nlines\"", "12,5", "\"tail\"junk", "r\r",
      std::string(70, 'u'), "\"" + std::string(90, 'w') + ",\"", "\"" + std::string(5000, 'v') + "\"\"x\"",
      std::string(9000, 'z')};
  std::string text, prefix;
  for (int r = 0; r < records; ++r) {
    if (prefix.empty() || rng() % 8 == 0) {
      prefix.clear();
      for (int f = 0; f < 3; ++f) prefix += kFields[rng() % (kFields.size() - 2)] + ",";
    }
    text += prefix;
    const int rest = static_cast<int>(rng() % 4);
    for (int f = 0; f < rest; ++f) text += kFields[rng() % (rng() % 50 == 0 ? kFields.size() : 10)] + ",";
    text += kFields[rng() % 9];
    text += rng() % 5 == 0 ? "\r\n" : "\n";
  }
  if (rng() % 3 == 0) text += "last,\"never closed";
  return text;
}

TEST(CsvReaderMapped, SameRecordsAsTheStreamReader) {
  testing::TempDir dir;
  std::mt19937 rng(20261126);
  for (int trial = 0; trial < 30; ++trial) {
    const std::string text = RandomCsv(rng, 50 + static_cast<int>(rng() % 2000));
    const auto path = WriteFile(dir, text);
    const auto expected = ReadStream(text);
    for (std::size_t window : {std::size_t{1}, std::size_t{3} << 12, std::size_t{8} << 20}) {
      for (std::size_t prefix : {0u, 3u}) {
        for (bool read_ahead : {false, true}) {
          auto reader = CsvReader::MapFile(path, window);
          ASSERT_NE(reader, nullptr);
          ASSERT_EQ(ReadAllFrom(*reader, prefix, read_ahead), expected)
              << "window " << window << " prefix " << prefix << " read-ahead " << read_ahead;
        }
      }
    }
  }
}

// A reader of a range that starts where a record starts gives the records a
// reader of the whole file gives from there, with their lines and offsets.
TEST(CsvReaderMapped, ARangeFromARecordStartReadsAsTheWholeFileDoes) {
  testing::TempDir dir;
  std::mt19937 rng(20261203);
  const std::string text = RandomCsv(rng, 1500);
  const auto path = WriteFile(dir, text);
  auto whole = CsvReader::MapFile(path, std::size_t{3} << 12);
  ASSERT_NE(whole, nullptr);
  std::vector<Record> records;
  std::vector<std::uint64_t> offsets;
  std::vector<std::string_view> fields;
  while (whole->Next(fields)) {
    records.push_back({{fields.begin(), fields.end()}, whole->record_line(), whole->last_record_truncated()});
    offsets.push_back(whole->record_offset());
  }
  ASSERT_GT(records.size(), 100u);
  const auto position = whole->mapped_position();
  ASSERT_TRUE(position.has_value());
  EXPECT_EQ(position->offset, text.size());
  const std::size_t from = records.size() / 3;
  auto part = CsvReader::MapRange(position->fd, offsets[from], text.size(), records[from].line, std::size_t{1} << 12);
  ASSERT_NE(part, nullptr);
  std::size_t i = from;
  while (part->Next(fields)) {
    ASSERT_LT(i, records.size());
    EXPECT_EQ((Record{{fields.begin(), fields.end()}, part->record_line(), part->last_record_truncated()}), records[i]);
    EXPECT_EQ(part->record_offset(), offsets[i]);
    ++i;
  }
  EXPECT_EQ(i, records.size());
  EXPECT_EQ(part->mapped_position()->line, position->line);
}

TEST(CsvReaderMapped, RawLinesThenRecordsAcrossWindows) {
  testing::TempDir dir;
  std::string text = "==PROF== noise\r\nID,x\n";
  for (int i = 0; i < 3000; ++i) text += "\"1\",\"k\"," + std::to_string(i) + "\n";
  auto reader = CsvReader::MapFile(WriteFile(dir, text), 1);
  ASSERT_NE(reader, nullptr);
  std::string line;
  ASSERT_TRUE(reader->NextRawLine(line));
  EXPECT_EQ(line, "==PROF== noise");
  ASSERT_TRUE(reader->NextRawLine(line));
  EXPECT_EQ(line, "ID,x");
  const auto records = ReadAllFrom(*reader, 2, true);
  ASSERT_EQ(records.size(), 3000u);
  EXPECT_EQ(records[2999].fields, (std::vector<std::string>{"1", "k", "2999"}));
  EXPECT_EQ(records[2999].line, 3002u);
}

TEST(CsvReaderMapped, EmptyFileHasNoRecords) {
  testing::TempDir dir;
  auto reader = CsvReader::MapFile(WriteFile(dir, ""));
  ASSERT_NE(reader, nullptr);
  std::string line;
  EXPECT_FALSE(reader->NextRawLine(line));
  EXPECT_TRUE(ReadAllFrom(*reader, 0, false).empty());
}

TEST(CsvReaderMapped, OnlyRegularFilesAreMapped) {
  testing::TempDir dir;
  EXPECT_EQ(CsvReader::MapFile(dir.path() / "missing.csv"), nullptr);
  EXPECT_EQ(CsvReader::MapFile(dir.path()), nullptr);
  EXPECT_EQ(CsvReader::MapFile("/dev/null"), nullptr);  // a device: read as a stream
}

}  // namespace
}  // namespace llmpo
