#include "src/report/md_table.h"

#include <fmt/format.h>

namespace llmpo::report {

bool MdTable::Known(std::size_t column) const {
  if (columns_[column].key || rows_.empty()) return true;
  for (const auto& row : rows_) {
    if (column >= row.size()) continue;
    if (row[column] != "n/a" && row[column] != "unknown") return true;
  }
  return false;
}

std::string MdTable::Render() const {
  std::vector<std::size_t> shown;
  std::vector<std::string> left_out;
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    if (Known(c)) {
      shown.push_back(c);
    } else {
      left_out.push_back(columns_[c].head);
    }
  }
  std::string out = "|", rule = "|";
  for (const std::size_t c : shown) {
    out += " " + columns_[c].head + " |";
    rule += columns_[c].numeric ? "---:|" : "---|";
  }
  out += "\n" + rule + "\n";
  for (const auto& row : rows_) {
    out += "|";
    for (const std::size_t c : shown) out += " " + (c < row.size() ? row[c] : std::string()) + " |";
    out += "\n";
  }
  if (!left_out.empty()) {
    out += fmt::format("\nLeft out, unknown for every row here: {}.\n", fmt::join(left_out, ", "));
  }
  return out;
}

}  // namespace llmpo::report
