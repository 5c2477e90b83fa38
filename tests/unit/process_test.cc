// RunStep: output lines while the program runs, the timeout, and the
// forwarded stop signal reaching the program's whole process group.
#include "src/pipeline/process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "tests/unit/temp_dir.h"

namespace llmpo::pipeline {
namespace {

StepSpec Shell(const testing::TempDir& dir, const std::string& script) {
  StepSpec spec;
  spec.argv = {"/bin/sh", "-c", script};
  spec.stdout_file = dir.path() / "out.log";
  spec.stderr_file = dir.path() / "err.log";
  return spec;
}

std::string Slurp(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(RunStepTest, ReportsLinesFromBothStreamsAndTheExitCode) {
  testing::TempDir dir;
  StepSpec spec = Shell(dir, "echo one; echo two >&2; printf three; exit 3");
  std::vector<std::string> lines;
  spec.on_line = [&](std::string_view line) { lines.emplace_back(line); };
  auto result = RunStep(spec);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->exit_code, 3);
  EXPECT_FALSE(result->timed_out);
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<std::string>{"one", "three", "two"}));
  EXPECT_EQ(Slurp(dir.path() / "out.log"), "one\nthree");
  EXPECT_EQ(Slurp(dir.path() / "err.log"), "two\n");
}

TEST(RunStepTest, SeesLinesBeforeTheProgramEnds) {
  testing::TempDir dir;
  // The program waits until the runner has seen its first line: a file the
  // callback creates.
  const auto flag = dir.path() / "seen";
  StepSpec spec = Shell(dir, "echo ready; i=0; while [ ! -e '" + flag.string() +
                                 "' ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; "
                                 "[ -e '" +
                                 flag.string() + "' ]");
  spec.on_line = [&](std::string_view line) {
    if (line == "ready") std::ofstream(flag) << "x";
  };
  auto result = RunStep(spec);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->exit_code, 0) << "the line was only seen after the program ended";
}

TEST(RunStepTest, TimeoutStopsTheWholeGroup) {
  testing::TempDir dir;
  // A grandchild in the background: SIGTERM to the group must end it too.
  const auto pid_file = dir.path() / "grandchild.pid";
  StepSpec spec = Shell(dir, "sleep 30 & echo $! > '" + pid_file.string() + "'; sleep 30; wait");
  // Long enough for a shell on a loaded machine to start the grandchild and
  // write its pid before the timeout (0.3 s was not, under load).
  spec.timeout_s = 2.0;
  auto result = RunStep(spec);
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result->timed_out);
  EXPECT_EQ(result->exit_code, 128 + SIGTERM);
  EXPECT_LT(result->duration_s, 15.0);
  ASSERT_FALSE(Slurp(pid_file).empty()) << "the shell wrote no grandchild pid before the timeout";
  const pid_t grandchild = std::stoi(Slurp(pid_file));
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    gone = kill(grandchild, 0) != 0;
    if (!gone) usleep(20000);
  }
  EXPECT_TRUE(gone) << "the background sleep outlived the timeout";
}

TEST(RunStepTest, KillsAfterTheGraceWhenTermIsIgnored) {
  testing::TempDir dir;
  StepSpec spec = Shell(dir, "trap '' TERM; sleep 30");
  spec.timeout_s = 0.2;
  spec.kill_grace_s = 0.3;
  auto result = RunStep(spec);
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result->timed_out);
  EXPECT_LT(result->duration_s, 5.0);
}

TEST(RunStepTest, ForwardsTheStopSignal) {
  testing::TempDir dir;
  std::atomic<int> stop{0};
  // exec: no shell in between whose own SIGINT handling could race the
  // forwarded signal (it made this test take the 5 s kill path under load).
  StepSpec spec = Shell(dir, "echo started; exec sleep 30");
  spec.stop_signal = &stop;
  spec.on_line = [&](std::string_view line) {
    if (line == "started") stop = SIGINT;
  };
  auto result = RunStep(spec);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->forwarded_signal, SIGINT);
  EXPECT_FALSE(result->timed_out);
  EXPECT_LT(result->duration_s, 5.0);
}

TEST(RunStepTest, MissingProgramIsToolMissing) {
  testing::TempDir dir;
  StepSpec spec = Shell(dir, "");
  spec.argv = {"llmpo-no-such-program-xyz"};
  auto result = RunStep(spec);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().kind, ExitStatus::kToolMissing);
  EXPECT_NE(result.error().message.find("llmpo-no-such-program-xyz"), std::string::npos);
}

}  // namespace
}  // namespace llmpo::pipeline
