#include <string>

#include "src/ingest/importer.h"
#include "src/ingest/text_lines.h"

namespace llmpo::ingest {
namespace {

bool Contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

InputFormat ClassifyHeader(std::string_view line) {
  if (line.starts_with("\"ID\",") || line.starts_with("ID,")) {
    return Contains(line, "Metric Name") ? InputFormat::kNcuDetailsCsv : InputFormat::kNcuRawCsv;
  }
  if (line.starts_with("\"Process ID\",") && Contains(line, "Invocations")) return InputFormat::kNcuSummaryCsv;
  if (IsNsysStatsHeader(line)) return InputFormat::kNsysStatsCsv;
  return InputFormat::kUnknown;
}

}  // namespace

bool IsNsysStatsHeader(std::string_view line) {
  return Contains(line, "Total Time (ns)") || Contains(line, "Total Proj Time") ||
         (Contains(line, "Range") && Contains(line, "Style")) || Contains(line, "Kern Inst") ||
         (Contains(line, "API Name") && Contains(line, "Kernel Name")) || Contains(line, "DurChild (ns)") ||
         (Contains(line, "Operation") && Contains(line, "Total (MB)"));
}

InputFormat DetectFormat(std::string_view head) {
  if (head.starts_with(std::string_view("SQLite format 3\0", 16))) return InputFormat::kNsysSqlite;
  if (head.starts_with(std::string_view("NVR\0", 4))) return InputFormat::kNcuReport;
  if (head.starts_with("#llmpo-trace ")) return InputFormat::kLlmpoTrace;
  if (LooksLikeKinetoTrace(head)) return InputFormat::kKinetoTrace;
  if (head.find('\0') != std::string_view::npos) return InputFormat::kUnknown;  // some other binary
  for (std::string_view line : SplitLines(head)) {
    const InputFormat f = ClassifyHeader(line);
    if (f != InputFormat::kUnknown) return f;
  }
  return InputFormat::kUnknown;
}

}  // namespace llmpo::ingest
