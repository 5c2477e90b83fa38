// CsvReader::Next overwrites the caller's vector in place (it keeps the
// size of the record before): whatever the vector held, and whichever of a
// record's fields need decoding, it must come back holding exactly the
// record's fields.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "src/core/csv_reader.h"

namespace llmpo {
namespace {

using Rows = std::vector<std::vector<std::string>>;

Rows ReadInto(const std::string& text, std::size_t chunk, std::size_t prefix, std::vector<std::string_view>& fields) {
  std::istringstream in(text);
  CsvReader reader(in, chunk);
  reader.ReuseRepeatedPrefix(prefix);
  Rows rows;
  while (reader.Next(fields)) rows.emplace_back(fields.begin(), fields.end());
  EXPECT_TRUE(fields.empty()) << "end of input leaves no fields behind";
  return rows;
}

// A details-page-like text: a repeated identity prefix, then records whose
// field counts differ and whose fields sometimes need decoding. Long enough
// that the plain-tail scan (64 bytes or more before the buffer's end) runs.
std::string Text() {
  const std::string id = "\"7\",\"kernel<int, 2>(float *, int)\",\"(64, 1, 1)\",";
  std::string text;
  text += id + "\"Section\",\"Name\",\"unit\",\"1,024\",\n";                // plain, quoted comma
  text += id + "\"Section\",\"say \"\"hi\"\"\",\"\",\"2\"\n";               // doubled quotes
  text += id + "\"Section\",\"Name\",\"unit\",\"3\",,,,,,,,\n";             // longer than before
  text += id + "\"S\"\r\n";                                                   // shorter, CRLF
  text += id + "\"two\nlines\",x\n";                                           // line break inside quotes
  text += "\"8\",\"other\",\"(1, 1, 1)\",\"Section\",\"Name\",\"\",\"n/a\",\n";  // a new prefix
  text += "\"8\",\"other\",\"(1, 1, 1)\",\"Section\",\"" + std::string(100, 'w') + "\",\"%\",\"9\"";  // no final newline
  return text;
}

const Rows kExpected = {
    {"7", "kernel<int, 2>(float *, int)", "(64, 1, 1)", "Section", "Name", "unit", "1,024", ""},
    {"7", "kernel<int, 2>(float *, int)", "(64, 1, 1)", "Section", "say \"hi\"", "", "2"},
    {"7", "kernel<int, 2>(float *, int)", "(64, 1, 1)", "Section", "Name", "unit", "3", "", "", "", "", "", "", "", ""},
    {"7", "kernel<int, 2>(float *, int)", "(64, 1, 1)", "S"},
    {"7", "kernel<int, 2>(float *, int)", "(64, 1, 1)", "two\nlines", "x"},
    {"8", "other", "(1, 1, 1)", "Section", "Name", "", "n/a", ""},
    {"8", "other", "(1, 1, 1)", "Section", std::string(100, 'w'), "%", "9"},
};

TEST(CsvReaderReuse, VectorOfAnySizeComesBackHoldingTheRecord) {
  for (std::size_t prefix : {0u, 3u}) {
    std::vector<std::string_view> fields(20, "junk");
    EXPECT_EQ(ReadInto(Text(), 1 << 20, prefix, fields), kExpected) << "prefix " << prefix;
    fields.assign(1, "junk");
    EXPECT_EQ(ReadInto(Text(), 1 << 20, prefix, fields), kExpected) << "prefix " << prefix;
  }
}

// Records across buffer edges take the field-by-field scan; the same fields.
TEST(CsvReaderReuse, SameFieldsAtEveryChunkSize) {
  const std::string text = Text();
  for (std::size_t chunk = 1; chunk <= text.size() + 1; ++chunk) {
    std::vector<std::string_view> fields(5, "junk");
    ASSERT_EQ(ReadInto(text, chunk, 3, fields), kExpected) << "chunk " << chunk;
  }
}

// A decoded field is followed by plain records: each record's decoding is
// decided on its own.
TEST(CsvReaderReuse, DecodingDoesNotCarryOverToTheNextRecord) {
  const std::string pad(80, 'p');
  const std::string text = "a,\"x\"\"y\"," + pad + "\nb,\"plain\"," + pad + "\nc,\"q\"\"\"," + pad + "\n";
  std::vector<std::string_view> fields;
  EXPECT_EQ(ReadInto(text, 1 << 20, 0, fields),
            (Rows{{"a", "x\"y", pad}, {"b", "plain", pad}, {"c", "q\"", pad}}));
}

// A repeated prefix with a line break inside its quotes, tails of up to 40
// fields (more than the repeated-record path keeps on the stack) and a CR
// before a newline: the same records and line numbers with the hint as
// without it.
TEST(CsvReaderReuse, RepeatedRecordsKeepLineNumbersAndLongTails) {
  const std::string id = "\"1\",\"name with\na line break\",\"(1, 1, 1)\",";
  std::string text;
  for (int r = 0; r < 40; ++r) {
    text += id + "\"Section\",\"metric " + std::to_string(r) + "\"";
    for (int f = 0; f < r; ++f) text += ",\"" + std::to_string(f) + "\"";
    text += r % 7 == 3 ? ",x\r\n" : ",\n";
  }
  const auto read = [&](std::size_t prefix) {
    std::istringstream in(text);
    CsvReader reader(in, 1 << 20);
    reader.ReuseRepeatedPrefix(prefix);
    std::vector<std::pair<std::vector<std::string>, std::uint64_t>> out;
    std::vector<std::string_view> fields;
    while (reader.Next(fields)) out.emplace_back(std::vector<std::string>(fields.begin(), fields.end()), reader.record_line());
    return out;
  };
  const auto expected = read(0);
  ASSERT_EQ(expected.size(), 40u);
  EXPECT_EQ(expected.back().second, 79u);  // two lines a record
  EXPECT_EQ(expected[3].first.back(), "x");
  EXPECT_EQ(read(3), expected);
}

}  // namespace
}  // namespace llmpo
