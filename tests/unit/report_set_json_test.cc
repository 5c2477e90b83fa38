// report_set.json: a report set written and read back is the same set. For
// every file of ../shared/fixtures (skipped when absent), a few inputs
// imported together and the project's own pairing inputs, the set is built
// as an import builds it, serialised, read back and serialised again (the
// same bytes), and every row of the output table is rendered from both sets
// (the region folder too) and compared byte for byte. Then the errors a
// damaged file gets.
#include "src/report/report_set_json.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "src/core/utf8.h"
#include "src/pipeline/collectors.h"
#include "src/pipeline/outputs.h"
#include "src/report/json_writer.h"
#include "tests/unit/import_for_test.h"
#include "tests/unit/temp_dir.h"

namespace llmpo::report {
namespace {

namespace fs = std::filesystem;
using Files = std::map<std::string, std::string>;  // relative path -> content

fs::path SharedFixtures() { return fs::path(LLMPO_SOURCE_DIR) / ".." / "shared" / "fixtures"; }
fs::path Handmade(const char* name) { return fs::path(LLMPO_SOURCE_DIR) / "tests" / "fixtures" / "handmade" / name; }

std::vector<fs::path> FilesUnder(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string Read(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A run folder's context with every member set, so the summaries are
// written and the run context is carried through.
RunContext FullContext() {
  RunContext run;
  run.run_name = "2024-01-01_00-00-00";
  run.workload = {"python3", "serve.py", "--tokens", "16"};
  run.gpu = "NVIDIA H100";
  run.steps = {
      {"nsys", "ok", "", 0}, {"ncu", "failed", "exit 9", 9}, {"export", "skipped", "ncu failed", std::nullopt}};
  run.region_flops = {{"forward", 1e12}, {"absent/region", 2e9}};
  run.peak_tflops = 989.0;
  run.region_bytes = {{"forward", 4e9}};
  run.tokens_per_step = 4;
  return run;
}

using Built = testing::ImportedSet;

// The set RunImport builds from `inputs` (src/pipeline/import_job.cc).
Built BuildSet(const std::vector<fs::path>& inputs, const fs::path& scratch, bool run_folder) {
  ReportOptions report_options;
  report_options.max_folders = 20;  // some regions without a folder
  if (run_folder) report_options.run_folder = FullContext();
  return testing::ImportForTest(inputs, scratch, report_options);
}

// Every row of the output table rendered from `set`: files by their path,
// a folder row's files under it.
Files Render(const ReportSet& set) {
  Files files;
  for (const pipeline::OutputRow& row : pipeline::OutputTable()) {
    if (!row.when(set)) continue;
    const std::string path = row.path(set);
    if (row.write != nullptr) {
      std::ostringstream out;
      row.write(set, out);
      files[path] = out.str();
      continue;
    }
    testing::TempDir dir;
    std::vector<std::string> written;
    const Status status = row.write_folder(set, dir.path(), written);
    EXPECT_TRUE(status.ok()) << status.error().Render();
    for (const auto& file : FilesUnder(dir.path())) {
      files[path + "/" + fs::relative(file, dir.path()).string()] = Read(file);
    }
  }
  return files;
}

// Equal, or where the first difference is (the files are large).
::testing::AssertionResult SameText(const std::string& a, const std::string& b) {
  if (a == b) return ::testing::AssertionSuccess();
  std::size_t at = 0;
  while (at < a.size() && at < b.size() && a[at] == b[at]) ++at;
  const std::size_t from = at > 200 ? at - 200 : 0;
  return ::testing::AssertionFailure() << "sizes " << a.size() << " and " << b.size() << ", first difference at byte "
                                       << at << ":\n--- first\n"
                                       << a.substr(from, 400) << "\n--- second\n"
                                       << b.substr(from, 400);
}

// Serialised, read back, serialised again: the same bytes; and every output
// of the read-back set equal to the original's, rendered after the
// original and its collectors are gone (the read-back set owns its regions).
// What the round trips covered: sets with each optional part.
struct Coverage {
  int sets = 0, regions = 0, combined = 0, breakdown = 0, timeline = 0, region_files = 0;
};
Coverage coverage;

void Count(const ReportSet& set, const Files& files) {
  ++coverage.sets;
  coverage.regions += set.regions ? 1 : 0;
  coverage.combined += set.combined ? 1 : 0;
  coverage.breakdown += set.gpu_breakdown ? 1 : 0;
  coverage.timeline += set.timeline ? 1 : 0;
  for (const auto& [path, content] : files) coverage.region_files += path.starts_with(set.regions_subdir + "/") ? 1 : 0;
}

void ExpectRoundTrip(const std::vector<fs::path>& inputs, bool run_folder = true) {
  testing::TempDir scratch;
  std::string json;
  Files expected;
  {
    const Built built = BuildSet(inputs, scratch.path(), run_folder);
    json = ReportSetJson(built.set);
    expected = Render(built.set);
    Count(built.set, expected);
  }
  // Written a member, an array element or a region entry at a time, the
  // text is still the whole document's pretty print, byte for byte.
  EXPECT_TRUE(SameText(json, JsonFileText(nlohmann::ordered_json::parse(json))));
  Result<ReportSet> back = ReadReportSetJson(json, "report_set.json");
  ASSERT_TRUE(back.ok()) << back.error().Render();
  EXPECT_EQ(back->trace, nullptr);
  EXPECT_TRUE(SameText(json, ReportSetJson(*back)));
  const Files actual = Render(*back);
  ASSERT_EQ(expected.size(), actual.size());
  // A name's bytes that are not UTF-8 are U+FFFD in the JSON (as in every
  // JSON output), so the Markdown, which prints them raw, shows U+FFFD
  // instead, and the page, which also orders by them, is not compared.
  bool names_not_utf8 = false;
  for (auto& [path, content] : expected) names_not_utf8 = ReplaceInvalidUtf8(content) > 0 || names_not_utf8;
  for (const auto& [path, content] : expected) {
    SCOPED_TRACE(path);
    const auto it = actual.find(path);
    ASSERT_NE(it, actual.end()) << "not written from the read-back set";
    if (names_not_utf8 && path.ends_with(".html")) continue;
    EXPECT_TRUE(SameText(content, it->second));
  }
  EXPECT_TRUE(expected.count("report_set.json"));
}

void ExpectEveryFileRoundTrips(const char* folder) {
  const fs::path dir = SharedFixtures() / folder;
  if (!fs::exists(dir)) GTEST_SKIP() << "no shared fixtures at " << dir;
  const auto files = FilesUnder(dir);
  ASSERT_FALSE(files.empty());
  coverage = {};
  for (const auto& file : files) {
    SCOPED_TRACE(file.string());
    ExpectRoundTrip({file});
  }
  std::cout << "[ round trip ] " << files.size() << " file(s) of " << folder << ": " << coverage.regions
            << " with regions (" << coverage.region_files << " region files), " << coverage.combined << " combined, "
            << coverage.breakdown << " GPU breakdown, " << coverage.timeline << " timeline\n";
}

TEST(ReportSetJson, EveryNcuRepFixtureRoundTrips) { ExpectEveryFileRoundTrips("ncu-rep"); }
TEST(ReportSetJson, EveryNcuCsvFixtureRoundTrips) { ExpectEveryFileRoundTrips("ncu-csv"); }
TEST(ReportSetJson, EveryNsysStatsFixtureRoundTrips) { ExpectEveryFileRoundTrips("nsys-stats"); }
TEST(ReportSetJson, EveryNsysSqliteFixtureRoundTrips) { ExpectEveryFileRoundTrips("nsys-sqlite"); }
TEST(ReportSetJson, EveryKinetoFixtureRoundTrips) { ExpectEveryFileRoundTrips("kineto"); }

// One run's nsys stats reports together: regions from the NVTX reports with
// the kernels of nvtx_kern_sum, runtime summaries and launch overhead.
TEST(ReportSetJson, AnNsysStatsFolderImportedTogetherRoundTrips) {
  const fs::path dir = SharedFixtures() / "nsys-stats" / "kiln-a6000";
  if (!fs::exists(dir)) GTEST_SKIP() << "no shared fixtures at " << dir;
  ExpectRoundTrip(FilesUnder(dir));
}

// A timeline and an ncu capture: kernels_combined (and its region kernels).
TEST(ReportSetJson, ATimelineWithNcuRoundTripsWithItsCombinedTable) {
  const fs::path sqlite = SharedFixtures() / "nsys-sqlite" / "cudaprogramming-2023.3-streamSimple.sqlite";
  const fs::path ncu = SharedFixtures() / "ncu-rep" / "cuda-mlp-inference-2024.2-full.ncu-rep";
  if (!fs::exists(sqlite) || !fs::exists(ncu)) GTEST_SKIP() << "no shared fixtures at " << SharedFixtures();
  testing::TempDir scratch;
  ASSERT_TRUE(BuildSet({sqlite, ncu}, scratch.path(), true).set.combined.has_value());
  ExpectRoundTrip({sqlite, ncu});
}

// The project's own inputs (always there): a Kineto trace paired launch by
// launch with an ncu page, and ranges of our tracer, without a run folder.
TEST(ReportSetJson, TheHandmadePairingInputsRoundTrip) {
  testing::TempDir scratch;
  const std::vector<fs::path> pair = {Handmade("kineto_pairing.json"), Handmade("ncu_for_kineto_pairing.csv")};
  const Built built = BuildSet(pair, scratch.path(), false);
  ASSERT_TRUE(built.set.combined.has_value());
  EXPECT_FALSE(built.set.combined->region_kernels.empty());
  ExpectRoundTrip(pair, false);
  ExpectRoundTrip({Handmade("kineto_rank3.json"), Handmade("ncu_for_kineto_rank3.csv")});
  ExpectRoundTrip({Handmade("llmpo_trace_gpu.tsv")});
  ExpectRoundTrip({Handmade("ncu_range_replay.csv")});
}

// Each of the project's own inputs alone: hostile and non-UTF-8 names,
// non-finite values, range replay, failed and refused inputs.
TEST(ReportSetJson, EveryHandmadeInputRoundTrips) {
  const auto files = FilesUnder(Handmade("README.md").parent_path());
  for (const auto& file : files) {
    if (file.extension() == ".md") continue;
    SCOPED_TRACE(file.string());
    ExpectRoundTrip({file});
  }
}

TEST(ReportSetJson, UnknownIsNullNeverZeroAndTimesStayInNs) {
  ReportSet set;
  analysis::KernelAggregate k;
  k.name = "k";
  k.calls = 2;
  k.total_ns = 1500;
  set.kernels.kernels.push_back(report::KernelRow{k, std::nullopt});
  const auto j = nlohmann::json::parse(ReportSetJson(set));
  const auto& kernel = j["kernels"]["kernels"][0];
  EXPECT_TRUE(kernel["min_ns"].is_null());
  EXPECT_TRUE(kernel["time_pct"].is_null());
  EXPECT_EQ(kernel["total_ns"], 1500.0);
  EXPECT_TRUE(j["regions"].is_null());
  EXPECT_EQ(j["schema_version"], kReportSetSchemaVersion);
  EXPECT_EQ(ReportSetJson(set).rfind("{\n  \"schema_version\"", 0), 0u);  // the first member
}

// report_set.json is streamed, not dumped from a document: the values
// whose spelling nlohmann decides (escapes, bad UTF-8, doubles, the
// extremes of integers, empty arrays, unknowns) come out as its dump(2)
// spells them.
TEST(ReportSetJson, StreamedValuesAreSpelledAsNlohmannSpellsThem) {
  ReportSet set;
  analysis::KernelAggregate k;
  k.name = "q\"uote \\ tab\t ctl\x01 bad\xff \xe5\x90\x8d";
  k.device = "";
  k.calls = std::numeric_limits<std::uint64_t>::max();
  k.total_ns = 3.0;
  k.min_ns = 0.1;
  k.max_ns = 1e300;
  k.median_ns = std::numeric_limits<double>::quiet_NaN();
  k.stddev_ns = -std::numeric_limits<double>::infinity();
  k.time_pct = 1e-7;
  k.sum_sq_dev_ns2 = std::nullopt;
  k.process.pid = -42;
  set.kernels.kernels.push_back(report::KernelRow{k, std::nullopt});
  const std::string json = ReportSetJson(set);
  EXPECT_TRUE(SameText(json, JsonFileText(nlohmann::ordered_json::parse(json))));
  for (const char* spelled : {"\"name\": \"q\\\"uote \\\\ tab\\t ctl\\u0001 bad\xef\xbf\xbd \xe5\x90\x8d\"",
                              "\"device\": \"\"", "\"calls\": 18446744073709551615", "\"total_ns\": 3.0",
                              "\"min_ns\": 0.1", "\"max_ns\": 1e+300", "\"median_ns\": null", "\"stddev_ns\": null",
                              "\"time_pct\": 1e-07", "\"sum_sq_dev_ns2\": null", "\"pid\": -42", "\"metrics\": []"}) {
    EXPECT_NE(json.find(spelled), std::string::npos) << "lacks " << spelled << " in\n" << json.substr(0, 3000);
  }
}

// A small set's JSON, changed by `edit`, read back.
Result<ReportSet> ReadEdited(const std::function<void(nlohmann::json&)>& edit) {
  ReportSet set;
  set.kernels.sources.push_back({"in.csv", "ncu-details-csv", std::nullopt, model::SourceFamily::kNcu});
  analysis::KernelAggregate k;
  k.name = "k";
  set.kernels.kernels.push_back(report::KernelRow{k, std::nullopt});
  auto j = nlohmann::json::parse(ReportSetJson(set));
  edit(j);
  return ReadReportSetJson(j.dump(), "out/report_set.json");
}

void ExpectInputError(const Result<ReportSet>& read, const std::vector<std::string>& parts) {
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().kind, ExitStatus::kInput);
  for (const auto& part : parts) {
    EXPECT_NE(read.error().message.find(part), std::string::npos) << read.error().message << "\nlacks: " << part;
  }
}

TEST(ReportSetJson, InvalidJsonIsAnInputErrorNamingTheFile) {
  ExpectInputError(ReadReportSetJson("{\"schema_version\": \"1.0.0\",", "run/report_set.json"),
                   {"run/report_set.json: not valid JSON: parse error at line 1, column 28"});
}

TEST(ReportSetJson, ANewerMajorVersionIsRefusedSayingWhichThisBuildReads) {
  ExpectInputError(ReadEdited([](auto& j) { j["schema_version"] = "2.0.0"; }),
                   {"out/report_set.json: schema_version 2.0.0 is newer than this build reads (major version 1"});
}

TEST(ReportSetJson, AMissingOrMalformedVersionIsRefused) {
  ExpectInputError(ReadEdited([](auto& j) { j.erase("schema_version"); }),
                   {"out/report_set.json: not a report set: no schema_version"});
  ExpectInputError(ReadEdited([](auto& j) { j["schema_version"] = "one"; }), {"\"one\" is not MAJOR.MINOR.PATCH"});
  ExpectInputError(ReadReportSetJson("[1]", "x.json"), {"x.json: not a report set: a JSON array, not an object"});
}

TEST(ReportSetJson, AMissingMemberIsNamedWithItsPlace) {
  ExpectInputError(ReadEdited([](auto& j) { j["kernels"]["kernels"][0].erase("calls"); }),
                   {"out/report_set.json: not a report set this build can read: member /kernels/kernels/0: key "
                    "'calls' not found"});
  ExpectInputError(ReadEdited([](auto& j) { j.erase("run"); }), {"key 'run' not found"});
}

TEST(ReportSetJson, AMistypedMemberIsNamedWithItsPlace) {
  ExpectInputError(ReadEdited([](auto& j) { j["kernels"]["kernels"][0]["calls"] = "two"; }),
                   {"member /kernels/kernels/0/calls: type must be number, but is string"});
  ExpectInputError(ReadEdited([](auto& j) { j["kernels"]["sources"][0]["family"] = "nsys"; }),
                   {"member /kernels/sources/0/family: \"nsys\" is not one of \"timeline\", \"ncu\", \"summary\""});
  ExpectInputError(ReadEdited([](auto& j) {
                     j["regions"] = {{"sources", nlohmann::json::array()}, {"scopes", 5}};
                   }),
                   {"member /regions: key 'aggregate' not found"});
  ExpectInputError(ReadEdited([](auto& j) {
                     j["regions"] = {{"sources", nlohmann::json::array()}, {"aggregate", nullptr}, {"scopes", 5}};
                   }),
                   {"member /regions/scopes: type must be array, but is number"});
}

TEST(ReportSetJson, AMinorVersionsNewMembersAreIgnored) {
  const auto read = ReadEdited([](auto& j) {
    j["schema_version"] = "1.7.0";
    j["kernels"]["a_member_of_1_7"] = true;
  });
  ASSERT_TRUE(read.ok()) << read.error().Render();
  EXPECT_EQ(read->kernels.kernels.at(0).name, "k");
}

// KernelRow lists KernelAggregate's members again: a member added to one
// list and not the other would be lost on the way back.
TEST(ReportSetJson, AKernelRowHoldsEveryMemberOfAKernelAggregate) {
  ReportSet set;
  analysis::KernelAggregate k;
  k.name = "k";
  set.kernels.kernels.push_back(report::KernelRow{k, std::nullopt});
  set.run.top_kernels.push_back(TopKernel{k, 0, "unknown", ""});
  const auto j = nlohmann::json::parse(ReportSetJson(set));
  std::set<std::string> row, aggregate;
  for (const auto& [key, value] : j["kernels"]["kernels"][0].items()) row.insert(key);
  for (const auto& [key, value] : j["run"]["top_kernels"][0]["kernel"].items()) aggregate.insert(key);
  row.erase("insight");
  EXPECT_EQ(row, aggregate);
}

TEST(ReportSetJson, AFileOfSchema10HasNoDevicesAndReadsAsNone) {
  const auto read = ReadEdited([](auto& j) {
    j["schema_version"] = "1.0.0";
    j["kernels"]["sources"][0].erase("devices");
  });
  ASSERT_TRUE(read.ok()) << read.error().Render();
  EXPECT_TRUE(read->kernels.sources.at(0).devices.empty());
}

TEST(ReportSetJson, ASourcesDevicesRoundTripWithUnknownFiguresNull) {
  ReportSet set;
  model::DeviceInfo gpu;
  gpu.id = "0";
  gpu.name = "Tesla T4";
  gpu.sm_count = 40;
  gpu.attributes = {{"device__attribute_multiprocessor_count", "40"}};
  set.kernels.sources.push_back({"a.ncu-rep", "ncu-report", std::nullopt, model::SourceFamily::kNcu, {gpu}});
  const std::string json = ReportSetJson(set);
  const auto j = nlohmann::json::parse(json);
  const auto& d = j["kernels"]["sources"][0]["devices"][0];
  EXPECT_EQ(d["sm_count"], 40);
  EXPECT_TRUE(d["l2_cache_bytes"].is_null());
  const auto back = ReadReportSetJson(json, "x.json");
  ASSERT_TRUE(back.ok()) << back.error().Render();
  const auto& got = back->kernels.sources.at(0).devices.at(0);
  EXPECT_EQ(got.name, "Tesla T4");
  EXPECT_EQ(got.sm_count, 40);
  EXPECT_FALSE(got.l2_cache_bytes.has_value());
  EXPECT_EQ(got.attributes, gpu.attributes);
}

}  // namespace
}  // namespace llmpo::report
