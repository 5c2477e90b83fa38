// Small text helpers shared by the CSV importers.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llmpo::ingest {

// Lines of `text` without their line ends (a trailing partial line included).
std::vector<std::string_view> SplitLines(std::string_view text);

// True for the header line of an `nsys stats --format csv` report.
bool IsNsysStatsHeader(std::string_view line);

// Parses one CSV line that holds no embedded newline (a header) into fields.
std::vector<std::string> ParseCsvLine(const std::string& line);

// Index of the column named `name`, if present.
std::optional<std::size_t> FindColumn(const std::vector<std::string>& header, std::string_view name);

}  // namespace llmpo::ingest
