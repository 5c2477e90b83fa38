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
