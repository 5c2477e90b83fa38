#include "src/report/html_table_columns.h"

#include <vector>

namespace llmpo::report {
namespace {

bool Unknown(const nlohmann::ordered_json& cell) {
  return cell.is_null() || (cell.is_string() && cell.get_ref<const std::string&>().empty());
}

}  // namespace

void DropUnknownColumns(nlohmann::ordered_json& table) {
  if (!table.is_object() || !table.contains("rows") || table["rows"].empty()) return;
  auto& columns = table["columns"];
  auto& rows = table["rows"];
  std::vector<bool> drop(columns.size(), false);
  bool any = false;
  for (std::size_t c = 1; c < columns.size(); ++c) {
    drop[c] = true;
    for (const auto& row : rows) {
      if (c < row.size() && !Unknown(row[c])) {
        drop[c] = false;
        break;
      }
    }
    any = any || drop[c];
  }
  if (!any) return;
  nlohmann::ordered_json kept = nlohmann::ordered_json::array(), left_out = nlohmann::ordered_json::array();
  for (std::size_t c = 0; c < columns.size(); ++c)
    (drop[c] ? left_out.push_back(columns[c]["label"]) : kept.push_back(columns[c]));
  for (auto& row : rows) {
    nlohmann::ordered_json cells = nlohmann::ordered_json::array();
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (c >= drop.size() || !drop[c]) cells.push_back(std::move(row[c]));
    }
    row = std::move(cells);
  }
  columns = std::move(kept);
  table["left_out"] = std::move(left_out);
}

}  // namespace llmpo::report
