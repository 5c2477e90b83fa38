#include "src/core/csv_reader.h"

#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <stdexcept>
#include <streambuf>

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

// ---- Repeated-prefix hint and read-ahead --------------------------------
// Both must return exactly what the plain reader returns: the same fields,
// line numbers and truncation flags, on any input and at any chunk size.

namespace llmpo {
namespace {

struct ReadRecord {
  std::vector<std::string> fields;
  std::uint64_t line;
  bool truncated;
  bool operator==(const ReadRecord&) const = default;
};

std::vector<ReadRecord> ReadWith(const std::string& text, std::size_t chunk, std::size_t prefix, bool read_ahead) {
  std::istringstream in(text);
  CsvReader reader(in, chunk);
  reader.ReuseRepeatedPrefix(prefix);
  if (read_ahead) {
    EXPECT_TRUE(reader.StartReadAhead());
  }
  std::vector<ReadRecord> out;
  std::vector<std::string_view> fields;
  while (reader.Next(fields)) {
    out.push_back({{fields.begin(), fields.end()}, reader.record_line(), reader.last_record_truncated()});
  }
  return out;
}

// Text made of the pieces that stress a CSV scanner, with runs of records
// that share their first fields as ncu's details page does.
std::string RandomCsv(std::mt19937& rng, int records) {
  static const std::vector<std::string> kFields = {
      "a", "", "\"q\"", "\"x,y\"", "\"say \"\"hi\"\"\"", "\"two\nlines\"", "\"\"", "12,5", "\"tail\"junk", "r\r",
      // Longer than the 64-byte windows of the plain-tail scan.
      std::string(70, 'u'), "\"" + std::string(90, 'w') + ",\"", "\"" + std::string(60, 'v') + "\"\"x\""};
  std::string text, prefix;
  for (int r = 0; r < records; ++r) {
    if (prefix.empty() || rng() % 4 == 0) {  // a new run
      prefix.clear();
      for (int f = 0; f < 3; ++f) prefix += kFields[rng() % kFields.size()] + ",";
    }
    text += prefix;
    const int rest = static_cast<int>(rng() % 4);
    for (int f = 0; f < rest; ++f) text += kFields[rng() % kFields.size()] + ",";
    text += kFields[rng() % kFields.size()];
    text += rng() % 5 == 0 ? "\r\n" : "\n";
  }
  if (rng() % 3 == 0) text += "last,\"never closed";  // a truncated final record
  return text;
}

TEST(CsvReaderReadAhead, SameRecordsAsThePlainReader) {
  std::mt19937 rng(20261122);
  for (int trial = 0; trial < 200; ++trial) {
    const std::string text = RandomCsv(rng, 1 + static_cast<int>(rng() % 60));
    const auto expected = ReadWith(text, 1 << 20, 0, false);
    for (std::size_t chunk : {1u, 3u, 7u, 64u, 1u << 20}) {
      for (std::size_t prefix : {0u, 1u, 3u, 4u}) {
        ASSERT_EQ(ReadWith(text, chunk, prefix, false), expected) << "chunk " << chunk << " prefix " << prefix;
        ASSERT_EQ(ReadWith(text, chunk, prefix, true), expected)
            << "read-ahead, chunk " << chunk << " prefix " << prefix << "\n"
            << text;
      }
    }
  }
}

TEST(CsvReaderReadAhead, AfterRawLinesAndStoppedEarly) {
  std::string text = "==PROF== noise\nID,x\n";
  for (int i = 0; i < 5000; ++i) text += "\"1\",\"k\"," + std::to_string(i) + "\n";
  std::istringstream in(text);
  CsvReader reader(in, 64);
  std::string line;
  ASSERT_TRUE(reader.NextRawLine(line));
  ASSERT_TRUE(reader.NextRawLine(line));
  EXPECT_EQ(line, "ID,x");
  reader.ReuseRepeatedPrefix(2);
  ASSERT_TRUE(reader.StartReadAhead());
  EXPECT_FALSE(reader.NextRawLine(line));  // the bytes belong to the read-ahead thread now
  std::vector<std::string_view> f;
  ASSERT_TRUE(reader.Next(f));
  EXPECT_EQ(reader.record_line(), 3u);
  EXPECT_EQ(f, (std::vector<std::string_view>{"1", "k", "0"}));
  for (int i = 1; i < 100; ++i) ASSERT_TRUE(reader.Next(f));
  EXPECT_EQ(f[2], "99");
  // Destroyed with the producer still ahead (and blocked on a full queue):
  // the destructor must stop and join it.
}

}  // namespace
}  // namespace llmpo

namespace llmpo {
namespace {

// A stream that fails after `good` bytes of "1,2\n" lines, throwing from
// the read when its exceptions mask asks for that.
class FailingBuffer : public std::streambuf {
 public:
  explicit FailingBuffer(std::size_t good) : good_(good) {}

 protected:
  int_type underflow() override {
    if (sent_ >= good_) throw std::runtime_error("disk on fire");
    const char c = "1,2\n"[sent_++ % 4];
    byte_ = c;
    setg(&byte_, &byte_, &byte_ + 1);
    return traits_type::to_int_type(c);
  }

 private:
  std::size_t good_, sent_ = 0;
  char byte_ = 0;
};

std::string ReadUntilThrow(bool read_ahead, std::size_t* records) {
  FailingBuffer buffer(4000);
  std::istream in(&buffer);
  in.exceptions(std::ios::badbit);
  CsvReader reader(in, 256);
  if (read_ahead) {
    EXPECT_TRUE(reader.StartReadAhead());
  }
  std::vector<std::string_view> fields;
  *records = 0;
  try {
    while (reader.Next(fields)) ++*records;
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no exception";
}

TEST(CsvReaderReadAhead, AnExceptionWhileReadingReachesTheCaller) {
  std::size_t plain = 0, ahead = 0;
  EXPECT_EQ(ReadUntilThrow(false, &plain), "disk on fire");
  EXPECT_EQ(ReadUntilThrow(true, &ahead), "disk on fire");  // not std::terminate on the second thread
  EXPECT_GT(ahead, 0u);
  EXPECT_LE(ahead, plain);
}

}  // namespace
}  // namespace llmpo
