// Live progress of a running tool, from its output lines: ncu's `==PROF==`
// lines (results profiled so far, replay passes) and nsys' phases.
// ProgressDisplay shows it as one updating line on a terminal and as plain,
// throttled lines elsewhere (CI logs, pipes).
#pragma once

#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>

#include "src/pipeline/process.h"

namespace llmpo::pipeline {

class ToolProgress {
 public:
  explicit ToolProgress(std::string step) : step_(std::move(step)) {}

  // Feeds one output line; true when what Text() says changed.
  bool Feed(std::string_view line);
  std::string Text() const;
  int results() const { return results_; }

 private:
  std::string step_;
  std::string phase_;  // "connected to process 4242", "Processing events...", ...
  int results_ = 0;    // ncu results profiled so far
  std::string last_name_;
  int last_passes_ = 0;
  std::string last_error_;
};

class ProgressDisplay {
 public:
  ProgressDisplay(std::FILE* out, bool terminal, double plain_interval_s = 2.0)
      : out_(out), terminal_(terminal), plain_interval_s_(plain_interval_s) {}
  void Update(const std::string& text);
  // Ends the step's line (the last text is shown once more if it was held back).
  void Finish();

 private:
  std::FILE* out_;
  bool terminal_;
  double plain_interval_s_;
  std::string shown_;
  std::string held_;  // newest text not printed yet (plain mode throttling)
  std::size_t width_ = 0;
  std::chrono::steady_clock::time_point last_plain_{};
};

// Runs `spec` through `runner` with a ToolProgress for `step` fed from the
// program's output and shown on `out` (nullptr: no display).
Result<ProcessResult> RunStepWithProgress(ProcessRunner& runner, StepSpec spec, const std::string& step, std::FILE* out,
                                          bool terminal);

}  // namespace llmpo::pipeline
