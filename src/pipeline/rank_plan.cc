#include "src/pipeline/rank_plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace llmpo::pipeline {
namespace fs = std::filesystem;

namespace {

constexpr const char* kRankSuffix = ".rank{rank}";

// `launcher... SELF rank-exec ... -- TOOL... PROGRAM...`: the tool part
// (its argv without a workload) before each rank's program.
PlannedCommand Wrap(const std::string& step, const Argv& tool, const std::vector<std::string>& env,
                    const std::string& ranks, const CommandContext& ctx) {
  Argv argv = ctx.launch->launcher;
  argv.insert(argv.end(), {ctx.self.string(), "rank-exec", "--record", RankRecordDir(ctx.run_dir).string(), "--step",
                           step, "--profiler-args", std::to_string(tool.size()), "--ranks", ranks});
  for (const auto& e : env) argv.insert(argv.end(), {"--env", e});
  argv.push_back("--");
  argv.insert(argv.end(), tool.begin(), tool.end());
  argv.insert(argv.end(), ctx.launch->program.begin(), ctx.launch->program.end());
  PlannedCommand cmd{step, argv, ""};
  cmd.per_rank = true;
  return cmd;
}

// ncu's TCP communicator for the profiled ranks; rank-exec fills in their
// number ({ncu_peers}: the ranks listed, or the world size for "all").
void AddLockstep(const NcuOptions& o, const CommandContext& ctx, Argv& ncu) {
  // An installed ncu without the communicator was refused (lockstep=true) or noted (auto) before this.
  if (!NcuLockstep(o) || (ctx.tools != nullptr && !NcuHasOption(*ctx.tools, "--communicator"))) return;
  ncu.insert(ncu.end(), {"--communicator", "tcp", "--communicator-tcp-num-peers", std::string(kNcuPeers),
                         "--lockstep-kernel-launch"});
  if (o.communicator_host) ncu.insert(ncu.end(), {"--communicator-tcp-hostname", *o.communicator_host});
}

std::string RankList(const std::optional<std::vector<std::int64_t>>& ranks) {
  return ranks ? fmt::format("{}", fmt::join(*ranks, ",")) : "all";
}

// The ranks whose report exists: RUN/DIR/STEMrankN.EXT, by rank.
std::vector<std::int64_t> RanksWithReport(const fs::path& dir, const std::string& stem, const std::string& ext) {
  std::vector<std::int64_t> ranks;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(stem + ".rank") || !name.ends_with(ext)) continue;
    const auto rank =
        RankNumber(std::string_view(name).substr(stem.size() + 5, name.size() - stem.size() - 5 - ext.size()));
    if (rank) ranks.push_back(*rank);
  }
  std::sort(ranks.begin(), ranks.end());
  return ranks;
}

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

}  // namespace

fs::path RankRecordDir(const fs::path& run_dir) { return run_dir / "ranks"; }

std::optional<std::int64_t> RankNumber(std::string_view digits) {
  if (digits.empty() || digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string_view::npos) {
    return std::nullopt;
  }
  return std::stoll(std::string(digits));
}

Result<std::optional<LaunchSplit>> LaunchOf(const std::vector<std::string>& workload, bool bundled,
                                            const ProfileOptions& o) {
  if (bundled) return std::optional<LaunchSplit>();
  ASSIGN_OR_RETURN(std::optional<LaunchSplit> launch, SplitLauncher(workload, o.launcher));
  if (launch && o.ncu.enable && o.ncu.top_kernels > 0) {
    return MakeError(ExitStatus::kUsage, fmt::format("pipeline.ncu.top_kernels is not done under a launcher ({}) yet",
                                                     ToString(launch->innermost())))
        .WithNote(
            "set pipeline.ncu.top_kernels=null and choose kernels with pipeline.ncu.ncu_cli.kernel_name, or "
            "profile one rank without the launcher");
  }
  return launch;
}

fs::path SelfExecutable() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path("llm-perf-opt") : self;
}

std::vector<PlannedCommand> PlanUnderLauncher(const ProfileOptions& o, const CommandContext& ctx_in) {
  CommandContext tool_ctx = ctx_in;
  tool_ctx.workload.clear();  // each builder's argv is then the tool alone
  tool_ctx.output_suffix = kRankSuffix;
  std::vector<PlannedCommand> plan;
  if (o.trace) {
    const PlannedCommand trace = BuildTraceCommand(tool_ctx);
    plan.push_back(Wrap("trace", {}, trace.env, "all", ctx_in));
  }
  if (o.nsys.enable) {
    plan.push_back(Wrap("nsys", BuildNsysCommand(o.nsys, tool_ctx), {}, "all", ctx_in));
    // nsys/run.rankN.nsys-rep: the post-processing runs once per rank report (PerNumberedReport).
    for (auto& cmd : BuildNsysPostprocessing(ctx_in)) plan.push_back(std::move(cmd));
  }
  if (o.ncu.enable) {
    Argv ncu = BuildNcuCommand(o.ncu, tool_ctx);
    AddLockstep(o.ncu, tool_ctx, ncu);
    plan.push_back(Wrap("ncu", ncu, {}, RankList(o.ncu.ranks), ctx_in));
    // Once per rank report (PerRankReports): "{rank}" stays until then.
    for (auto cmd : BuildNcuExports(o.ncu, tool_ctx)) {
      cmd.stdout_to = Replace(cmd.stdout_to, ".csv", std::string(kRankSuffix) + ".csv");
      cmd.stdout_to = Replace(cmd.stdout_to, ".txt", std::string(kRankSuffix) + ".txt");
      plan.push_back(std::move(cmd));
    }
  }
  return plan;
}

std::vector<PlannedCommand> PerRankReports(const PlannedCommand& cmd, const fs::path& run_dir) {
  const bool templated = std::any_of(cmd.argv.begin(), cmd.argv.end(),
                                     [](const std::string& a) { return a.find(kRankSuffix) != std::string::npos; });
  if (cmd.per_rank || !cmd.step.starts_with("ncu-") || !templated) return {cmd};
  std::vector<PlannedCommand> out;
  for (std::int64_t rank : RanksWithReport(run_dir / "ncu", "profile", ".ncu-rep")) {
    const std::string suffix = fmt::format(".rank{}", rank);
    PlannedCommand one = cmd;
    one.step = cmd.step + suffix;
    for (auto& a : one.argv) a = Replace(a, kRankSuffix, suffix);
    one.stdout_to = Replace(one.stdout_to, kRankSuffix, suffix);
    out.push_back(std::move(one));
  }
  return out.empty() ? std::vector<PlannedCommand>{cmd} : out;
}

RankOutcome JudgeRanks(const fs::path& run_dir, const PlannedCommand& cmd, bool timed_out) {
  RankOutcome out;
  out.records = ReadRankRecords(RankRecordDir(run_dir).string(), cmd.step);
  out.summary = RankSummary(out.records);
  if (out.records.empty()) {
    out.problems = fmt::format(
        "no rank left a record in ranks/: the launcher started none (see {}/{}.stderr.log), or the ranks cannot "
        "reach this run folder (a folder shared by every node is needed)",
        cmd.step, cmd.step);
  } else {
    out.problems = RankProblems(out.records, timed_out);
  }
  return out;
}

std::string PerRankOutputProblem(const PlannedCommand& cmd, const fs::path& run_dir) {
  if (cmd.step == "nsys" && RanksWithReport(run_dir / "nsys", "run", ".nsys-rep").empty()) {
    return "no rank's nsys wrote a report (nsys/run.rankN.nsys-rep)";
  }
  if (cmd.step == "ncu" && RanksWithReport(run_dir / "ncu", "profile", ".ncu-rep").empty()) {
    return "no chosen rank's ncu wrote a report (ncu/profile.rankN.ncu-rep; pipeline.ncu.ranks names the ranks)";
  }
  return "";
}

}  // namespace llmpo::pipeline
