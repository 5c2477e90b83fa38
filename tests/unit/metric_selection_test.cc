#include "src/analysis/metric_selection.h"

#include <gtest/gtest.h>

namespace llmpo::analysis {
namespace {

MetricAggregate Metric(const char* section, const char* name) {
  MetricAggregate m;
  m.section = section;
  m.name = name;
  return m;
}

TEST(MetricSelection, SectionsMatchByIdentifierOrDisplayName) {
  const MetricSelection selection{{"SpeedOfLight"}, {}};
  EXPECT_TRUE(selection.Shows(Metric("GPU Speed Of Light Throughput", "Duration")));
  EXPECT_TRUE(selection.Shows(Metric("SpeedOfLight", "Duration")));
  EXPECT_FALSE(selection.Shows(Metric("Occupancy", "Achieved Occupancy")));
}

// --print-details all: chart items carry "<section> / <item label>".
// A metric asked for by its raw name is in the data when a details page
// prints it under its label ("DRAM Throughput", "Duration"), or under the
// Speed Of Light section's name for DRAM throughput: no "not in the data".
TEST(MetricSelection, RawNamesMatchTheirDetailsPageLabels) {
  const MetricSelection selection{{}, {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "gpu__time_duration.sum"}};
  const MetricAggregate dram = Metric("GPU Speed Of Light Throughput", "DRAM Throughput");
  const MetricAggregate duration = Metric("GPU Speed Of Light Throughput", "Duration");
  EXPECT_TRUE(selection.Shows(dram));
  EXPECT_TRUE(selection.Shows(duration));
  EXPECT_TRUE(selection.Check({&dram, &duration}).empty());
  const MetricAggregate sol = Metric("SpeedOfLight", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed");
  EXPECT_TRUE(selection.Shows(sol));
  const auto notes = selection.Check({&sol});
  ASSERT_EQ(notes.size(), 1u);  // the duration is missing, DRAM is not
  EXPECT_NE(notes[0].find("gpu__time_duration.sum"), std::string::npos) << notes[0];
  EXPECT_FALSE(selection.Shows(Metric("Occupancy", "Achieved Occupancy")));
}

TEST(MetricSelection, ChartItemsBelongToTheirSection) {
  const MetricSelection selection{{"SpeedOfLight_RooflineChart"}, {}};
  const MetricAggregate item = Metric("GPU Speed Of Light Roofline Chart / Single Precision Roofline", "SM Frequency");
  EXPECT_TRUE(selection.Shows(item));
  EXPECT_FALSE(selection.Shows(Metric("GPU Speed Of Light Throughput / Single Precision Roofline", "SM Frequency")));
  EXPECT_TRUE(selection.Check({&item}).empty());  // the section is in the data
  const MetricAggregate other = Metric("Occupancy", "Achieved Occupancy");
  EXPECT_EQ(selection.Check({&other}).size(), 1u);
}

TEST(MetricSelection, BaseSectionDropsTheChartItem) {
  EXPECT_EQ(model::BaseSection("GPU Speed Of Light Roofline Chart / Double Precision Roofline"),
            "GPU Speed Of Light Roofline Chart");
  EXPECT_EQ(model::BaseSection("Occupancy"), "Occupancy");
}

}  // namespace
}  // namespace llmpo::analysis
