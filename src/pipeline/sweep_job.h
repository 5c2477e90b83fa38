// A multirun sweep (docs/sweeps.md): its points run one after another, each
// as a child `llm-perf-opt profile|trace` that writes a normal run folder
// under the sweep folder. The sweep folder holds multirun.yaml (the sweep's
// identity, as Hydra writes it), logs/N.out and logs/N.err (each point's
// terminal output), and the sweep report. A point whose run.json says "ok"
// is complete and is skipped when the sweep runs again; an earlier attempt
// of any other point moves to previous/ before the point runs again.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "src/config/node.h"
#include "src/core/result.h"

namespace llmpo::pipeline {

struct SweepPointPlan {
  std::size_t num = 0;
  std::vector<std::string> values;     // one per swept key
  std::vector<std::string> overrides;  // the point's overrides (fixed, then swept)
  std::filesystem::path dir;           // its run folder
};

struct SweepRequest {
  std::string command;  // "profile" or "trace"
  std::vector<std::string> keys;
  std::vector<SweepPointPlan> points;
  std::filesystem::path sweep_dir;
  config::Node multirun;              // multirun.yaml's content
  std::vector<std::string> child_prefix;  // self, global flags, command, --config-dir/--config-name
  std::vector<std::string> workload_argv;  // after "--"; empty: none
  bool resume = false;                     // --resume: the folder must hold this sweep
};

enum class PointStatus { kOk, kSkippedComplete, kFailed, kInterrupted, kNotRun };
std::string_view ToString(PointStatus s);

struct PointOutcome {
  PointStatus status = PointStatus::kNotRun;
  std::optional<int> exit_code;  // the child's
  std::string reason;            // run.json's status_reason, else the child's last error line
};

struct SweepOutcome {
  std::vector<PointOutcome> points;  // one per planned point
  bool interrupted = false;
  std::size_t ran = 0, skipped = 0, failed = 0;
};

// Called before and after each point (for the terminal).
using PointObserver = std::function<void(const SweepPointPlan&, const PointOutcome*)>;

// Claims the sweep folder (refusing one that holds another sweep, or any
// other files), writes multirun.yaml, runs the points; SIGINT/SIGTERM stop
// the running point (forwarded to it) and the sweep.
Result<SweepOutcome> RunSweep(const SweepRequest& request, const PointObserver& observe);

// The status a point's run folder records: ok, or nullopt (no run.json yet).
std::optional<std::string> PointRunStatus(const std::filesystem::path& dir, std::string* reason = nullptr);

}  // namespace llmpo::pipeline
