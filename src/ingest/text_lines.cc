#include "src/ingest/text_lines.h"

#include <sstream>

#include "src/core/csv_reader.h"

namespace llmpo::ingest {

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

std::vector<std::string> ParseCsvLine(const std::string& line) {
  std::istringstream in(line);
  CsvReader reader(in);
  std::vector<std::string_view> fields;
  reader.Next(fields);
  return {fields.begin(), fields.end()};
}

std::optional<std::size_t> FindColumn(const std::vector<std::string>& header, std::string_view name) {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return i;
  }
  return std::nullopt;
}

}  // namespace llmpo::ingest
