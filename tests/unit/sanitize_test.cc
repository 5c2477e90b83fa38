#include <gtest/gtest.h>

#include "src/report/regions_report.h"

namespace llmpo::report {
namespace {

TEST(SanitizeFolderName, StaysInsideTheRunFolder) {
  EXPECT_EQ(SanitizeFolderName({"A"}), "A");
  EXPECT_EQ(SanitizeFolderName({"A", "A::A1"}), "A__A__A1");
  EXPECT_EQ(SanitizeFolderName({"../../etc"}), "etc");
  EXPECT_EQ(SanitizeFolderName({".."}), "region");
  EXPECT_EQ(SanitizeFolderName({"LLM@decode step 3"}), "LLM_decode_step_3");
  EXPECT_EQ(SanitizeFolderName({"a/b"}), "a_b");
  EXPECT_EQ(SanitizeFolderName({""}), "region");
  EXPECT_LE(SanitizeFolderName({std::string(300, 'x')}).size(), 80u);
  for (const char* bad : {"/", "\\", ":", "*", "?", "\"", "<", ">", "|", " "}) {
    EXPECT_EQ(SanitizeFolderName({std::string("a") + bad + "b"}).find_first_of("/\\:*?\"<>| "), std::string::npos);
  }
}

}  // namespace
}  // namespace llmpo::report
