// Capture under launchers (docs/multirank.md): the launcher split, rank
// identity and its traps, the per-rank plan, and the executor through an
// in-process fake that plays the launcher and its ranks.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "src/pipeline/launcher.h"
#include "src/pipeline/manifest.h"
#include "src/pipeline/profile_job.h"
#include "src/pipeline/rank_identity.h"
#include "src/pipeline/rank_plan.h"
#include "src/pipeline/run_folder.h"
#include "src/pipeline/trace_job.h"
#include "tests/unit/temp_dir.h"

namespace llmpo::pipeline {
namespace {
namespace fs = std::filesystem;
using Args = std::vector<std::string>;

LaunchSplit Split(const Args& argv, const std::string& setting = "auto") {
  auto split = SplitLauncher(argv, setting);
  EXPECT_TRUE(split.ok()) << (split.ok() ? "" : split.error().Render());
  EXPECT_TRUE(split.ok() && split->has_value());
  return split.ok() && split->has_value() ? **split : LaunchSplit{};
}

TEST(LauncherSplit, MpirunOptionsWithValuesFlagsAndPairs) {
  const auto s = Split({"mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "4", "-x", "FOO", "--mca", "btl",
                        "self", "--map-by=slot", "./app", "-np", "9"});
  EXPECT_EQ(s.innermost(), LauncherKind::kMpirun);
  EXPECT_EQ(s.program, (Args{"./app", "-np", "9"}));
  EXPECT_EQ(s.launcher.size(), 11u);
}

TEST(LauncherSplit, SrunShortOptionsAndNestedTorchrun) {
  const auto s = Split({"srun", "-N2", "-n", "2", "-O", "--export=ALL", "torchrun", "--nnodes=2",
                        "--nproc_per_node", "2", "--no_python", "./train", "--lr", "1"});
  EXPECT_EQ(s.chain, (std::vector<LauncherKind>{LauncherKind::kSrun, LauncherKind::kTorchrun}));
  EXPECT_EQ(s.innermost(), LauncherKind::kTorchrun);
  EXPECT_EQ(s.program, (Args{"./train", "--lr", "1"}));
  EXPECT_TRUE(s.note.empty());  // --no_python was there already
}

TEST(LauncherSplit, TorchrunScriptGetsNoPythonAndItsInterpreter) {
  const auto s = Split({"/usr/bin/python3", "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=4",
                        "train.py", "--epochs", "1"});
  EXPECT_EQ(s.launcher, (Args{"/usr/bin/python3", "-m", "torch.distributed.run", "--no_python", "--standalone",
                              "--nproc_per_node=4"}));
  EXPECT_EQ(s.program, (Args{"/usr/bin/python3", "-u", "train.py", "--epochs", "1"}));
  EXPECT_FALSE(s.note.empty());
  const auto m = Split({"/usr/bin/python3", "-m", "torch.distributed.run", "-m", "pkg.train", "--x"});
  EXPECT_EQ(m.program, (Args{"/usr/bin/python3", "-u", "-m", "pkg.train", "--x"}));
}

TEST(LauncherSplit, NoneOrNoLauncherLeavesTheCommand) {
  auto none = SplitLauncher({"mpirun", "-np", "2", "./app"}, "none");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  auto plain = SplitLauncher({"./app", "-np", "2"}, "auto");
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->has_value());
  // A site's wrapper taken for mpirun by pipeline.launcher.
  EXPECT_EQ(Split({"site-mpi", "-np", "2", "./app"}, "mpirun").program, (Args{"./app"}));
}

TEST(LauncherSplit, ALauncherWithNoProgramIsAUsageErrorWithTheFix) {
  auto split = SplitLauncher({"mpirun", "-np", "4"}, "auto");
  ASSERT_FALSE(split.ok());
  EXPECT_EQ(split.error().kind, ExitStatus::kUsage);
  EXPECT_NE(split.error().Render().find("pipeline.launcher=none"), std::string::npos) << split.error().Render();
}

RankIdentity Identity(const std::map<std::string, std::string>& env) {
  return IdentityFromEnv(
      [&](const char* name) -> const char* {
        auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
      },
      "host1");
}

TEST(RankIdentityFromEnv, TheTrapsOfTheReference) {
  // mpirun inside sbatch: every rank inherits SLURM_PROCID=0.
  auto mpi = Identity({{"SLURM_PROCID", "0"}, {"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "2"},
                       {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}, {"SLURM_NTASKS", "1"}});
  EXPECT_EQ(mpi.rank, 1);
  EXPECT_EQ(mpi.rank_from, "OMPI_COMM_WORLD_RANK");
  EXPECT_EQ(mpi.world_size, 2);
  EXPECT_EQ(mpi.variables.at("SLURM_PROCID"), "0");  // kept, raw
  // srun ... torchrun: two workers share the agent's SLURM_PROCID.
  auto torch = Identity({{"SLURM_PROCID", "1"}, {"RANK", "3"}, {"LOCAL_RANK", "1"}, {"WORLD_SIZE", "4"},
                         {"GROUP_RANK", "1"}, {"SLURMD_NODENAME", "n2"}, {"CUDA_VISIBLE_DEVICES", "0,1"}});
  EXPECT_EQ(torch.rank, 3);
  EXPECT_EQ(torch.local_rank, 1);
  EXPECT_EQ(torch.node, "n2");
  EXPECT_EQ(torch.cuda_visible_devices, "0,1");
  EXPECT_EQ(ExpandRank("run.rank{rank}", torch), "run.rank3");
  // srun --mpi=pmix: no OMPI_* variable.
  EXPECT_EQ(Identity({{"PMIX_RANK", "2"}, {"SLURM_PROCID", "2"}}).rank_from, "PMIX_RANK");
  const auto none = Identity({});
  EXPECT_FALSE(none.rank.has_value());
  EXPECT_EQ(none.Label(), "rank-unknown");
}

RankRecord Record(std::int64_t rank, std::optional<int> code, std::optional<int> sig, bool outside, double end) {
  RankRecord r;
  r.who.rank = rank;
  r.who.world_size = 4;
  r.finished = true;
  r.exit_code = code;
  r.signal = sig;
  r.stopped_from_outside = outside;
  r.end_unix_s = end;
  return r;
}

TEST(RankProblems, FailedRankFirstThenStoppedOnesMissingAndDuplicates) {
  const std::vector<RankRecord> failed = {Record(0, std::nullopt, 15, true, 5), Record(1, 3, std::nullopt, false, 4),
                                          Record(2, 0, std::nullopt, false, 1)};
  const std::string p = RankProblems(failed, false);
  EXPECT_NE(p.find("rank 1 exited with 3 (first)"), std::string::npos) << p;
  EXPECT_NE(p.find("rank(s) 0 stopped by a signal from outside"), std::string::npos) << p;
  EXPECT_NE(p.find("rank(s) 3 of the world size left no record"), std::string::npos) << p;
  const std::string hung = RankProblems({Record(0, 0, std::nullopt, false, 1), Record(1, 0, std::nullopt, false, 1),
                                         Record(2, std::nullopt, 15, true, 9), Record(3, 0, std::nullopt, false, 1)},
                                        true);
  EXPECT_NE(hung.find("rank(s) 2 still running at the step timeout"), std::string::npos) << hung;
  EXPECT_EQ(hung.find("exited"), std::string::npos) << hung;
  const std::string dup = RankProblems({Record(0, 0, std::nullopt, false, 1), Record(0, 0, std::nullopt, false, 1)},
                                       false);
  EXPECT_NE(dup.find("rank(s) 0 claimed by two or more"), std::string::npos) << dup;
  EXPECT_EQ(RankProblems({Record(0, 0, std::nullopt, false, 1), Record(1, 0, std::nullopt, false, 1),
                          Record(2, 0, std::nullopt, false, 1), Record(3, 0, std::nullopt, false, 1)},
                         false),
            "");
  // The record round-trips.
  RankRecord r = Record(2, 0, std::nullopt, false, 7);
  r.who.variables["RANK"] = "2";
  auto back = ParseRankRecord(RankRecordJson(r), "x");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->who.rank, 2);
  EXPECT_EQ(back->exit_code, 0);
  EXPECT_EQ(back->who.variables.at("RANK"), "2");
}

CommandContext LaunchContext(const fs::path& run_dir) {
  CommandContext ctx;
  ctx.run_dir = run_dir;
  ctx.self = "/opt/llmpo/llm-perf-opt";
  ctx.tracer_library = "/opt/llmpo/libllmpo_tracer.so";
  ctx.launch = Split({"mpirun", "-np", "4", "./app", "--steps", "3"});
  ctx.workload = {"mpirun", "-np", "4", "./app", "--steps", "3"};
  return ctx;
}

// The argv after rank-exec's `--`.
Args AfterDashes(const Args& argv) {
  auto it = std::find(argv.begin(), argv.end(), "--");
  return it == argv.end() ? Args{} : Args(it + 1, argv.end());
}

TEST(PerRankPlan, NsysAndNcuGoInsideTheLauncherNamedByRank) {
  ProfileOptions o;
  o.nsys.enable = true;
  o.ncu.enable = true;
  o.ncu.ranks = std::vector<std::int64_t>{0, 2};
  const auto plan = PlanProfile(o, LaunchContext("/runs/r1"));
  std::map<std::string, PlannedCommand> by_step;
  for (const auto& cmd : plan) by_step[cmd.step] = cmd;
  const PlannedCommand& nsys = by_step.at("nsys");
  EXPECT_TRUE(nsys.per_rank);
  EXPECT_EQ(Args(nsys.argv.begin(), nsys.argv.begin() + 3), (Args{"mpirun", "-np", "4"}));
  EXPECT_EQ(nsys.argv[3], "/opt/llmpo/llm-perf-opt");
  EXPECT_EQ(nsys.argv[4], "rank-exec");
  const Args nsys_tool = AfterDashes(nsys.argv);
  EXPECT_EQ(nsys_tool[0], "nsys");
  EXPECT_NE(std::find(nsys_tool.begin(), nsys_tool.end(), "--output=/runs/r1/nsys/run.rank{rank}"), nsys_tool.end());
  EXPECT_EQ(Args(nsys_tool.end() - 3, nsys_tool.end()), (Args{"./app", "--steps", "3"}));
  const PlannedCommand& ncu = by_step.at("ncu");
  const auto ranks = std::find(ncu.argv.begin(), ncu.argv.end(), "--ranks");
  ASSERT_NE(ranks, ncu.argv.end());
  EXPECT_EQ(*(ranks + 1), "0,2");
  const Args ncu_tool = AfterDashes(ncu.argv);
  EXPECT_NE(std::find(ncu_tool.begin(), ncu_tool.end(), "/runs/r1/ncu/profile.rank{rank}"), ncu_tool.end());
  // rank-exec drops exactly the profiler's arguments on the ranks not chosen.
  const auto count = std::find(ncu.argv.begin(), ncu.argv.end(), "--profiler-args");
  EXPECT_EQ(std::stoul(*(count + 1)), ncu_tool.size() - 3);
  EXPECT_EQ(by_step.at("ncu-export-details").stdout_to, "ncu/details.rank{rank}.csv");
  EXPECT_FALSE(by_step.at("nsys-export").per_rank);
}

// Where `part` occurs in `whole` as a contiguous run.
bool Contains(const Args& whole, const Args& part) {
  return std::search(whole.begin(), whole.end(), part.begin(), part.end()) != whole.end();
}

TEST(PerRankPlan, NcuOnSeveralRanksRunsInLockstep) {
  const Args lockstep = {"--communicator", "tcp", "--communicator-tcp-num-peers", "{ncu_peers}",
                         "--lockstep-kernel-launch"};
  auto ncu_tool = [](const ProfileOptions& o) {
    for (const auto& cmd : PlanProfile(o, LaunchContext("/runs/r1"))) {
      if (cmd.step == "ncu") return AfterDashes(cmd.argv);
    }
    return Args{};
  };
  ProfileOptions o;
  o.ncu.enable = true;
  EXPECT_FALSE(Contains(ncu_tool(o), {"--communicator"})) << "the default, rank 0 alone";
  o.ncu.ranks = std::vector<std::int64_t>{0, 2};
  const Args two = ncu_tool(o);
  EXPECT_TRUE(Contains(two, lockstep));
  EXPECT_EQ(Args(two.end() - 3, two.end()), (Args{"./app", "--steps", "3"})) << "before the program";
  o.ncu.communicator_host = "node1";
  EXPECT_TRUE(Contains(ncu_tool(o), {"--lockstep-kernel-launch", "--communicator-tcp-hostname", "node1"}));
  o.ncu.lockstep = false;
  EXPECT_FALSE(Contains(ncu_tool(o), {"--communicator"}));
  o.ncu.lockstep = true;
  o.ncu.ranks = std::vector<std::int64_t>{3};
  EXPECT_TRUE(Contains(ncu_tool(o), lockstep)) << "asked for explicitly";
}

TEST(PerRankPlan, LockstepSettingIsTrueFalseOrAuto) {
  auto read = [](const char* json) { return ReadProfileOptions(config::Node::parse(json)); };
  auto o = read(R"({"pipeline": {"ncu": {"lockstep": "auto", "communicator_host": "n1"}}})");
  ASSERT_TRUE(o.ok());
  EXPECT_FALSE(o->ncu.lockstep.has_value());
  EXPECT_EQ(o->ncu.communicator_host, "n1");
  o = read(R"({"pipeline": {"ncu": {"lockstep": false}}})");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->ncu.lockstep, false);
  o = read(R"({"pipeline": {"ncu": {"lockstep": "yes"}}})");
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.error().kind, ExitStatus::kUsage);
  EXPECT_NE(o.error().message.find("pipeline.ncu.lockstep=yes is not valid"), std::string::npos) << o.error().message;
}

TEST(PerRankPlan, RankExecCountsTheLockstepPeers) {
  RankIdentity who;
  who.rank = 2;
  EXPECT_EQ(ExpandNcuPeers("{ncu_peers}", "0,2,5", who), "3");
  EXPECT_EQ(ExpandNcuPeers("{ncu_peers}", "all", who), "1") << "no world size: no peer to wait for";
  who.world_size = 8;
  EXPECT_EQ(ExpandNcuPeers("{ncu_peers}", "all", who), "8");
  EXPECT_EQ(ExpandNcuPeers("--lockstep-kernel-launch", "all", who), "--lockstep-kernel-launch");
}

TEST(PerRankPlan, TheTracerGetsItsVariablesInsideEachRank) {
  ProfileOptions o;
  o.trace = true;
  const auto plan = PlanProfile(o, LaunchContext("/runs/r1"));
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_TRUE(plan[0].env.empty());  // never on the launcher itself
  const Args& argv = plan[0].argv;
  EXPECT_NE(std::find(argv.begin(), argv.end(), "LLMPO_TRACE_FILE=/runs/r1/trace/trace.rank{rank}.%p.tsv"),
            argv.end());
  EXPECT_EQ(AfterDashes(argv), (Args{"./app", "--steps", "3"}));
}

// Plays the launcher: runs "rank-exec" for ranks 0-3 in-process, each
// leaving its trace (a hand-made fixture) and its record; rank 1 fails.
class FakeLauncher final : public ProcessRunner {
 public:
  Result<ProcessResult> Run(const StepSpec& spec) override {
    specs.push_back(spec);
    std::string record_dir, pattern;
    for (std::size_t i = 0; i + 1 < spec.argv.size(); ++i) {
      if (spec.argv[i] == "--record") record_dir = spec.argv[i + 1];
      if (spec.argv[i + 1].starts_with("LLMPO_TRACE_FILE=")) pattern = spec.argv[i + 1].substr(17);
    }
    fs::create_directories(record_dir);
    for (int rank = 0; rank < 4; ++rank) {
      RankRecord r;
      r.step = "trace";
      r.who = IdentityFromEnv([&](const char* name) -> const char* {
        static const std::string size = "4";
        thread_local std::string value;
        if (std::string(name) == "OMPI_COMM_WORLD_RANK") return (value = std::to_string(rank)).c_str();
        return std::string(name) == "OMPI_COMM_WORLD_SIZE" ? size.c_str() : nullptr;
      }, "host1");
      r.finished = true;
      r.exit_code = rank == 1 ? 3 : 0;
      r.end_unix_s = rank == 1 ? 1 : 2;
      std::ofstream(fs::path(record_dir) / ("trace." + r.who.Label() + ".json")) << RankRecordJson(r);
      std::string file = ExpandRank(pattern, r.who);
      file.replace(file.find("%p"), 2, std::to_string(100 + rank));
      fs::copy_file(fs::path(LLMPO_SOURCE_DIR) / "tests/fixtures/handmade/llmpo_trace_gpu.tsv", file);
    }
    return ProcessResult{3, 0.5, false, 0};
  }
  std::vector<StepSpec> specs;
};

TEST(PerRankRun, AFailingRankIsNamedAndTheOtherRanksTracesAreKept) {
  testing::TempDir tmp;
  tmp.Write("lib/libllmpo_tracer.so", "");
  auto run = RunFolder::Create(tmp.path() / "run", {"llm-perf-opt", "trace"});
  ASSERT_TRUE(run.ok());
  tmp.Write("run/inputs.yaml", "workload:\n  argv: [mpirun, -np, '4', ./app]\n");
  tmp.Write("run/config.yaml", "pipeline: {}\n");
  FakeLauncher fake;
  ExecuteOptions options;
  options.runner = &fake;
  const Args workload = {"mpirun", "-np", "4", "./app"};
  const auto outcome = RunTrace(*run, workload, tmp.path() / "lib/libllmpo_tracer.so", RegionOptions{}, options,
                                Split(workload));
  EXPECT_EQ(outcome.status, RunStatus::kPartial) << outcome.reason;
  EXPECT_EQ(outcome.exit, ExitStatus::kToolFailed);
  EXPECT_NE(outcome.reason.find("rank 1 exited with 3 (first)"), std::string::npos) << outcome.reason;
  EXPECT_NE(outcome.reason.find("4 rank(s) ran (0, 1, 2, 3)"), std::string::npos) << outcome.reason;
  ASSERT_EQ(fake.specs.size(), 1u);
  EXPECT_EQ(fake.specs[0].argv.front(), "mpirun");
  for (int rank = 0; rank < 4; ++rank) {
    EXPECT_TRUE(fs::exists(run->dir() / "trace" / ("trace.rank" + std::to_string(rank) + "." +
                                                   std::to_string(100 + rank) + ".tsv")));
  }
  EXPECT_TRUE(fs::exists(run->dir() / "kernels.json"));  // every rank's trace reported
}

}  // namespace
}  // namespace llmpo::pipeline
