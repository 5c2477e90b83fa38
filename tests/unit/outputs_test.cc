// The output table's writer: every file staged before any is put in place,
// rows written only when their test holds, an earlier import's extra files
// removed, and a refused destination leaving the previous outputs whole.
#include "src/pipeline/outputs.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/unit/temp_dir.h"

namespace llmpo::pipeline {
namespace {

namespace fs = std::filesystem;

std::string Read(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool HiddenLeft(const fs::path& dir) {
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with(".") && name != ".llmpo-outputs") return true;
  }
  return false;
}

report::ReportSet SmallSet() {
  report::ReportSet set;
  set.kernels.sources.push_back({"in.csv", "ncu-details-csv", std::nullopt, model::SourceFamily::kNcu});
  return set;
}

bool Yes(const report::ReportSet&) { return true; }
bool No(const report::ReportSet&) { return false; }
std::string PathA(const report::ReportSet&) { return "a.md"; }
std::string PathB(const report::ReportSet&) { return "b.md"; }
std::string PathSub(const report::ReportSet&) { return "sub/c.txt"; }
void WriteNew(const report::ReportSet&, std::ostream& out) { out << "new"; }

TEST(Outputs, WritesTheRowsThatApplyInTableOrderAndNothingElse) {
  testing::TempDir dir;
  const OutputRow table[] = {{"a", Yes, PathA, WriteNew}, {"b", No, PathB, WriteNew}, {"c", Yes, PathSub, WriteNew}};
  auto written = WriteOutputs(dir.path(), SmallSet(), table);
  ASSERT_TRUE(written.ok()) << written.error().Render();
  EXPECT_EQ(*written, (std::vector<std::string>{"a.md", "sub/c.txt"}));
  EXPECT_EQ(Read(dir.path() / "a.md"), "new");
  EXPECT_EQ(Read(dir.path() / "sub/c.txt"), "new");
  EXPECT_FALSE(fs::exists(dir.path() / "b.md"));
  EXPECT_FALSE(HiddenLeft(dir.path()));  // the staging folder is gone
}

TEST(Outputs, AFileTheEarlierImportWroteAndThisOneDoesNotIsRemoved) {
  testing::TempDir dir;
  const OutputRow both[] = {{"a", Yes, PathA, WriteNew}, {"b", Yes, PathB, WriteNew}};
  ASSERT_TRUE(WriteOutputs(dir.path(), SmallSet(), both).ok());
  ASSERT_TRUE(fs::exists(dir.path() / "b.md"));
  const OutputRow only_a[] = {{"a", Yes, PathA, WriteNew}, {"b", No, PathB, WriteNew}};
  ASSERT_TRUE(WriteOutputs(dir.path(), SmallSet(), only_a).ok());
  EXPECT_TRUE(fs::exists(dir.path() / "a.md"));
  EXPECT_FALSE(fs::exists(dir.path() / "b.md"));
}

TEST(Outputs, ARefusedDestinationLeavesEveryPreviousOutputAsItWas) {
  testing::TempDir dir;
  dir.Write("a.md", "old");
  dir.Write("elsewhere.md", "not ours");
  // b.md is a link: outputs never follow one, so the write is refused, and
  // a.md, staged before b.md was checked, is not put in place either.
  fs::create_symlink(dir.path() / "elsewhere.md", dir.path() / "b.md");
  const OutputRow table[] = {{"a", Yes, PathA, WriteNew}, {"b", Yes, PathB, WriteNew}};
  auto written = WriteOutputs(dir.path(), SmallSet(), table);
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.error().message.find("symbolic link"), std::string::npos) << written.error().Render();
  EXPECT_EQ(Read(dir.path() / "a.md"), "old");
  EXPECT_EQ(Read(dir.path() / "elsewhere.md"), "not ours");
  EXPECT_FALSE(HiddenLeft(dir.path()));
}

TEST(Outputs, TheRealTableWritesTheKernelTablesTheSetAndThePageForAnyImport) {
  testing::TempDir dir;
  auto written = WriteOutputs(dir.path(), SmallSet());
  ASSERT_TRUE(written.ok()) << written.error().Render();
  EXPECT_EQ(*written, (std::vector<std::string>{"kernels.md", "kernels.json", "report_set.json", "report.html"}));
  for (const auto& f : *written) EXPECT_GT(fs::file_size(dir.path() / f), 0u) << f;
}

TEST(Outputs, TraceRowsAreTheTablesLeadingTraceFiles) {
  const auto rows = TraceOutputRows();
  ASSERT_EQ(rows.size(), 5u);
  report::ReportSet set;
  for (const auto& row : rows) EXPECT_TRUE(row.path(set).starts_with("trace/")) << row.what;
  EXPECT_FALSE(OutputTable()[rows.size()].path(set).starts_with("trace/"));
}

}  // namespace
}  // namespace llmpo::pipeline
