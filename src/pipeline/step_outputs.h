// Whether a tool step that ended with exit status 0 (or an ending the tool
// documents as normal) made what it should: nsys and ncu say "ERROR:" and
// still exit 0 (an unknown `nsys stats` report, an importer that was not
// found), and ncu exits 0 when it profiled nothing. A step is ok only when
// its expected files exist and are not empty and the tool reported no error.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "src/pipeline/commands.h"

namespace llmpo::pipeline {

// "" when the outputs are there; else what is missing or wrong, quoting the
// tool's own words (its first ERROR line). `out` and `err` are the step's
// stdout and stderr files.
std::string StepOutputProblem(const PlannedCommand& cmd, const std::filesystem::path& run_dir,
                              const std::filesystem::path& out, const std::filesystem::path& err);

// nsys ends with 143 when its capture range (capture_range=nvtx) closed;
// that is a normal end when the report was written.
bool NormalEnding(const PlannedCommand& cmd, int exit_code);

// nsys' --capture-range-end=repeat:N writes OUT.1.nsys-rep, OUT.2.nsys-rep,
// ... instead of OUT.nsys-rep: a post-processing command (nsys-stats,
// nsys-export) of a report that is not there becomes one command per
// numbered report (steps "nsys-export.1", ..., outputs run.1.sqlite,
// summary.1_...); any other command is returned as it is.
std::vector<PlannedCommand> PerNumberedReport(const PlannedCommand& cmd);

// The value of `flag` in argv ("--output X" or "--output=X"); "" when absent.
std::string ArgValue(const Argv& argv, const std::string& flag);

// nsys 2022.4 sometimes fails to reach its own agent at the start of a
// capture: it prints only "End of file" and exits 1 (about 1 run in 10 on a
// loaded 2-core machine). Such a run captured nothing and is worth one retry.
bool NsysSessionFlake(const PlannedCommand& cmd, int exit_code, const std::filesystem::path& out,
                      const std::filesystem::path& err);

// The first line of the two files that reports an error ("ERROR", "==ERROR==",
// "Importer error"), trimmed; "" when none.
std::string FirstErrorLine(const std::filesystem::path& out, const std::filesystem::path& err);

}  // namespace llmpo::pipeline
