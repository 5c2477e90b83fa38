// The details importer remembers facts per metric position (the unit's
// scale, whether the name is a duration) from one launch to the next: a
// position whose unit or name changes must still read as written.
#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include "src/core/units.h"
#include "src/ingest/importer.h"

namespace llmpo {
namespace {

struct Collect : model::RecordSink {
  std::vector<model::LaunchRecord> launches;
  void OnLaunch(const model::LaunchRecord& l) override { launches.push_back(l); }
  void OnKernelSummary(const model::KernelSummaryRow&) override {}
};

std::vector<model::LaunchRecord> Import(const std::string& text) {
  std::istringstream in(text);
  Collect sink;
  model::Diagnostics d;
  ingest::ImportContext ctx{"d.csv", sink, d};
  EXPECT_TRUE(ingest::ImportNcuCsv(in, ctx).ok());
  return sink.launches;
}

TEST(NcuDetailsPositions, AUnitOrNameThatChangesAtAPositionIsReadAsWritten) {
  const auto launches = Import(
      "\"ID\",\"Kernel Name\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
      "\"0\",\"k\",\"S\",\"Duration\",\"usecond\",\"2\"\n"
      "\"0\",\"k\",\"S\",\"DRAM Throughput\",\"%\",\"10\"\n"
      "\"1\",\"k\",\"S\",\"Duration\",\"msecond\",\"1\"\n"
      "\"1\",\"k\",\"S\",\"DRAM Throughput\",\"%\",\"20\"\n"
      "\"2\",\"k\",\"S\",\"Duration\",\"usecond\",\"3\"\n"
      "\"2\",\"k\",\"S\",\"gpu__time_duration.sum\",\"nsecond\",\"3,500\"\n"
      "\"3\",\"k\",\"S\",\"Elapsed Cycles\",\"cycle\",\"7\"\n"
      "\"3\",\"k\",\"S\",\"DRAM Throughput\",\"Gbyte/second\",\"1.5\"\n");
  ASSERT_EQ(launches.size(), 4u);
  EXPECT_EQ(launches[0].duration_ns, 2000.0);
  EXPECT_EQ(launches[1].duration_ns, 1e6);
  EXPECT_EQ(launches[1].metrics[0].value.unit, "ns");
  EXPECT_EQ(launches[1].metrics[0].value.value, 1e6);
  EXPECT_EQ(launches[2].duration_ns, 3500.0);  // the raw metric wins over "Duration"
  EXPECT_FALSE(launches[3].duration_ns.has_value());  // no duration name any more at position 0
  EXPECT_EQ(launches[3].metrics[0].value.value, 7.0);
  EXPECT_EQ(launches[3].metrics[0].value.dimension, Dimension::kNone);
  EXPECT_EQ(launches[3].metrics[1].value.unit, "byte/s");
  EXPECT_EQ(launches[3].metrics[1].value.value, 1.5e9);
}

TEST(NcuDetailsPositions, ParseNumberIntoMatchesParseValueInto) {
  const std::pair<const char*, const char*> cases[] = {
      {"1,772,899", "cycle"}, {"3.19", "Ghz"},  {"n/a", "usecond"}, {"", "%"},        {"nan", "ns"},
      {"1e308", "Tbyte"},     {"2.5", "msecond"}, {"fast", ""},     {" 12 ", "byte"}, {"27.595.520", "inst"}};
  for (const auto& [value, unit] : cases) {
    ParsedValue full;
    ParseValueInto(full, value, unit);
    ParsedValue reused;
    ParseValueInto(reused, "1", unit);  // the unit fields of an earlier value at the same position
    ParseNumberInto(reused, value, LookupUnit(unit).scale);
    EXPECT_EQ(reused.value, full.value) << value << " " << unit;
    EXPECT_EQ(reused.unparsable, full.unparsable) << value;
    EXPECT_EQ(reused.non_finite, full.non_finite) << value;
    EXPECT_EQ(reused.raw_value, full.raw_value);
    EXPECT_EQ(reused.unit, full.unit);
  }
}

}  // namespace
}  // namespace llmpo
