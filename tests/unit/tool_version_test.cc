#include "src/pipeline/tool_version.h"

#include <gtest/gtest.h>

namespace llmpo::pipeline {
namespace {

TEST(ToolVersionTest, ParsesNcuAndNsysOutput) {
  auto ncu = ParseToolVersion(
      "NVIDIA (R) Nsight Compute Command Line Profiler\nCopyright (c) 2018-2025 NVIDIA Corporation\n"
      "Version 2025.1.1.0 (build 35528883) (public-release)\n");
  // The copyright years come first but are not YYYY.N.
  ASSERT_TRUE(ncu.has_value());
  EXPECT_EQ(ncu->Text(), "2025.1");
  auto nsys = ParseToolVersion("NVIDIA Nsight Systems version 2022.4.2.1-df9881f");
  ASSERT_TRUE(nsys.has_value());
  EXPECT_EQ(nsys->Text(), "2022.4");
  EXPECT_FALSE(ParseToolVersion("no version here").has_value());
}

TEST(ToolVersionTest, TooOldNamesTheMinimumAndTheFix) {
  EXPECT_EQ(TooOldMessage("ncu", "Version 2022.3.0.0"), "") << "2022.x: the commands adapt to it";
  EXPECT_EQ(TooOldMessage("nsys", "NVIDIA Nsight Systems version 2022.4.2.1"), "");
  EXPECT_EQ(TooOldMessage("ncu", "Version 2026.1.0.0"), "");
  EXPECT_EQ(TooOldMessage("nsys", "NVIDIA Nsight Systems version 2021.5.1.117"),
            "nsys 2021.5 is older than 2022.1, the oldest version the commands are built for; install Nsight "
            "Systems 2022.1 or newer");
  EXPECT_EQ(TooOldMessage("ncu", "garbled"), "") << "an unknown version is not called too old";
  EXPECT_EQ(TooOldMessage("nvcc", "release 11.0, V11.0.1"), "");
}

}  // namespace
}  // namespace llmpo::pipeline
