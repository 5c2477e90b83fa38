// The orchestration through its process seam: an in-process fake stands in
// for the traced program and records what it was asked to run, so the step
// records, the manifest and the reports are checked without starting anything.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "src/core/atomic_file.h"
#include "src/pipeline/manifest.h"
#include "src/pipeline/process.h"
#include "src/pipeline/profile_job.h"
#include "src/pipeline/run_folder.h"
#include "src/pipeline/trace_job.h"
#include "tests/unit/temp_dir.h"

namespace llmpo::pipeline {
namespace {
namespace fs = std::filesystem;

// Answers each Run with `behaviour` and keeps the specs it got.
class FakeRunner final : public ProcessRunner {
 public:
  explicit FakeRunner(std::function<ProcessResult(const StepSpec&)> behaviour) : behaviour_(std::move(behaviour)) {}
  Result<ProcessResult> Run(const StepSpec& spec) override {
    specs.push_back(spec);
    if (spec.on_line) spec.on_line("fake output line");
    return behaviour_(spec);
  }
  std::vector<StepSpec> specs;

 private:
  std::function<ProcessResult(const StepSpec&)> behaviour_;
};

// What the tracer would leave: a GPU trace of one process (a hand-made fixture).
void WriteTrace(const StepSpec& spec) {
  std::string pattern;
  for (const auto& e : spec.env) {
    if (e.rfind("LLMPO_TRACE_FILE=", 0) == 0) pattern = e.substr(17);
  }
  ASSERT_NE(pattern.find("%p"), std::string::npos) << pattern;
  const fs::path file = pattern.replace(pattern.find("%p"), 2, "100");
  fs::copy_file(fs::path(LLMPO_SOURCE_DIR) / "tests/fixtures/handmade/llmpo_trace_gpu.tsv", file);
}

RunManifest Manifest(const fs::path& dir) {
  auto m = ReadManifest(dir);
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().Render());
  return m.ok() ? *m : RunManifest{};
}

// The tracer library must exist for the step to run; the fake never loads it.
fs::path FakeLibrary(const testing::TempDir& tmp) {
  tmp.Write("lib/libllmpo_tracer.so", "");
  return tmp.path() / "lib/libllmpo_tracer.so";
}

// The run's provenance files, which the reports read (a run writes them first).
void WriteProvenance(const testing::TempDir& tmp) {
  tmp.Write("run/inputs.yaml", "workload:\n  argv: [./infer]\n");
  tmp.Write("run/config.yaml", "pipeline: {}\n");
}

TEST(TraceThroughRunner, AProgramThatSucceedsGivesReportsAndOkSteps) {
  testing::TempDir tmp;
  const fs::path lib = FakeLibrary(tmp);
  auto run = RunFolder::Create(tmp.path() / "run", {"llm-perf-opt", "trace"});
  ASSERT_TRUE(run.ok());
  WriteProvenance(tmp);
  FakeRunner fake([](const StepSpec& spec) {
    WriteTrace(spec);
    return ProcessResult{0, 1.5, false, 0};
  });
  ExecuteOptions options;
  options.runner = &fake;
  const auto outcome = RunTrace(*run, {"./infer", "--steps", "2"}, lib, RegionOptions{}, options);
  EXPECT_EQ(outcome.status, RunStatus::kOk) << outcome.reason;
  EXPECT_EQ(outcome.exit, ExitStatus::kOk);

  ASSERT_EQ(fake.specs.size(), 1u);
  // The program itself is started, with the tracer's variables; the step
  // records the command as `env VARS... PROGRAM`, as cmd.txt shows it.
  EXPECT_EQ(fake.specs[0].argv, (std::vector<std::string>{"./infer", "--steps", "2"}));
  const auto& env = fake.specs[0].env;
  EXPECT_NE(std::find(env.begin(), env.end(), "CUDA_INJECTION64_PATH=" + lib.string()), env.end());
  ASSERT_TRUE(run->WriteManifest(RunStatus::kOk).ok());
  const RunManifest m = Manifest(run->dir());
  ASSERT_NE(m.Step("trace"), nullptr);
  EXPECT_EQ(m.Step("trace")->argv.front(), "env");
  EXPECT_EQ(m.Step("trace")->exit_code, 0);
  EXPECT_TRUE(m.Succeeded("trace-summaries"));
  EXPECT_TRUE(m.Succeeded("report"));
  EXPECT_TRUE(fs::exists(run->dir() / "kernels.json"));
  EXPECT_TRUE(fs::exists(run->dir() / "trace" / "trace.json"));
  EXPECT_TRUE(fs::exists(run->dir() / "trace" / "regions" / "report.json"));
}

TEST(TraceThroughRunner, AFailingProgramStillGetsItsTraceReported) {
  testing::TempDir tmp;
  const fs::path lib = FakeLibrary(tmp);
  auto run = RunFolder::Create(tmp.path() / "run", {});
  ASSERT_TRUE(run.ok());
  WriteProvenance(tmp);
  FakeRunner fake([](const StepSpec& spec) {
    WriteTrace(spec);
    return ProcessResult{3, 0.2, false, 0};
  });
  ExecuteOptions options;
  options.runner = &fake;
  const auto outcome = RunTrace(*run, {"./infer"}, lib, RegionOptions{}, options);
  EXPECT_EQ(outcome.status, RunStatus::kPartial);
  EXPECT_EQ(outcome.exit, ExitStatus::kToolFailed);
  EXPECT_NE(outcome.reason.find("exited with 3"), std::string::npos) << outcome.reason;
  EXPECT_TRUE(fs::exists(run->dir() / "kernels.json"));  // what was traced is kept
}

TEST(TraceThroughRunner, ATimeoutIsNamedWithItsKey) {
  testing::TempDir tmp;
  const fs::path lib = FakeLibrary(tmp);
  auto run = RunFolder::Create(tmp.path() / "run", {});
  ASSERT_TRUE(run.ok());
  WriteProvenance(tmp);
  FakeRunner fake([](const StepSpec&) { return ProcessResult{128 + 15, 30, true, 0}; });
  ExecuteOptions options;
  options.runner = &fake;
  options.step_timeout_s = 30;
  const auto outcome = RunTrace(*run, {"./infer"}, lib, RegionOptions{}, options);
  EXPECT_EQ(fake.specs.at(0).timeout_s, 30);
  EXPECT_EQ(outcome.exit, ExitStatus::kToolFailed);
  EXPECT_NE(outcome.reason.find("pipeline.step_timeout_s"), std::string::npos) << outcome.reason;
}

TEST(TraceThroughRunner, AProgramThatCannotStartIsAFailureWithItsMessage) {
  testing::TempDir tmp;
  const fs::path lib = FakeLibrary(tmp);
  auto run = RunFolder::Create(tmp.path() / "run", {});
  ASSERT_TRUE(run.ok());
  WriteProvenance(tmp);
  class NoStart final : public ProcessRunner {
   public:
    Result<ProcessResult> Run(const StepSpec&) override {
      return MakeError(ExitStatus::kToolMissing, "./infer: No such file or directory");
    }
  } runner;
  ExecuteOptions options;
  options.runner = &runner;
  const auto outcome = RunTrace(*run, {"./infer"}, lib, RegionOptions{}, options);
  EXPECT_EQ(outcome.exit, ExitStatus::kToolMissing);
  EXPECT_NE(outcome.reason.find("No such file"), std::string::npos) << outcome.reason;
}

// A profile plan of ncu and its CSV export: the fake writes what ncu's export
// would print, and the run's kernel report is built from it.
TEST(ProfileThroughRunner, StepsRunInOrderAndTheExportFeedsTheReports) {
  testing::TempDir tmp;
  // The orchestration looks tools up on PATH before running them.
  tmp.Write("bin/ncu", "#!/bin/sh\nexit 99\n");
  fs::permissions(tmp.path() / "bin/ncu", fs::perms::owner_all);
  const std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  ::setenv("PATH", (tmp.path() / "bin").c_str(), 1);
  auto run = RunFolder::Create(tmp.path() / "run", {"llm-perf-opt", "profile"});
  ASSERT_TRUE(run.ok());
  // What `profile` writes before its steps: the workload and the composed config.
  tmp.Write("run/inputs.yaml", "workload:\n  argv: [./app]\n");
  tmp.Write("run/config.yaml", "pipeline: {}\n");
  const std::string details = (fs::path(LLMPO_SOURCE_DIR) / "tests/fixtures/handmade/ncu_details_2022.csv").string();
  FakeRunner fake([&](const StepSpec& spec) {
    if (std::find(spec.argv.begin(), spec.argv.end(), "--import") != spec.argv.end()) {
      fs::copy_file(details, spec.stdout_file, fs::copy_options::overwrite_existing);
    }
    return ProcessResult{0, 0.5, false, 0};
  });
  ExecuteOptions options;
  options.runner = &fake;
  const std::vector<PlannedCommand> plan = {
      {"ncu", {"ncu", "-o", "ncu/report", "./app"}, ""},
      {"ncu-export-details",
       {"ncu", "--import", "ncu/report.ncu-rep", "--csv", "--page", "details"},
       "ncu/details.csv"},
  };
  const auto outcome = ExecuteProfile(*run, plan, Workload{{"./app"}, false, true}, RegionOptions{}, options);
  ::setenv("PATH", old_path.c_str(), 1);

  EXPECT_EQ(outcome.status, RunStatus::kOk) << outcome.reason;
  ASSERT_EQ(fake.specs.size(), 2u);
  EXPECT_EQ(fake.specs[0].argv.front(), "ncu");
  EXPECT_EQ(fake.specs[1].stdout_file, run->dir() / "ncu/details.csv");
  ASSERT_TRUE(run->WriteManifest(RunStatus::kOk).ok());
  const RunManifest m = Manifest(run->dir());
  EXPECT_TRUE(m.Succeeded("ncu"));
  EXPECT_TRUE(m.Succeeded("ncu-export-details"));
  EXPECT_TRUE(m.Succeeded("report"));
  auto kernels = ReadWholeFile(run->dir() / "kernels.json");
  ASSERT_TRUE(kernels.ok());
  EXPECT_NE(kernels->find("\"kernels\""), std::string::npos);
}

TEST(ProfileThroughRunner, AFailedToolSkipsItsLaterStepsAndAsksItsVersion) {
  testing::TempDir tmp;
  tmp.Write("bin/ncu", "#!/bin/sh\nexit 99\n");
  fs::permissions(tmp.path() / "bin/ncu", fs::perms::owner_all);
  const std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  ::setenv("PATH", (tmp.path() / "bin").c_str(), 1);
  auto run = RunFolder::Create(tmp.path() / "run", {});
  ASSERT_TRUE(run.ok());
  FakeRunner fake([](const StepSpec& spec) {
    if (spec.argv.size() == 2 && spec.argv[1] == "--version") {
      std::ofstream(spec.stdout_file) << "NVIDIA (R) Nsight Compute Command Line Profiler\nVersion 2025.2.0.0\n";
      return ProcessResult{0, 0.1, false, 0};
    }
    return ProcessResult{1, 0.5, false, 0};
  });
  ExecuteOptions options;
  options.runner = &fake;
  const std::vector<PlannedCommand> plan = {
      {"ncu", {"ncu", "-o", "ncu/report", "./app"}, ""},
      {"ncu-export-details", {"ncu", "--import", "ncu/report.ncu-rep"}, "ncu/details.csv"},
  };
  const auto outcome = ExecuteProfile(*run, plan, Workload{{"./app"}, false, true}, RegionOptions{}, options);
  ::setenv("PATH", old_path.c_str(), 1);

  EXPECT_EQ(outcome.exit, ExitStatus::kToolFailed);
  EXPECT_NE(outcome.reason.find("ncu exited with 1"), std::string::npos) << outcome.reason;
  // ncu, then its --version (the failure asks whether it is too old); the export never runs.
  ASSERT_EQ(fake.specs.size(), 2u);
  EXPECT_EQ(fake.specs[1].argv, (std::vector<std::string>{"ncu", "--version"}));
  ASSERT_TRUE(run->WriteManifest(RunStatus::kFailed).ok());
  const RunManifest m = Manifest(run->dir());
  ASSERT_NE(m.Step("ncu-export-details"), nullptr);
  EXPECT_EQ(m.Step("ncu-export-details")->status, StepStatus::kSkipped);
}

}  // namespace
}  // namespace llmpo::pipeline
