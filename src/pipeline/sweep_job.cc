#include "src/pipeline/sweep_job.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <system_error>

#include "src/config/yaml_io.h"
#include "src/core/atomic_file.h"
#include "src/pipeline/manifest.h"
#include "src/pipeline/process.h"
#include "src/pipeline/run_lock.h"

namespace llmpo::pipeline {
namespace fs = std::filesystem;

std::string_view ToString(PointStatus s) {
  switch (s) {
    case PointStatus::kOk:
      return "ok";
    case PointStatus::kSkippedComplete:
      return "complete (skipped)";
    case PointStatus::kFailed:
      return "failed";
    case PointStatus::kInterrupted:
      return "interrupted";
    case PointStatus::kNotRun:
      return "not run";
  }
  return "?";
}

std::optional<std::string> PointRunStatus(const fs::path& dir, std::string* reason) {
  std::error_code ec;
  if (!fs::is_regular_file(dir / "run.json", ec)) return std::nullopt;
  auto text = ReadRunFile(dir / "run.json");
  if (!text.ok()) return std::nullopt;
  const auto json = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || !json.contains("status") || !json["status"].is_string()) return std::nullopt;
  if (reason != nullptr && json.contains("status_reason") && json["status_reason"].is_string()) {
    *reason = json["status_reason"].get<std::string>();
  }
  return json["status"].get<std::string>();
}

namespace {

const char* kIdentityKey = "llmpo_sweep";  // under hydra: what makes two sweeps the same

Error OtherSweep(const fs::path& dir, const std::string& why) {
  return MakeError(ExitStatus::kUsage, fmt::format("sweep folder {}: {}", dir.string(), why))
      .WithNote("it is left as it is: choose another folder with hydra.sweep.dir=PATH");
}

Error NothingToResume(const fs::path& dir) {
  return MakeError(ExitStatus::kUsage, fmt::format("--resume: {} holds no sweep (no multirun.yaml)", dir.string()))
      .WithNote("name the folder of the sweep to resume with hydra.sweep.dir=PATH");
}

// Checks what the folder holds: nothing, or this same sweep (resumed).
Status CheckFolder(const SweepRequest& request, bool* resuming) {
  const fs::path file = request.sweep_dir / "multirun.yaml";
  std::error_code ec;
  *resuming = fs::exists(file, ec);
  if (!*resuming) {
    if (request.resume) return NothingToResume(request.sweep_dir);
    for (const auto& entry : fs::directory_iterator(request.sweep_dir, ec)) {
      const std::string name = entry.path().filename().string();
      if (name != kRunLockName) return OtherSweep(request.sweep_dir, fmt::format("it holds other files ({})", name));
    }
    return OkStatus();
  }
  ASSIGN_OR_RETURN(std::string text, ReadRunFile(file));
  ASSIGN_OR_RETURN(config::Node old, config::LoadYaml(text, file.string()));
  const config::Node& mine = request.multirun["hydra"][kIdentityKey];
  const bool same = old.is_object() && old.contains("hydra") && old["hydra"].is_object() &&
                    old["hydra"].contains(kIdentityKey) && old["hydra"][kIdentityKey] == mine;
  if (!same) {
    return OtherSweep(request.sweep_dir,
                      "it holds a different sweep (its multirun.yaml has other overrides, command or program)")
        .WithNote("to go on with that sweep, run its own command line again (or with --resume)");
  }
  return OkStatus();
}

// The child's last line on stderr, for the point's reason.
std::string LastLine(const fs::path& file) {
  auto text = ReadWholeFile(file);
  if (!text.ok()) return "";
  std::string s = *text;
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  const auto nl = s.rfind('\n');
  return nl == std::string::npos ? s : s.substr(nl + 1);
}

// An earlier attempt's folder moves to previous/NUM-K, keeping its files.
Status MoveAside(const SweepRequest& request, const SweepPointPlan& point) {
  std::error_code ec;
  if (!fs::exists(point.dir, ec)) return OkStatus();
  const fs::path previous = request.sweep_dir / "previous";
  fs::create_directories(previous, ec);
  for (int k = 1; k < 10000; ++k) {
    const fs::path to = previous / fmt::format("{}-{}", point.num, k);
    if (fs::exists(to, ec)) continue;
    fs::rename(point.dir, to, ec);
    if (ec) return MakeError(ExitStatus::kFailure, fmt::format("cannot move {} aside: {}", point.dir.string(), ec.message()));
    return OkStatus();
  }
  return MakeError(ExitStatus::kFailure, fmt::format("too many earlier attempts of point {}", point.num));
}

std::string Quoted(const std::string& path) {
  std::string out = "'";
  for (char c : path) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

std::vector<std::string> ChildArgv(const SweepRequest& request, const SweepPointPlan& point) {
  std::vector<std::string> argv = request.child_prefix;
  argv.insert(argv.end(), point.overrides.begin(), point.overrides.end());
  argv.push_back(fmt::format("hydra.job.num={}", point.num));
  argv.push_back("hydra.run.dir=" + Quoted(fs::absolute(point.dir).string()));
  if (!request.workload_argv.empty()) {
    argv.push_back("--");
    argv.insert(argv.end(), request.workload_argv.begin(), request.workload_argv.end());
  }
  return argv;
}

PointOutcome RunPoint(const SweepRequest& request, const SweepPointPlan& point, const StopSignals& stop) {
  PointOutcome out;
  const fs::path logs = request.sweep_dir / "logs";
  std::error_code ec;
  fs::create_directories(logs, ec);
  StepSpec spec;
  spec.argv = ChildArgv(request, point);
  spec.stdout_file = logs / fmt::format("{}.out", point.num);
  spec.stderr_file = logs / fmt::format("{}.err", point.num);
  spec.stop_signal = stop.signal();
  auto ran = RunStep(spec);
  if (!ran.ok()) {
    out.status = PointStatus::kFailed;
    out.reason = ran.error().message;
    return out;
  }
  out.exit_code = ran->exit_code;
  std::string reason;
  const auto status = PointRunStatus(point.dir, &reason);
  if (stop.stopped() || status == "interrupted") {
    out.status = PointStatus::kInterrupted;
  } else {
    out.status = ran->exit_code == 0 && status == "ok" ? PointStatus::kOk : PointStatus::kFailed;
  }
  out.reason = !reason.empty() ? reason : (out.status == PointStatus::kOk ? "" : LastLine(spec.stderr_file));
  return out;
}

}  // namespace

Result<SweepOutcome> RunSweep(const SweepRequest& request, const PointObserver& observe) {
  std::error_code ec;
  if (request.resume && !fs::exists(request.sweep_dir / "multirun.yaml", ec)) return NothingToResume(request.sweep_dir);
  fs::create_directories(request.sweep_dir, ec);
  if (ec) {
    return MakeError(ExitStatus::kFailure,
                     fmt::format("cannot create the sweep folder {}: {}", request.sweep_dir.string(), ec.message()));
  }
  ASSIGN_OR_RETURN(RunLock lock, RunLock::Acquire(request.sweep_dir));
  bool resuming = false;
  RETURN_IF_ERROR(CheckFolder(request, &resuming));
  if (!resuming) {
    RETURN_IF_ERROR(WriteFileAtomically(request.sweep_dir / "multirun.yaml", config::EmitYaml(request.multirun)));
  }
  SweepOutcome outcome;
  outcome.points.resize(request.points.size());
  StopSignals stop;
  for (std::size_t i = 0; i < request.points.size() && !stop.stopped(); ++i) {
    const SweepPointPlan& point = request.points[i];
    if (PointRunStatus(point.dir) == "ok") {
      outcome.points[i].status = PointStatus::kSkippedComplete;
      ++outcome.skipped;
      if (observe) observe(point, &outcome.points[i]);
      continue;
    }
    RETURN_IF_ERROR(MoveAside(request, point));
    if (observe) observe(point, nullptr);
    outcome.points[i] = RunPoint(request, point, stop);
    ++outcome.ran;
    if (outcome.points[i].status == PointStatus::kFailed) ++outcome.failed;
    if (observe) observe(point, &outcome.points[i]);
  }
  outcome.interrupted = stop.stopped();
  return outcome;
}

}  // namespace llmpo::pipeline
