// Whether a tool step that ended with exit status 0 (or an ending the tool
// documents as normal) made what it should: nsys and ncu say "ERROR:" and
// still exit 0 (an unknown `nsys stats` report, an importer that was not
// found), and ncu exits 0 when it profiled nothing. A step is ok only when
// its expected files exist and are not empty and the tool reported no error.
#pragma once

#include <filesystem>
#include <string>

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

// The first line of the two files that reports an error ("ERROR", "==ERROR==",
// "Importer error"), trimmed; "" when none.
std::string FirstErrorLine(const std::filesystem::path& out, const std::filesystem::path& err);

}  // namespace llmpo::pipeline
