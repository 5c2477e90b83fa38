#include <string>

#include "src/ingest/importer.h"
#include "src/ingest/text_lines.h"
#include "src/model/trace_format.h"

namespace llmpo::ingest {
namespace {

bool Contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

InputFormat ClassifyHeader(std::string_view line) {
  if (line.starts_with("\"ID\",") || line.starts_with("ID,")) {
    return Contains(line, "Metric Name") ? InputFormat::kNcuDetailsCsv : InputFormat::kNcuRawCsv;
  }
  if (line.starts_with("\"Process ID\",") && Contains(line, "Invocations")) return InputFormat::kNcuSummaryCsv;
  // ncu 2022.x --print-summary per-nvtx opens with the NVTX columns: "Domain","Range:PL_Type:...".
  if (line.starts_with("\"Domain\",\"Range:") && Contains(line, "Invocations")) return InputFormat::kNcuSummaryCsv;
  if (IsNsysStatsHeader(line)) return InputFormat::kNsysStatsCsv;
  return InputFormat::kUnknown;
}

// The CSV header a text head opens with (after any tool chatter such as
// ncu's ==PROF== lines): the first line that is one; never for binary.
InputFormat CsvHeaderFormat(std::string_view head) {
  if (head.find('\0') != std::string_view::npos) return InputFormat::kUnknown;
  for (std::string_view line : SplitLines(head)) {
    const InputFormat f = ClassifyHeader(line);
    if (f != InputFormat::kUnknown) return f;
  }
  return InputFormat::kUnknown;
}

bool HasExtension(const std::filesystem::path& file, std::string_view extensions) {
  const std::string ext = file.extension().string();
  if (ext.empty()) return false;
  std::size_t at = 0;
  while (at < extensions.size()) {
    std::size_t end = extensions.find(' ', at);
    if (end == std::string_view::npos) end = extensions.size();
    if (extensions.substr(at, end - at) == ext) return true;
    at = end + 1;
  }
  return false;
}

}  // namespace

bool IsNsysStatsHeader(std::string_view line) {
  return Contains(line, "Total Time (ns)") || Contains(line, "Total Proj Time") ||
         (Contains(line, "Range") && Contains(line, "Style")) || Contains(line, "Kern Inst") ||
         (Contains(line, "API Name") && Contains(line, "Kernel Name")) || Contains(line, "DurChild (ns)") ||
         (Contains(line, "Operation") && Contains(line, "Total (MB)"));
}

bool LooksLikeSqlite(std::string_view head) { return head.starts_with(std::string_view("SQLite format 3\0", 16)); }
bool LooksLikeNcuReport(std::string_view head) { return head.starts_with(std::string_view("NVR\0", 4)); }
bool LooksLikeLlmpoTrace(std::string_view head) { return head.starts_with(trace_format::kHeaderPrefix); }
bool LooksLikeNcuDetailsCsv(std::string_view head) { return CsvHeaderFormat(head) == InputFormat::kNcuDetailsCsv; }
bool LooksLikeNcuRawCsv(std::string_view head) { return CsvHeaderFormat(head) == InputFormat::kNcuRawCsv; }
bool LooksLikeNcuSummaryCsv(std::string_view head) { return CsvHeaderFormat(head) == InputFormat::kNcuSummaryCsv; }
bool LooksLikeNsysStatsCsv(std::string_view head) { return CsvHeaderFormat(head) == InputFormat::kNsysStatsCsv; }

InputFormat DetectFormat(std::string_view head) {
  for (const Importer& importer : Importers()) {
    if (importer.sniff != nullptr && importer.sniff(head)) return importer.format;
  }
  return InputFormat::kUnknown;
}

InputFormat DetectFormat(std::string_view head, const std::filesystem::path& file) {
  const InputFormat by_content = DetectFormat(head);
  if (by_content != InputFormat::kUnknown) return by_content;
  for (const Importer& importer : Importers()) {
    if (HasExtension(file, importer.extensions)) return importer.format;
  }
  return InputFormat::kUnknown;
}

}  // namespace llmpo::ingest
