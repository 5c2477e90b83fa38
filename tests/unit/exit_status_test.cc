#include "src/core/exit_status.h"

#include <gtest/gtest.h>

#include <set>

namespace llmpo {
namespace {

TEST(ExitStatus, CodesAndNamesAreUnique) {
  std::set<int> codes;
  std::set<std::string_view> names;
  for (const auto& info : AllExitStatuses()) {
    EXPECT_TRUE(codes.insert(ToInt(info.status)).second) << info.name;
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_FALSE(info.meaning.empty());
  }
  EXPECT_EQ(ToInt(ExitStatus::kOk), 0);
  EXPECT_EQ(ToInt(ExitStatus::kUsage), 2);
  EXPECT_EQ(ToInt(ExitStatus::kInterrupted), 130);
}

}  // namespace
}  // namespace llmpo
