#include "src/core/atomic_file.h"

#include <gtest/gtest.h>

#include "tests/unit/temp_dir.h"

namespace llmpo {
namespace {

TEST(WriteFileAtomically, WritesReplacesAndLeavesNoTempFile) {
  testing::TempDir dir;
  const auto path = dir.path() / "run.json";
  ASSERT_TRUE(WriteFileAtomically(path, "first").ok());
  ASSERT_TRUE(WriteFileAtomically(path, "second").ok());
  EXPECT_EQ(*ReadWholeFile(path), "second");
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1u);
}

TEST(WriteFileAtomically, MissingFolderIsAnError) {
  testing::TempDir dir;
  auto status = WriteFileAtomically(dir.path() / "no" / "such" / "file", "x");
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("cannot create"), std::string::npos);
}

TEST(ReadWholeFile, MissingFileIsAnInputError) {
  auto r = ReadWholeFile("/nonexistent/llmpo");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ExitStatus::kInput);
}

}  // namespace
}  // namespace llmpo
