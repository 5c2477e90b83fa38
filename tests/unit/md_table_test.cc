// Markdown tables that leave out the columns no row knows (src/report/md_table.h).
#include "src/report/md_table.h"

#include <gtest/gtest.h>

namespace llmpo::report {
namespace {

TEST(MdTable, AColumnUnknownInEveryRowIsLeftOutAndNamed) {
  MdTable t({{"Kernel", false, true}, {"Total (ms)", true}, {"Device"}, {"Bound"}});
  t.Row({"gemm", "1.0", "n/a", "unknown"});
  t.Row({"add", "n/a", "n/a", "unknown"});
  EXPECT_EQ(t.Render(),
            "| Kernel | Total (ms) |\n|---|---:|\n| gemm | 1.0 |\n| add | n/a |\n\n"
            "Left out, unknown for every row here: Device, Bound.\n");
}

TEST(MdTable, OneKnownCellKeepsTheColumnAndKeyColumnsStay) {
  MdTable t({{"#", true, true}, {"Device"}});
  t.Row({"n/a", "n/a"});
  t.Row({"2", "GPU 0"});
  EXPECT_EQ(t.Render(), "| # | Device |\n|---:|---|\n| n/a | n/a |\n| 2 | GPU 0 |\n");
}

TEST(MdTable, NoRowsKeepsTheHeader) {
  MdTable t({{"Region", false, true}, {"Launches", true}});
  EXPECT_EQ(t.Render(), "| Region | Launches |\n|---|---:|\n");
}

}  // namespace
}  // namespace llmpo::report
