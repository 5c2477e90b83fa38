// Names and fields from a hostile or damaged input: region folders stay
// short, Markdown tables and code blocks keep their lines, diagnostics quote
// a bounded piece of a huge field.
#include <gtest/gtest.h>

#include <set>

#include "src/analysis/region_tree.h"
#include "src/core/assign_if_changed.h"
#include "src/core/utf8.h"
#include "src/model/diagnostics.h"
#include "src/report/regions_report.h"
#include "src/report/text_format.h"

namespace llmpo {
namespace {

model::LaunchRecord Launch(std::vector<std::string> stack, double ns = 10) {
  model::LaunchRecord l;
  l.kernel_name = "k";
  l.duration_ns = ns;
  l.process = "p";
  l.device = "0";
  l.has_nvtx = true;
  for (auto& name : stack) l.nvtx_stack.push_back(model::NvtxFrame{"", std::move(name), std::nullopt});
  return l;
}

TEST(RegionFolders, AtMost80CharactersWithTheUniquenessSuffix) {
  analysis::KernelFilter filter;
  model::Diagnostics d;
  analysis::RegionBuilder builder(filter, d);
  // Twelve names that sanitize to the same 80 characters.
  const std::string base(120, 'r');
  for (int i = 0; i < 12; ++i) builder.OnLaunch(Launch({base + std::string(i + 1, '!')}));
  builder.Finish();
  const auto report = report::BuildRegionsReport(builder, {}, analysis::MetricSelection{}, true, d);
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
  d.Add("code", model::Severity::kWarning, "f.csv:3: " + huge);
  EXPECT_LE(d.entries().at("code").first_example.size(), model::kMaxExampleBytes + 3);
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
