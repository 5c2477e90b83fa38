// Runs an external program: argv (never a shell string), stdout and stderr
// to files, the exit status back. The orchestration's fuller runner
// (progress, timeouts, signal forwarding) builds on this.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "src/core/result.h"

namespace llmpo::pipeline {

struct ProcessResult {
  int exit_code = -1;  // the program's exit status, or 128+signal if it was killed
  double duration_s = 0;
};

// Fails only when the program could not be started at all.
Result<ProcessResult> RunToFiles(const std::vector<std::string>& argv, const std::filesystem::path& stdout_file,
                                 const std::filesystem::path& stderr_file);

}  // namespace llmpo::pipeline
