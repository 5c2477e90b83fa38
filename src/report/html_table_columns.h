// The page's sortable tables leave out the columns no row knows.
#pragma once

#include <nlohmann/json.hpp>

namespace llmpo::report {

// `table` is {columns, rows} as the page's data holds it: every column after
// the first whose cells are all null or "" is removed, its label listed in
// `left_out` (the page says them below the table). Null stays null.
void DropUnknownColumns(nlohmann::ordered_json& table);

}  // namespace llmpo::report
