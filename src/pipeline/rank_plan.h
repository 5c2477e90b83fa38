// A profile plan for a workload started by a launcher (launcher.h): each
// tool goes inside the launcher, before each rank's program, through
// `llm-perf-opt rank-exec` (src/cli/cmd_rank_exec.cc), which names the
// tool's output by the rank the launcher gave (trace/trace.rankN.PID.tsv,
// nsys/run.rankN.nsys-rep, ncu/profile.rankN.ncu-rep) and records who the
// rank is and how it ended in ranks/STEP.rankN.json. ncu runs on the ranks
// of pipeline.ncu.ranks only; the others run the program alone.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/pipeline/commands.h"
#include "src/pipeline/profile_options.h"
#include "src/pipeline/rank_identity.h"

namespace llmpo::pipeline {

// The workload's launcher as pipeline.launcher says (nullopt: none, or a
// bundled workload). A usage error for a launcher command with no program,
// or with pipeline.ncu.top_kernels (not done under a launcher yet).
Result<std::optional<LaunchSplit>> LaunchOf(const std::vector<std::string>& workload, bool bundled,
                                            const ProfileOptions& options);

// This program's path, for rank-exec under the launcher.
std::filesystem::path SelfExecutable();

// Every command of the run under ctx.launch (which must be set).
std::vector<PlannedCommand> PlanUnderLauncher(const ProfileOptions& options, const CommandContext& ctx);

// A per-rank report's post-processing (ncu's exports, "{rank}" in their
// argv) once for each rank report that exists, step STEP.rankN; other
// commands as they are.
std::vector<PlannedCommand> PerRankReports(const PlannedCommand& cmd, const std::filesystem::path& run_dir);

// The folder of the rank records: RUN/ranks.
std::filesystem::path RankRecordDir(const std::filesystem::path& run_dir);

// The rank in an output or step name written as ".rankN" (`digits`: the N
// part); none when it is not a plain number of at most 6 digits.
std::optional<std::int64_t> RankNumber(std::string_view digits);

// After a per-rank step: its records read back, and the step's verdict on
// them ("" : every rank ran and exited 0), plus a one-line summary.
struct RankOutcome {
  std::vector<RankRecord> records;
  std::string problems;
  std::string summary;
};
RankOutcome JudgeRanks(const std::filesystem::path& run_dir, const PlannedCommand& cmd, bool timed_out);

// What a per-rank tool step should have left and did not ("" : fine):
// nsys: a run.rankN.nsys-rep; ncu: a profile.rankN.ncu-rep of a chosen rank.
std::string PerRankOutputProblem(const PlannedCommand& cmd, const std::filesystem::path& run_dir);

}  // namespace llmpo::pipeline
