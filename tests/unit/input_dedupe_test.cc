#include "src/pipeline/input_dedupe.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/unit/temp_dir.h"

namespace llmpo::pipeline {
namespace {
namespace fs = std::filesystem;

TEST(UniqueInputs, SamePathTwiceIsReadOnceWithANote) {
  testing::TempDir dir;
  dir.Write("a.csv", "kernel,1\n");
  const fs::path a = dir.path() / "a.csv";
  model::Diagnostics diagnostics;
  EXPECT_EQ(UniqueInputs({a, a}, diagnostics), std::vector<fs::path>{a});
  ASSERT_EQ(diagnostics.notes().size(), 1u);
  EXPECT_NE(diagnostics.notes()[0].find("same content"), std::string::npos) << diagnostics.notes()[0];
}

TEST(UniqueInputs, ACopyOrALinkIsTheSameInput) {
  testing::TempDir dir;
  dir.Write("a.csv", std::string(3 << 20, 'x') + "tail");  // more than one read chunk
  dir.Write("copy.csv", std::string(3 << 20, 'x') + "tail");
  fs::create_symlink(dir.path() / "a.csv", dir.path() / "link.csv");
  const fs::path a = dir.path() / "a.csv";
  model::Diagnostics diagnostics;
  EXPECT_EQ(UniqueInputs({a, dir.path() / "copy.csv", dir.path() / "link.csv"}, diagnostics),
            std::vector<fs::path>{a});
  EXPECT_EQ(diagnostics.notes().size(), 2u);
}

TEST(UniqueInputs, SameSizeOtherBytesAreDifferentInputs) {
  testing::TempDir dir;
  dir.Write("a.csv", std::string(3 << 20, 'x') + "tail");
  dir.Write("b.csv", std::string(3 << 20, 'x') + "TAIL");
  const std::vector<fs::path> both{dir.path() / "a.csv", dir.path() / "b.csv"};
  model::Diagnostics diagnostics;
  EXPECT_EQ(UniqueInputs(both, diagnostics), both);
  EXPECT_TRUE(diagnostics.notes().empty());
}

TEST(UniqueInputs, AnInputThatCannotBeReadIsKeptForItsImportToReport) {
  testing::TempDir dir;
  const fs::path missing = dir.path() / "missing.csv";
  model::Diagnostics diagnostics;
  EXPECT_EQ(UniqueInputs({missing, missing, dir.path()}, diagnostics),
            (std::vector<fs::path>{missing, missing, dir.path()}));
}

}  // namespace
}  // namespace llmpo::pipeline
