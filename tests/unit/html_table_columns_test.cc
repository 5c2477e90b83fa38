// The page's tables leave out the columns no row knows (src/report/html_table_columns.h).
#include "src/report/html_table_columns.h"

#include <gtest/gtest.h>

namespace llmpo::report {
namespace {

using nlohmann::ordered_json;

ordered_json Table(ordered_json rows) {
  return ordered_json{{"columns",
                       {{{"key", "name"}, {"label", "Kernel"}},
                        {{"key", "total"}, {"label", "Total (ms)"}},
                        {{"key", "device"}, {"label", "Device"}},
                        {{"key", "cpu"}, {"label", "CPU (ms)"}}}},
                      {"rows", std::move(rows)}};
}

TEST(HtmlTableColumns, ColumnsNullOrEmptyInEveryRowAreLeftOutAndNamed) {
  ordered_json t = Table({{"gemm", 1.5, "", nullptr}, {"add", nullptr, "", nullptr}});
  DropUnknownColumns(t);
  EXPECT_EQ(t["columns"].size(), 2u);
  EXPECT_EQ(t["columns"][1]["key"], "total");
  ASSERT_EQ(t["rows"].size(), 2u);
  EXPECT_EQ(t["rows"][0].dump(), R"(["gemm",1.5])");
  EXPECT_EQ(t["rows"][1].dump(), R"(["add",null])");
  EXPECT_EQ(t["left_out"], ordered_json({"Device", "CPU (ms)"}));
}

TEST(HtmlTableColumns, OneKnownCellKeepsEveryColumn) {
  ordered_json t = Table({{"gemm", nullptr, "", 0.0}, {"add", 2.0, "GPU 0", nullptr}});
  const ordered_json before = t;
  DropUnknownColumns(t);
  EXPECT_EQ(t, before);  // 0.0 is a value, not unknown
}

TEST(HtmlTableColumns, NoRowsOrNoTableChangeNothing) {
  ordered_json empty = Table(ordered_json::array());
  const ordered_json before = empty;
  DropUnknownColumns(empty);
  EXPECT_EQ(empty, before);
  ordered_json none = nullptr;
  DropUnknownColumns(none);
  EXPECT_TRUE(none.is_null());
}

}  // namespace
}  // namespace llmpo::report
