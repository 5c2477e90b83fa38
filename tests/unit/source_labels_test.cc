// Short input labels for tables (src/report/source_labels.h).
#include "src/report/source_labels.h"

#include <gtest/gtest.h>

namespace llmpo::report {
namespace {

std::vector<SourceInfo> Sources(std::initializer_list<const char*> paths) {
  std::vector<SourceInfo> out;
  for (const char* p : paths) {
    SourceInfo s;
    s.path = p;
    out.push_back(s);
  }
  return out;
}

TEST(SourceLabels, DistinctFileNamesAreTheFileName) {
  const auto labels = SourceLabels(Sources({"/data/run1/a.nsys-rep", "/data/run2/b.ncu-rep"}));
  EXPECT_EQ(labels.at("/data/run1/a.nsys-rep"), "a.nsys-rep");
  EXPECT_EQ(labels.at("/data/run2/b.ncu-rep"), "b.ncu-rep");
}

TEST(SourceLabels, ASharedFileNameTakesTheParentFolder) {
  const auto labels = SourceLabels(Sources({"/data/run1/trace.json", "/data/run2/trace.json", "/data/run2/other.csv"}));
  EXPECT_EQ(labels.at("/data/run1/trace.json"), "run1/trace.json");
  EXPECT_EQ(labels.at("/data/run2/trace.json"), "run2/trace.json");
  EXPECT_EQ(labels.at("/data/run2/other.csv"), "other.csv");
}

TEST(SourceLabels, AsManyFoldersAsTellThemApart) {
  const auto labels = SourceLabels(Sources({"/a/x/out/t.json", "/b/x/out/t.json", "x/out/t.json"}));
  // Every folder was needed: the label is the whole path.
  EXPECT_EQ(labels.at("/a/x/out/t.json"), "/a/x/out/t.json");
  EXPECT_EQ(labels.at("/b/x/out/t.json"), "/b/x/out/t.json");
  EXPECT_EQ(labels.at("x/out/t.json"), "x/out/t.json");  // the whole relative path
}

TEST(SourceLabels, TheSameInputTwiceHasOneLabelAndUnknownPathsStayWhole) {
  const auto labels = SourceLabels(Sources({"/d/k.csv", "/d/k.csv"}));
  EXPECT_EQ(labels.at("/d/k.csv"), "k.csv");
  EXPECT_EQ(LabelOf(labels, "/elsewhere/k.csv"), "/elsewhere/k.csv");
}

}  // namespace
}  // namespace llmpo::report
