// The probe's parsers on ncu 2022.3's own --help and --list-sections text,
// and the choices the command builders make from a probe.
#include "src/pipeline/tool_probe.h"

#include <gtest/gtest.h>

#include "src/core/atomic_file.h"
#include "src/pipeline/commands.h"
#include "src/pipeline/run_folder.h"
#include "tests/unit/temp_dir.h"

namespace llmpo::pipeline {
namespace {

constexpr const char* kHelp2022 = R"(usage: ncu [options] [program] [program-arguments]

General Options:
  -h [ --help ]                         Print this help message.
  -v [ --version ]                      Print the version number.
  --mode arg (=launch-and-attach)       Select the mode of interaction with the target application:
  --nvtx                                Enable NVTX support.
  --replay-mode arg (=kernel)           Mechanism used for replaying a kernel launch multiple times to collect all
                                          kernel (default)
                                          application
                                          range
  -k [ --kernel-name ] arg              Filter the kernel in one of the following ways:
)";

constexpr const char* kSections2022 = R"(--------------------------------- ------------------------------- ------- ----------
Identifier                        Display Name                    Enabled Filename
--------------------------------- ------------------------------- ------- ----------
ComputeWorkloadAnalysis           Compute Workload Analysis       no      ...ComputeWorkloadAnalysis.section
SpeedOfLight                      GPU Speed Of Light Throughput   yes     ...SpeedOfLight.section
)";

InstalledTools Ncu2022() {
  InstalledTools tools;
  tools.ncu = ToolInfo{"/usr/bin/ncu", "Version 2022.3.0.0 (build 31729285) (public-release)", ToolVersion{2022, 3},
                       LongOptions(kHelp2022), false, SectionIds(kSections2022)};
  tools.nsys = ToolInfo{"/usr/bin/nsys", "NVIDIA Nsight Systems version 2022.4.2.1-df9881f", ToolVersion{2022, 4}};
  return tools;
}

TEST(ToolProbe, ParsesNcuHelpAndSections) {
  const auto options = LongOptions(kHelp2022);
  EXPECT_TRUE(options.count("--help"));
  EXPECT_TRUE(options.count("--kernel-name"));
  EXPECT_TRUE(options.count("--replay-mode"));
  EXPECT_FALSE(options.count("--config-file"));
  EXPECT_EQ(SectionIds(kSections2022), (std::set<std::string>{"ComputeWorkloadAnalysis", "SpeedOfLight"}));
}

TEST(ToolProbe, CommandsForNcu2022AndNsys2022) {
  const InstalledTools tools = Ncu2022();
  NcuOptions o;
  o.enable = true;
  o.replay_mode = "range";
  o.sections = {"SpeedOfLight", "WorkloadDistribution"};
  o.metrics = {"gpu__time_duration.sum", "sm__sass_thread_inst_executed_op_ffma_pred_on.sum"};
  CommandContext ctx{"/run", {"./app"}, std::nullopt, {}, std::nullopt, &tools};
  const Argv ncu = BuildNcuCommand(o, ctx);
  EXPECT_EQ(ShellQuote(ncu),
            "ncu --replay-mode range --section SpeedOfLight --metrics gpu__time_duration.sum --nvtx "
            "--export /run/ncu/profile --force-overwrite ./app");
  const auto exports = BuildNcuExports(o, ctx);
  EXPECT_EQ(ShellQuote(exports[0].argv), "ncu --import /run/ncu/profile.ncu-rep --csv --page details --print-units base");
  EXPECT_EQ(BuildNsysPostprocessing(ctx)[0].argv[3], "gpukernsum");
  ProfileOptions options;
  options.ncu = o;
  EXPECT_EQ(AdaptationNotes(options, tools).size(), 2u);
  // Without a probe (nothing installed, or --dry-run elsewhere): the newest grammar.
  CommandContext newest{"/run", {"./app"}, std::nullopt, {}, std::nullopt, nullptr};
  EXPECT_EQ(BuildNcuCommand(o, newest)[1], "--config-file");
  EXPECT_EQ(BuildNsysPostprocessing(newest)[0].argv[3], "cuda_gpu_kern_sum");
}

TEST(ToolProbe, RefusesWhatNcu2022CannotDoNamingTheVersion) {
  ProfileOptions o;
  o.ncu.enable = true;
  o.ncu.replay_mode = "app-range";
  o.ncu.graph_profiling = "graph";
  const auto refused = CheckInstalledTools(o, Ncu2022());
  ASSERT_EQ(refused.size(), 2u);
  EXPECT_EQ(refused[0].kind, ExitStatus::kToolMissing);
  EXPECT_EQ(refused[0].message,
            "ncu 2022.3 cannot do application-range replay (pipeline.ncu.ncu_cli.replay_mode=app-range); Nsight "
            "Compute 2023.1 or newer can");
  EXPECT_NE(refused[1].message.find("--graph-profiling"), std::string::npos);
  EXPECT_TRUE(CheckInstalledTools(o, InstalledTools{}).empty()) << "nothing probed: nothing refused";
}

TEST(ToolProbe, LockstepNeedsTheCommunicatorOption) {
  ProfileOptions o;
  o.ncu.enable = true;
  o.ncu.ranks = std::nullopt;  // all ranks: lockstep is on by default
  EXPECT_TRUE(CheckInstalledTools(o, Ncu2022()).empty()) << "auto: left out with a note, not refused";
  const auto notes = AdaptationNotes(o, Ncu2022());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rfind("lockstep left out: ncu 2022.3 has no --communicator", 0), 0u) << notes[0];
  o.ncu.lockstep = true;
  const auto refused = CheckInstalledTools(o, Ncu2022());
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused[0].kind, ExitStatus::kToolMissing);
  EXPECT_NE(refused[0].message.find("pipeline.ncu.lockstep=true"), std::string::npos) << refused[0].message;
  EXPECT_TRUE(AdaptationNotes(o, Ncu2022()).empty()) << "refused, so no note";
  o.ncu.ranks = std::vector<std::int64_t>{0};
  o.ncu.lockstep = std::nullopt;
  EXPECT_TRUE(AdaptationNotes(o, Ncu2022()).empty()) << "one rank: no lockstep wanted";
}

TEST(ToolProbe, RunJsonRecordsTheVersionsTheCommandsWereBuiltFor) {
  testing::TempDir tmp;
  auto run = RunFolder::Create(tmp.path() / "run", {"llm-perf-opt", "profile"});
  ASSERT_TRUE(run.ok());
  run->SetTools(ToolsJson(Ncu2022()));
  ASSERT_TRUE(run->WriteManifest(RunStatus::kOk).ok());
  auto text = ReadWholeFile(tmp.path() / "run" / "run.json");
  ASSERT_TRUE(text.ok());
  const auto json = nlohmann::json::parse(*text);
  EXPECT_EQ(json["tools"]["ncu"]["version"], "2022.3");
  EXPECT_EQ(json["tools"]["ncu"]["path"], "/usr/bin/ncu");
  EXPECT_EQ(json["tools"]["nsys"]["version_line"], "NVIDIA Nsight Systems version 2022.4.2.1-df9881f");
}

}  // namespace
}  // namespace llmpo::pipeline
