// A details page read in parts by two threads (ncu_details_parts.h) gives
// the records and diagnostics of one reader, on clean files and on files
// built to defeat the cuts: row-like lines inside quoted fields, results
// that reappear, rows without an ID, CRLF, a diagnostic first seen late, a
// file that ends inside quotes.
#include "src/ingest/ncu_details_parts.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/core/csv_reader.h"
#include "src/ingest/importer.h"
#include "src/ingest/kineto/byte_source.h"

namespace llmpo {
namespace {

namespace fs = std::filesystem;
using ingest::ncu::PartsOutcome;
using ingest::ncu::PartsPolicy;

// Every launch as text, fields that reports read included.
struct Digest : model::RecordSink {
  std::vector<std::string> launches;
  std::map<std::uint64_t, std::string> name_of_key;
  bool keys_consistent = true;
  void OnLaunch(const model::LaunchRecord& l) override {
    std::string text = fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}", l.result_id, l.kernel_name, l.process.name,
                                   l.process.pid.value_or(-1), l.device, l.block_size, l.grid_size,
                                   l.duration_ns ? fmt::format("{}", *l.duration_ns) : "null", l.metrics.size());
    for (const auto& m : l.metrics) {
      text += fmt::format("|{};{};{};{};{};{}", m.section, m.name, m.value.raw_value, m.value.raw_unit,
                          m.value.value ? fmt::format("{}", *m.value.value) : "null", m.value.unit);
    }
    for (const auto& f : l.findings) {
      text += fmt::format("|F:{};{};{};{}", f.rule, f.section, f.message, f.speedup_pct.value_or(-1));
    }
    for (const auto& frame : l.nvtx_stack) text += "|N:" + frame.name;
    launches.push_back(std::move(text));
    // Equal keys, equal names: the keys themselves differ from import to import.
    if (l.kernel_name_key == 0) {
      keys_consistent = false;
    } else if (auto [it, added] = name_of_key.emplace(l.kernel_name_key, l.kernel_name); !added) {
      keys_consistent = keys_consistent && it->second == l.kernel_name;
    }
  }
  void OnKernelSummary(const model::KernelSummaryRow&) override {}
};

struct Imported {
  std::vector<std::string> launches;
  std::string diagnostics;
  bool keys_consistent = false;
  PartsOutcome outcome;
};

Imported Import(const fs::path& file, std::optional<PartsPolicy> policy) {
  ingest::ncu::SetPartsPolicyForTesting(policy.value_or(PartsPolicy{}));
  Digest sink;
  model::Diagnostics diagnostics;
  ingest::ImportContext ctx{"f.csv", sink, diagnostics};
  auto reader = CsvReader::MapFile(file);
  EXPECT_NE(reader, nullptr);
  const Status status = ingest::ImportNcuCsv(*reader, ctx);
  EXPECT_TRUE(status.ok());
  ingest::ncu::SetPartsPolicyForTesting(std::nullopt);
  Imported out{sink.launches, fmt::format("rows {}", diagnostics.rows_read()), sink.keys_consistent,
               ingest::ncu::LastPartsOutcomeForTesting()};
  for (const auto& [code, e] : diagnostics.entries()) {
    out.diagnostics += fmt::format("\n{} x{} {}: {}", code, e.count, static_cast<int>(e.severity), e.first_example);
  }
  return out;
}

std::string Quote(const std::string& s) {
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

class PartsFile {
 public:
  explicit PartsFile(bool crlf) : eol_(crlf ? "\r\n" : "\n") {
    text_ = "==PROF== Connected to process 123" + eol_;
    Row({"ID",
         "Process ID",
         "Process Name",
         "Host Name",
         "Kernel Name",
         "Context",
         "Stream",
         "Block Size",
         "Grid Size",
         "Device",
         "CC",
         "Section Name",
         "Metric Name",
         "Metric Unit",
         "Metric Value",
         "Rule Name",
         "Rule Type",
         "Rule Description",
         "Estimated Speedup Type",
         "Estimated Speedup"});
  }
  void Row(const std::vector<std::string>& fields) {
    for (std::size_t i = 0; i < fields.size(); ++i) text_ += (i ? "," : "") + Quote(fields[i]);
    text_ += eol_;
  }
  void Raw(const std::string& text) { text_ += text; }
  // One result: six metrics and a duration, a rule row when `rule` is set.
  void Launch(int id, const std::string& name, const std::string& unit = "%", const std::string& rule = "") {
    const std::string ids = std::to_string(id);
    for (int m = 0; m < 6; ++m) {
      Row({ids, "123", "python3", "host", name, "1", "7", "(128, 1, 1)", "(64, 1, 1)", "0", "9.0", "SOL",
           fmt::format("Metric {}", m), m == 2 ? unit : "%", fmt::format("{}.{}", (id * 7 + m) % 100, m)});
    }
    Row({ids, "123", "python3", "host", name, "1", "7", "(128, 1, 1)", "(64, 1, 1)", "0", "9.0", "SOL", "Duration",
         "us", fmt::format("{},{:03}.5", 1 + id % 3, id % 1000)});
    if (!rule.empty()) {
      Row({ids,          "123", "python3", "host",         name, "1", "7", "(128, 1, 1)",
           "(64, 1, 1)", "0",   "9.0",     "SpeedOfLight", "",   "",  "",  "SOLBottleneck",
           "OPT",        rule,  "local",   "12.5"});
    }
  }
  fs::path Write(const std::string& name) const {
    const fs::path path = fs::path(::testing::TempDir()) / name;
    std::ofstream(path, std::ios::binary) << text_;
    return path;
  }

 private:
  std::string eol_;
  std::string text_;
};

// Every trap at a few places, each many parts apart at the sizes tested.
fs::path HostileFile(bool crlf, bool truncated) {
  PartsFile f(crlf);
  int id = 0;
  for (int k = 0; k < 400; ++k) {
    const std::string name = fmt::format("kernel_{}<float, {}>", k % 7, k % 3);
    switch (k % 37) {
      case 5:  // a continuation line that starts like a row (an unquoted ID)
        f.Launch(id++, name, "%", "looks like a row:\n99999,\"x\",\"y\"\nmore, with commas");
        break;
      case 9:
        f.Raw("==PROF== Disconnected from process 123\n");
        f.Launch(id++, name);
        break;
      case 13:
        f.Launch(id++, name, "%", "quoted \"word\" and\n\"77\",\"fake row\"");
        break;
      case 17:  // a result reappears after a later one
        f.Launch(id, name);
        f.Launch(id + 1, name);
        f.Launch(id, name);
        id += 2;
        break;
      case 21:  // rows without a result number
        f.Row({"", "123", "python3", "host", "k", "1", "7", "(1, 1, 1)", "(1, 1, 1)", "0", "9.0", "S", "M", "%", "1"});
        f.Row(
            {"x1", "123", "python3", "host", "k", "1", "7", "(1, 1, 1)", "(1, 1, 1)", "0", "9.0", "S", "M", "%", "1"});
        f.Launch(id++, name);
        break;
      case 25:  // a unit first seen late in the file
        f.Launch(id++, name, k > 200 ? "furlong" : "%");
        break;
      case 29:  // a name that is not UTF-8, late in the file
        f.Launch(id++, k > 250 ? "bad\xe9name" : name);
        break;
      case 33:  // the same ID twice in a row: one result
        f.Launch(id, name);
        f.Launch(id, name);
        ++id;
        break;
      default:
        f.Launch(id++, name);
    }
  }
  if (truncated) {
    f.Raw(
        "\"999\",\"123\",\"python3\",\"host\",\"kernel_end\",\"1\",\"7\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\","
        "\"S\",\"\",\"\",\"\",\"R\",\"OPT\",\"unterminated\n description");
  }
  return f.Write(fmt::format("hostile_{}_{}.csv", crlf ? "crlf" : "lf", truncated ? "cut" : "whole"));
}

constexpr std::uint64_t kPartSizes[] = {97, 256, 1000, 4096, 20000, 1 << 16};

void ExpectSameAsOneReader(const fs::path& file, PartsOutcome& sum) {
  const Imported one = Import(file, std::nullopt);
  ASSERT_FALSE(one.launches.empty());
  for (const std::uint64_t bytes : kPartSizes) {
    SCOPED_TRACE(fmt::format("{} in parts of {} bytes", file.filename().string(), bytes));
    const Imported parts = Import(file, PartsPolicy{1, bytes});
    EXPECT_GE(parts.outcome.parts, 2u);
    EXPECT_EQ(parts.launches, one.launches);
    EXPECT_EQ(parts.diagnostics, one.diagnostics);
    EXPECT_TRUE(parts.keys_consistent);
    sum.parts += parts.outcome.parts;
    sum.handed_over += parts.outcome.handed_over;
    sum.read_again += parts.outcome.read_again;
    sum.one_thread_from_cut = sum.one_thread_from_cut || parts.outcome.one_thread_from_cut;
    sum.resumed_inside_record = sum.resumed_inside_record || parts.outcome.resumed_inside_record;
  }
}

TEST(NcuDetailsParts, HostileFilesGiveTheRecordsAndDiagnosticsOfOneReader) {
  PartsOutcome sum;
  for (const bool crlf : {false, true}) {
    for (const bool truncated : {false, true}) ExpectSameAsOneReader(HostileFile(crlf, truncated), sum);
  }
  // Every path was taken somewhere: hand-overs, parts read again for their
  // diagnostics, cuts inside a record, cuts that failed their check.
  EXPECT_GT(sum.handed_over, 0u);
  EXPECT_GT(sum.read_again, 0u);
  EXPECT_TRUE(sum.resumed_inside_record);
  EXPECT_TRUE(sum.one_thread_from_cut);
}

TEST(NcuDetailsParts, ACleanFileIsHandedOverPartByPart) {
  PartsFile f(false);
  for (int id = 0; id < 300; ++id)
    f.Launch(id, fmt::format("k{}", id % 5), "%", id % 10 == 0 ? "a rule, with a comma" : "");
  const fs::path file = f.Write("clean.csv");
  const Imported one = Import(file, std::nullopt);
  const Imported parts = Import(file, PartsPolicy{1, 4096});
  EXPECT_EQ(parts.launches, one.launches);
  EXPECT_EQ(parts.diagnostics, one.diagnostics);
  ASSERT_GE(parts.outcome.parts, 10u);
  EXPECT_EQ(parts.outcome.handed_over, parts.outcome.parts / 2);  // every odd part
  EXPECT_EQ(parts.outcome.read_again, 0u);
  EXPECT_FALSE(parts.outcome.one_thread_from_cut);
}

TEST(NcuDetailsParts, NotForSmallFilesOrWithoutAPolicy) {
  PartsFile f(false);
  for (int id = 0; id < 20; ++id) f.Launch(id, "k");
  const fs::path file = f.Write("small.csv");
  EXPECT_EQ(Import(file, PartsPolicy{1 << 20, 4096}).outcome.parts, 0u);  // below min_bytes: one reader
  EXPECT_EQ(Import(file, PartsPolicy{}).outcome.parts, 0u);
}

TEST(NcuDetailsParts, FindResultStartFindsTheFirstLineOfAnotherId) {
  const std::string text = "\"3\",\"a\"\n\"3\",\"b\"\n\"3\",\"c\nstill c\"\n\"4\",\"d\"\n\"4\",\"e\"\n5,\"f\"\n";
  const fs::path path = fs::path(::testing::TempDir()) / "find.csv";
  std::ofstream(path, std::ios::binary) << text;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  const std::uint64_t size = text.size();
  EXPECT_EQ(ingest::ncu::FindResultStart(fd, 0, size), text.find("\"4\""));
  EXPECT_EQ(ingest::ncu::FindResultStart(fd, text.find("\"4\""), size), text.find("5,"));
  EXPECT_EQ(ingest::ncu::FindResultStart(fd, text.find("5,") - 1, size), std::nullopt);  // no line after it
  ::close(fd);
}

TEST(NcuDetailsParts, SharedFixtureInPartsAsInOne) {
  const fs::path fixture = fs::path(LLMPO_SOURCE_DIR) / "../shared/fixtures/ncu-csv/sglang-h200/details.csv";
  if (!fs::exists(fixture)) GTEST_SKIP() << "../shared/fixtures is absent";
  PartsOutcome sum;
  ExpectSameAsOneReader(fixture, sum);
  EXPECT_GT(sum.handed_over, 0u);
}

// Our own capture on an H200 (tests/fixtures/h200/ncu_parts_tiny_llm): ncu
// 2025.3.1's details page of all 205 launches of tiny_llm, 11,264 rows,
// kept gzipped; inflated here into the test's scratch folder.
TEST(NcuDetailsParts, H200CaptureInPartsAsInOne) {
  const fs::path gz =
      fs::path(LLMPO_SOURCE_DIR) / "tests/fixtures/h200/ncu_parts_tiny_llm/tiny_llm_basic_details_base.csv.gz";
  std::string why;
  auto source = ingest::kineto::OpenFileSource(gz.string(), why);
  ASSERT_NE(source, nullptr) << why;
  const fs::path page = fs::path(::testing::TempDir()) / "h200_tiny_llm_details.csv";
  {
    std::ofstream out(page, std::ios::binary);
    std::string buffer(1 << 16, '\0');
    while (const std::size_t got = source->Read(buffer.data(), buffer.size())) out.write(buffer.data(), got);
    ASSERT_TRUE(source->error().empty()) << source->error();
  }
  const Imported one = Import(page, std::nullopt);
  ASSERT_EQ(one.launches.size(), 205u);  // 3 forward passes x (8 layers x 8 + 4) + the warm-up probe
  for (const std::uint64_t bytes : {std::uint64_t{4096}, std::uint64_t{1} << 16, std::uint64_t{1} << 20}) {
    SCOPED_TRACE(fmt::format("parts of {} bytes", bytes));
    const Imported parts = Import(page, PartsPolicy{1, bytes});
    EXPECT_GE(parts.outcome.parts, 4u);
    EXPECT_GT(parts.outcome.handed_over, 0u);
    EXPECT_FALSE(parts.outcome.one_thread_from_cut);  // ncu's own page: every cut holds
    EXPECT_EQ(parts.launches, one.launches);
    EXPECT_EQ(parts.diagnostics, one.diagnostics);
  }
}

}  // namespace
}  // namespace llmpo
