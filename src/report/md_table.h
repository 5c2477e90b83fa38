// A Markdown table that leaves out the value columns no row knows: a column
// whose every cell is "n/a" or "unknown" is dropped and named once in a line
// below the table, rather than printed full of unknowns.
#pragma once

#include <string>
#include <vector>

namespace llmpo::report {

class MdTable {
 public:
  struct Column {
    std::string head;
    bool numeric = false;  // right-aligned
    bool key = false;      // always shown (names the row)
  };
  explicit MdTable(std::vector<Column> columns) : columns_(std::move(columns)) {}
  void Row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  // The table, then (after a blank line) which columns were left out.
  std::string Render() const;

 private:
  bool Known(std::size_t column) const;
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace llmpo::report
