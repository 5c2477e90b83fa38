// Runs an external program: argv (never a shell string), stdout and stderr
// to files, the exit status back.
//
// RunStep is the orchestration's runner: the program gets its own process
// group, its output is followed line by line while it runs (for progress),
// a stop request (Ctrl-C, SIGTERM) is forwarded to the whole group, and a
// timeout ends the group (SIGTERM, then SIGKILL after a grace period).
// Its stdin is /dev/null: a program in a background group that read the
// terminal would be stopped.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/result.h"

namespace llmpo::pipeline {

struct ProcessResult {
  int exit_code = -1;  // the program's exit status, or 128+signal if it was killed
  double duration_s = 0;
  bool timed_out = false;    // ended by the step timeout
  int forwarded_signal = 0;  // the stop signal passed on to the program's group, or 0
  int pid = 0;               // the program's process id (RunStep), or 0
};

struct StepSpec {
  std::vector<std::string> argv;
  std::filesystem::path stdout_file;
  std::filesystem::path stderr_file;
  std::vector<std::string> env;  // "NAME=VALUE" entries set for the program (on top of ours)
  double timeout_s = 0;          // 0: none
  double kill_grace_s = 5;       // after SIGTERM (timeout or forwarded stop), SIGKILL follows this much later
  // Called with every complete line the program writes (stdout and stderr),
  // from the calling thread, while it runs.
  std::function<void(std::string_view line)> on_line;
  // When this holds a signal number, it is forwarded to the program's group.
  const std::atomic<int>* stop_signal = nullptr;
};

// Fails only when the program could not be started at all.
Result<ProcessResult> RunStep(const StepSpec& spec);

// The one seam the orchestration (profile, trace) starts programs through:
// SystemRunner() runs them with RunStep; unit tests pass an in-process fake
// that writes the files a tool would and returns its exit status.
class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  virtual Result<ProcessResult> Run(const StepSpec& spec) = 0;
};

ProcessRunner& SystemRunner();

// While alive, SIGINT and SIGTERM are caught and noted instead of ending us:
// signal() says which arrived (0: none), for StepSpec::stop_signal and for
// the caller's "stop after this step". One at a time; the old handlers come back.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  const std::atomic<int>* signal() const;
  bool stopped() const { return signal()->load() != 0; }
};

// RunStep without the extras: no timeout, no forwarding, no line callback.
Result<ProcessResult> RunToFiles(const std::vector<std::string>& argv, const std::filesystem::path& stdout_file,
                                 const std::filesystem::path& stderr_file);

}  // namespace llmpo::pipeline
