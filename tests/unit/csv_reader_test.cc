#include "src/core/csv_reader.h"

#include <gtest/gtest.h>

#include <sstream>

namespace llmpo {
namespace {

using Rows = std::vector<std::vector<std::string>>;

// Reads everything, with a tiny chunk size so records straddle chunk edges.
Rows ReadAll(const std::string& text, std::size_t chunk = 3) {
  std::istringstream in(text);
  CsvReader reader(in, chunk);
  Rows rows;
  std::vector<std::string_view> fields;
  while (reader.Next(fields)) rows.emplace_back(fields.begin(), fields.end());
  return rows;
}

TEST(CsvReader, PlainAndQuotedFields) {
  EXPECT_EQ(ReadAll("a,b,c\n1,2,3\n"), (Rows{{"a", "b", "c"}, {"1", "2", "3"}}));
  EXPECT_EQ(ReadAll("\"a,b\",\"say \"\"hi\"\"\",x\n"), (Rows{{"a,b", "say \"hi\"", "x"}}));
}

TEST(CsvReader, EmbeddedNewlinesAndLineNumbers) {
  std::istringstream in("h1,h2\n\"multi\nline\",v\nlast,row\n");
  CsvReader reader(in, 4);
  std::vector<std::string_view> f;
  ASSERT_TRUE(reader.Next(f));
  EXPECT_EQ(reader.record_line(), 1u);
  ASSERT_TRUE(reader.Next(f));
  EXPECT_EQ(f[0], "multi\nline");
  EXPECT_EQ(reader.record_line(), 2u);
  ASSERT_TRUE(reader.Next(f));
  EXPECT_EQ(f[0], "last");
  EXPECT_EQ(reader.record_line(), 4u);
  EXPECT_FALSE(reader.Next(f));
}

TEST(CsvReader, CrlfEmptyFieldsAndMissingFinalNewline) {
  EXPECT_EQ(ReadAll("a,,c\r\n,\r\nz"), (Rows{{"a", "", "c"}, {"", ""}, {"z"}}));
  EXPECT_EQ(ReadAll("a\rb,c\n"), (Rows{{"a\rb", "c"}}));  // a lone CR is text
  EXPECT_EQ(ReadAll("\"trailing comma\",\n"), (Rows{{"trailing comma", ""}}));
}

TEST(CsvReader, TruncatedQuotedFieldIsFlagged) {
  std::istringstream in("a,\"never closed\n");
  CsvReader reader(in);
  std::vector<std::string_view> f;
  ASSERT_TRUE(reader.Next(f));
  EXPECT_TRUE(reader.last_record_truncated());
}

TEST(CsvReader, StrayQuoteAfterClosingQuoteIsKept) { EXPECT_EQ(ReadAll("\"a\"b\",c\n"), (Rows{{"ab\"", "c"}})); }

TEST(CsvReader, RawLinesThenRecords) {
  std::istringstream in("==PROF== hello\r\n\"ID\",x\n1,2\n");
  CsvReader reader(in, 5);
  std::string line;
  ASSERT_TRUE(reader.NextRawLine(line));
  EXPECT_EQ(line, "==PROF== hello");
  ASSERT_TRUE(reader.NextRawLine(line));
  EXPECT_EQ(line, "\"ID\",x");
  std::vector<std::string_view> f;
  ASSERT_TRUE(reader.Next(f));
  EXPECT_EQ(f.size(), 2u);
  EXPECT_EQ(reader.record_line(), 3u);
}

TEST(CsvReader, EmptyInput) { EXPECT_TRUE(ReadAll("").empty()); }

}  // namespace
}  // namespace llmpo

namespace llmpo {
namespace {

TEST(CsvReader, DoubledQuotesAcrossChunkEdgesAndNewlines) {
  const std::string text = "a,\"x \"\"q\"\" y,\nz\",b\nnext,row\n";
  for (std::size_t chunk = 1; chunk < text.size() + 2; ++chunk) {
    EXPECT_EQ(ReadAll(text, chunk), (Rows{{"a", "x \"q\" y,\nz", "b"}, {"next", "row"}})) << "chunk " << chunk;
  }
}

}  // namespace
}  // namespace llmpo
