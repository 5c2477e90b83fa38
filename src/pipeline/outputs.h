// The output table: every file an import, a profile run or a trace run
// writes, one row each: when it is written (a test of the report set), where
// (relative to the output folder) and how (a writer that only renders the
// set). WriteOutputs stages every file, then puts them all in place, so a
// failure while writing (a full disk, a refused destination) leaves the
// folder's previous outputs as they were.
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/result.h"
#include "src/report/report_set.h"

namespace llmpo::pipeline {

struct OutputRow {
  std::string_view what;  // what the output is (docs/architecture.md lists the rows)
  bool (*when)(const report::ReportSet& set);
  std::string (*path)(const report::ReportSet& set);  // relative to the output folder
  // A file: its content. Null for a folder of ours, written whole by
  // write_folder into a new folder and swapped in with one rename; when
  // `when` is false such a folder of an earlier import is removed.
  void (*write)(const report::ReportSet& set, std::ostream& out);
  Status (*write_folder)(const report::ReportSet& set, const std::filesystem::path& dir,
                         std::vector<std::string>& files) = nullptr;
};

std::span<const OutputRow> OutputTable();
// The rows of a traced run's own trace/ files (the table's first rows),
// written right after the tracer ran, before any report.
std::span<const OutputRow> TraceOutputRows();

// Writes every row of `table` whose `when` holds into `out_dir`; returns
// the files written, relative to it, in table order. With `whole_set`,
// top-level files an earlier import wrote and this one does not are
// removed (.llmpo-outputs); without it (a part of the table) nothing else
// is touched.
Result<std::vector<std::string>> WriteOutputs(const std::filesystem::path& out_dir, const report::ReportSet& set,
                                              std::span<const OutputRow> table = OutputTable(),
                                              bool whole_set = true);

// What a killed write left in `out_dir` (staging folders, temp files).
void RemoveOutputLeftovers(const std::filesystem::path& out_dir, const std::string& regions_subdir);

}  // namespace llmpo::pipeline
