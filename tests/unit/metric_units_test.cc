// The metric unit catalogue (core/metric_units.h): ncu's naming rules on
// hand-picked names, and every metric of real raw pages, whose units row
// says what ncu itself printed.
#include "src/core/metric_units.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "src/core/csv_reader.h"
#include "src/core/units.h"

namespace llmpo {
namespace {

namespace fs = std::filesystem;

TEST(MetricUnits, NamingRules) {
  EXPECT_EQ(BaseUnitOfMetric("gpu__time_duration.sum"), "ns");
  EXPECT_EQ(BaseUnitOfMetric("sm__throughput.avg.pct_of_peak_sustained_elapsed"), "%");
  EXPECT_EQ(BaseUnitOfMetric("breakdown:sm__throughput.avg.pct_of_peak_sustained_elapsed"), "%");
  EXPECT_EQ(BaseUnitOfMetric("dram__bytes.sum.per_second"), "byte/s");
  EXPECT_EQ(BaseUnitOfMetric("dram__bytes.sum.peak_sustained"), "byte/cycle");
  EXPECT_EQ(BaseUnitOfMetric("dram__cycles_elapsed.avg.per_second"), "hz");
  EXPECT_EQ(BaseUnitOfMetric("SM.TriageA.sm__cycles_active.avg"), "cycle");
  EXPECT_EQ(BaseUnitOfMetric("launch__registers_per_thread"), "register/thread");
  EXPECT_EQ(BaseUnitOfMetric("launch__shared_mem_per_block"), "byte/block");
  // Named without "__": no naming rule, each from the table (ncu prints these units, 2022.3 to 2026).
  EXPECT_EQ(BaseUnitOfMetric("inst_executed"), "inst");
  EXPECT_EQ(BaseUnitOfMetric("thread_inst_executed_true"), "inst");
  EXPECT_EQ(BaseUnitOfMetric("memory_l2_theoretical_sectors_global"), "sectors");
  // Not placed by any rule or table: unknown, never guessed.
  EXPECT_EQ(BaseUnitOfMetric("derived_tempMetric0"), std::nullopt);
  EXPECT_EQ(BaseUnitOfMetric("no_such__counter.sum"), std::nullopt);
  EXPECT_EQ(BaseUnitOfMetric("gpu__time_duration.sum.no_such_submetric"), std::nullopt);
}

// For every column of a raw page: the catalogue's base unit and the unit
// ncu printed measure the same kind of thing (a time, bytes, a rate...).
void CheckAgainstUnitsRow(const fs::path& file, double min_known_fraction) {
  std::ifstream in(file, std::ios::binary);
  CsvReader reader(in);
  std::vector<std::string_view> fields;
  ASSERT_TRUE(reader.Next(fields));
  const std::vector<std::string> header(fields.begin(), fields.end());
  ASSERT_TRUE(reader.Next(fields));
  ASSERT_EQ(fields.size(), header.size());
  std::size_t metrics = 0, known = 0;
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i].find("__") == std::string::npos) continue;
    ++metrics;
    const auto base = BaseUnitOfMetric(header[i]);
    if (!base) continue;
    ++known;
    const UnitInfo printed = LookupUnit(fields[i]);
    const UnitInfo ours = LookupUnit(*base);
    EXPECT_EQ(ours.dimension, printed.dimension) << header[i] << ": ours '" << *base << "', ncu '" << fields[i] << "'";
  }
  EXPECT_GT(metrics, 0u);
  EXPECT_GE(static_cast<double>(known), min_known_fraction * static_cast<double>(metrics)) << known << "/" << metrics;
}

TEST(MetricUnits, AgreeWithTheUnitsRowOfTheSglangRawPage) {
  const fs::path file =
      fs::path(LLMPO_SOURCE_DIR) / ".." / "shared" / "fixtures" / "ncu-csv" / "sglang-h200" / "raw.csv";
  if (!fs::exists(file)) GTEST_SKIP() << "no shared fixtures at " << file;
  CheckAgainstUnitsRow(file, 0.95);
}

// A different run (RTX 5090, ncu 2025.1), not used to build the table.
TEST(MetricUnits, AgreeWithAnotherRunsMetricUnits) {
  const fs::path file = fs::path(LLMPO_SOURCE_DIR) / ".." / "shared" / "fixtures" / "ncu-csv" / "llm-perf-opt-rtx5090" /
                        "ncu.metrics.csv";
  if (!fs::exists(file)) GTEST_SKIP() << "no shared fixtures at " << file;
  std::ifstream in(file, std::ios::binary);
  CsvReader reader(in);
  std::vector<std::string_view> fields;
  ASSERT_TRUE(reader.Next(fields));
  std::size_t name_col = 0, unit_col = 0;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (fields[i] == "Metric Name") name_col = i;
    if (fields[i] == "Metric Unit") unit_col = i;
  }
  ASSERT_GT(name_col, 0u);
  std::size_t checked = 0;
  while (reader.Next(fields)) {
    if (fields.size() <= std::max(name_col, unit_col)) continue;
    const std::string name(fields[name_col]);
    if (name.find("__") == std::string::npos) continue;
    const auto base = BaseUnitOfMetric(name);
    if (!base) continue;
    EXPECT_EQ(LookupUnit(*base).dimension, LookupUnit(fields[unit_col]).dimension) << name;
    ++checked;
  }
  EXPECT_GE(checked, 5u);
}

}  // namespace
}  // namespace llmpo
