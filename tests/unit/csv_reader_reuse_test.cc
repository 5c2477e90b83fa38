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

}  // namespace
}  // namespace llmpo
