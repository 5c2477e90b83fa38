// Names and fields from a hostile or damaged input: region folders stay
// short, Markdown tables and code blocks keep their lines, diagnostics quote
// a bounded piece of a huge field, and importers keep NaN, infinities and
// negative times out of every sum.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "src/analysis/region_combine.h"
#include "src/analysis/region_tree.h"
#include "src/core/assign_if_changed.h"
#include "src/core/utf8.h"
#include "src/ingest/importer.h"
#include "src/model/diagnostics.h"
#include "src/report/regions_report.h"
#include "src/report/text_format.h"

namespace llmpo {
namespace {

model::LaunchRecord Launch(std::vector<std::string> stack, double ns = 10) {
  model::LaunchRecord l;
  l.kernel_name = "k";
  l.duration_ns = ns;
  l.process.name = "p";
  l.device = "0";
  l.has_nvtx = true;
  for (auto& name : stack) l.nvtx_stack.push_back(model::NvtxFrame{"", std::move(name), std::nullopt});
  return l;
}

TEST(RegionFolders, AtMost80CharactersWithTheUniquenessSuffix) {
  analysis::KernelFilter filter;
  model::Diagnostics d;
  analysis::RegionBuilder builder("in", filter, d);
  // Twelve names that sanitize to the same 80 characters.
  const std::string base(120, 'r');
  for (int i = 0; i < 12; ++i) builder.OnLaunch(Launch({base + std::string(i + 1, '!')}));
  builder.Finish();
  const auto regions = analysis::CombineRegions({{&builder, model::SourceFamily::kNcu}});
  const auto report = report::BuildRegionsReport(regions, {}, analysis::MetricSelection{}, true, d);
  ASSERT_TRUE(report.aggregate.has_value());
  ASSERT_EQ(report.aggregate->size(), 12u);
  std::set<std::string> folders;
  for (const auto& e : *report.aggregate) {
    EXPECT_LE(e.folder.size(), report::kMaxFolderName) << e.folder;
    folders.insert(e.folder);
  }
  EXPECT_EQ(folders.size(), 12u);  // still unique
  EXPECT_TRUE(folders.count(std::string(80, 'r')));
  EXPECT_TRUE(folders.count(std::string(78, 'r') + "-2"));
  EXPECT_TRUE(folders.count(std::string(77, 'r') + "-12"));
}

TEST(RegionFolders, OnlyTheLargestRegionsGetOneBeyondTheLimit) {
  analysis::KernelFilter filter;
  model::Diagnostics d;
  analysis::RegionBuilder builder("in", filter, d);
  // Five top-level regions; r3 has the most GPU kernel time, then r1.
  const double ns[] = {10, 40, 20, 90, 5};
  for (int i = 0; i < 5; ++i) builder.OnLaunch(Launch({"r" + std::to_string(i)}, ns[i]));
  builder.Finish();
  const auto regions = analysis::CombineRegions({{&builder, model::SourceFamily::kNcu}});
  auto report = report::BuildRegionsReport(regions, {}, analysis::MetricSelection{}, true, d);
  report::LimitRegionFolders(report, 2);
  std::set<std::string> with_folder;
  for (const auto& e : *report.aggregate) {
    if (!e.folder.empty()) with_folder.insert(e.region->label);
  }
  EXPECT_EQ(with_folder, (std::set<std::string>{"r3", "r1"}));
  EXPECT_EQ(report.aggregate->size(), 5u);  // every region is still reported
  ASSERT_FALSE(report.notes.empty());
  EXPECT_NE(report.notes.back().find("2 of 5 regions have one, those with the most GPU kernel time"), std::string::npos)
      << report.notes.back();

  auto unlimited = report::BuildRegionsReport(regions, {}, analysis::MetricSelection{}, true, d);
  const auto notes_before = unlimited.notes.size();
  report::LimitRegionFolders(unlimited, 5);
  for (const auto& e : *unlimited.aggregate) EXPECT_FALSE(e.folder.empty());
  EXPECT_EQ(unlimited.notes.size(), notes_before);
}

TEST(MdCell, LineBreaksNeverEndATableRow) {
  const std::string cell = report::MdCell("gemm\r\nkernel\nx\ry|z");
  EXPECT_EQ(cell.find_first_of("\r\n"), std::string::npos) << cell;
  EXPECT_NE(cell.find("\\|"), std::string::npos) << cell;
  EXPECT_EQ(report::OneLine("a\nb\r\nc"), "a b  c");
}

TEST(MdCell, ShortensOnACharacterBoundary) {
  // "é" is two bytes; a cut at byte 97 would split one.
  std::string text;
  for (int i = 0; i < 60; ++i) text += "\xc3\xa9";
  const std::string cell = report::MdCell(text, 100);
  EXPECT_LE(cell.size(), 100u);
  EXPECT_EQ(FirstInvalidUtf8(cell), std::nullopt) << cell;
  EXPECT_TRUE(cell.ends_with("..."));
}

TEST(MdPathCell, KeepsTheFirstPartAndTheLeafOfALongPath) {
  const std::string base = "ProfilerStep > ## sparse_data_dist ## > ## KJTListSplitsAwaitable wait() ## > ";
  const std::string a = base + "## KJTAllToAllSplitsAwaitable ## > nccl:all_to_all";
  const std::string b = base + "## KJTAllToAllSplitsAwaitable ## > ncclDevKernel_SendRecv";
  EXPECT_EQ(report::MdPathCell(a, 80), "ProfilerStep > ... > ## KJTAllToAllSplitsAwaitable ## > nccl:all_to_all");
  EXPECT_NE(report::MdPathCell(a, 80), report::MdPathCell(b, 80));  // MdCell would cut both alike
  EXPECT_EQ(report::MdCell(a, 80), report::MdCell(b, 80));
  // The last part alone fits: only it is kept after the gap.
  EXPECT_EQ(report::MdPathCell(a, 50), "ProfilerStep > ... > nccl:all_to_all");
  // Short paths and a path of one part are as MdCell writes them.
  EXPECT_EQ(report::MdPathCell("a > b|c", 80), "a > b\\|c");
  EXPECT_EQ(report::MdPathCell(std::string(120, 'x'), 100), report::MdCell(std::string(120, 'x'), 100));
  // A leaf too long to fit beside the first part: cut as text.
  const std::string long_leaf = "step > " + std::string(120, 'y');
  EXPECT_EQ(report::MdPathCell(long_leaf, 100), report::MdCell(long_leaf, 100));
  EXPECT_LE(report::MdPathCell(a, 40).size(), 40u);
}

TEST(Diagnostics, ExamplesQuoteABoundedPieceOfAField) {
  const std::string huge(1 << 20, '7');
  const std::string excerpt = model::Excerpt(huge);
  EXPECT_EQ(excerpt, std::string(200, '7') + "\xe2\x80\xa6");
  EXPECT_EQ(model::Excerpt("short"), "short");
  // Never inside a UTF-8 character.
  std::string accents;
  for (int i = 0; i < 150; ++i) accents += "\xc3\xa9";
  EXPECT_EQ(FirstInvalidUtf8(model::Excerpt(accents, 201)), std::nullopt);
  model::Diagnostics d;
  d.Add(model::Diag::invalid_utf8, "f.csv:3: " + huge);
  EXPECT_LE(d.entries().at("invalid_utf8").first_example.size(), model::kMaxExampleBytes + 3);
}

// A sink that keeps what an importer pushed.
struct Collect : model::RecordSink {
  std::vector<model::LaunchRecord> launches;
  std::vector<model::KernelSummaryRow> summaries;
  std::vector<model::NvtxRange> ranges;
  void OnLaunch(const model::LaunchRecord& l) override { launches.push_back(l); }
  void OnKernelSummary(const model::KernelSummaryRow& r) override { summaries.push_back(r); }
  void OnNvtxRange(const model::NvtxRange& r) override { ranges.push_back(r); }
};

const model::DiagnosticEntry* Entry(const model::Diagnostics& d, const std::string& code) {
  auto it = d.entries().find(code);
  return it == d.entries().end() ? nullptr : &it->second;
}

TEST(NcuDetails, AHugeDamagedFieldIsQuotedByItsStart) {
  std::string csv =
      "\"ID\",\"Kernel Name\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
      "\"0\",\"k\",\"S\",\"gpu__time_duration.sum\",\"ns\",\"1,000\"\n"
      "\"0\",\"k\",\"S\",\"Damaged\",\"%\",\"";
  csv += std::string(4 << 20, '1') + "x\"\n";  // 4 MB of digits and a letter: not a number
  std::istringstream in(csv);
  Collect sink;
  model::Diagnostics d;
  ingest::ImportContext ctx{"d.csv", sink, d};
  ASSERT_TRUE(ingest::ImportNcuCsv(in, ctx).ok());
  const auto* e = Entry(d, "text_value");
  ASSERT_NE(e, nullptr);
  EXPECT_LT(e->first_example.size(), 400u);
  EXPECT_TRUE(e->first_example.ends_with("\xe2\x80\xa6' is not a number; not aggregated")) << e->first_example;
}

TEST(NcuDetails, NonFiniteAndNegativeDurationsAreDataLoss) {
  std::istringstream in(
      "\"ID\",\"Kernel Name\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
      "\"0\",\"a\",\"S\",\"gpu__time_duration.sum\",\"ns\",\"nan\"\n"
      "\"1\",\"b\",\"S\",\"gpu__time_duration.sum\",\"ns\",\"-1,000\"\n"
      "\"2\",\"c\",\"S\",\"gpu__time_duration.sum\",\"second\",\"1e300\"\n"
      "\"3\",\"d\",\"S\",\"gpu__time_duration.sum\",\"ns\",\"2,000\"\n");
  Collect sink;
  model::Diagnostics d;
  ingest::ImportContext ctx{"d.csv", sink, d};
  ASSERT_TRUE(ingest::ImportNcuCsv(in, ctx).ok());
  ASSERT_EQ(sink.launches.size(), 4u);
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(sink.launches[i].duration_ns.has_value()) << i;
  EXPECT_EQ(sink.launches[3].duration_ns, 2000.0);
  ASSERT_NE(Entry(d, "non_finite_number"), nullptr);
  EXPECT_EQ(Entry(d, "non_finite_number")->severity, model::Severity::kDataLoss);
  EXPECT_EQ(Entry(d, "non_finite_number")->count, 2u);
  EXPECT_NE(Entry(d, "non_finite_number")->first_example.find("d.csv:2:"), std::string::npos);
  ASSERT_NE(Entry(d, "negative_duration"), nullptr);
  EXPECT_EQ(Entry(d, "negative_duration")->severity, model::Severity::kDataLoss);
}

TEST(NsysStats, NonFiniteAndNegativeTotalsNeverReachASum) {
  std::istringstream in(
      "\"Time (%)\",\"Total Time (ns)\",\"Instances\",\"Avg (ns)\",\"Min (ns)\",\"Max (ns)\",\"Name\"\n"
      "\"50\",\"3000\",\"3\",\"1000\",\"900\",\"1100\",\"good\"\n"
      "\"20\",\"nan\",\"2\",\"1\",\"1\",\"1\",\"nan_total\"\n"
      "\"10\",\"inf\",\"2\",\"1\",\"1\",\"1\",\"inf_total\"\n"
      "\"10\",\"-5000\",\"1\",\"1\",\"1\",\"1\",\"negative_total\"\n"
      "\"5\",\"1000\",\"1\",\"1000\",\"-3\",\"NaN\",\"bad_min_max\"\n"
      "\"5\",\"1000\",\"-infinity\",\"1\",\"1\",\"1\",\"bad_instances\"\n");
  Collect sink;
  model::Diagnostics d;
  ingest::ImportContext ctx{"s.csv", sink, d};
  ASSERT_TRUE(ingest::ImportNsysStatsCsv(in, ctx).ok());
  ASSERT_EQ(sink.summaries.size(), 2u);
  EXPECT_EQ(sink.summaries[0].kernel_name, "good");
  EXPECT_EQ(sink.summaries[1].kernel_name, "bad_min_max");
  EXPECT_EQ(sink.summaries[1].total_ns, 1000.0);
  EXPECT_FALSE(sink.summaries[1].min_ns.has_value());
  EXPECT_FALSE(sink.summaries[1].max_ns.has_value());
  const auto* rows = Entry(d, "bad_kernel_row");
  ASSERT_NE(rows, nullptr);
  EXPECT_EQ(rows->severity, model::Severity::kDataLoss);
  EXPECT_EQ(rows->count, 4u);
  EXPECT_NE(rows->first_example.find("s.csv:3: Total Time (ns) 'nan' is not a finite number"), std::string::npos)
      << rows->first_example;
  const auto* values = Entry(d, "bad_value");
  ASSERT_NE(values, nullptr);
  EXPECT_EQ(values->count, 2u);
  EXPECT_EQ(values->severity, model::Severity::kDataLoss);
}

TEST(NcuDetails, InvalidUtf8NamesAreRepairedAndCounted) {
  std::istringstream in(
      "\"ID\",\"Process ID\",\"Process Name\",\"Kernel Name\",\"Device\",\"Section Name\",\"Metric Name\","
      "\"Metric Unit\",\"Metric Value\"\n"
      "\"0\",\"1\",\"pyth\xf6n\",\"caf\xe9_kernel\",\"0\",\"S\",\"gpu__time_duration.sum\",\"ns\",\"1\"\n"
      "\"1\",\"1\",\"python\",\"plain\",\"0\",\"S\",\"gpu__time_duration.sum\",\"ns\",\"1\"\n");
  Collect sink;
  model::Diagnostics d;
  ingest::ImportContext ctx{"l.csv", sink, d};
  ASSERT_TRUE(ingest::ImportNcuCsv(in, ctx).ok());
  ASSERT_EQ(sink.launches.size(), 2u);
  EXPECT_EQ(sink.launches[0].kernel_name, "caf\xef\xbf\xbd_kernel");
  EXPECT_EQ(sink.launches[0].process.Label(), "pyth\xef\xbf\xbdn (1)");
  EXPECT_EQ(sink.launches[1].kernel_name, "plain");
  const auto* e = Entry(d, "invalid_utf8");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->count, 1u);
  EXPECT_EQ(e->severity, model::Severity::kWarning);
  EXPECT_NE(e->first_example.find("2 byte(s)"), std::string::npos) << e->first_example;
}

TEST(AssignIfChanged, EmptyTextComparesWithoutMemcmpOnNull) {
  std::string to;
  EXPECT_FALSE(AssignIfChanged(to, std::string_view()));  // data() is null, size 0
  EXPECT_TRUE(AssignIfChanged(to, "x"));
  EXPECT_FALSE(AssignIfChanged(to, "x"));
  EXPECT_TRUE(AssignIfChanged(to, std::string_view()));
  EXPECT_EQ(to, "");
}

}  // namespace
}  // namespace llmpo
