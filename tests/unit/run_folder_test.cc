#include "src/pipeline/run_folder.h"

#include <gtest/gtest.h>

#include "src/core/atomic_file.h"
#include "tests/unit/temp_dir.h"

namespace llmpo::pipeline {
namespace {

TEST(RunFolder, ManifestListsStepsAndArtifacts) {
  testing::TempDir dir;
  auto run = RunFolder::Create(dir.path() / "r1", {"llm-perf-opt", "profile"});
  ASSERT_TRUE(run.ok()) << run.error().Render();
  ASSERT_TRUE(run->WriteArtifact("config.yaml", "a: 1\n").ok());
  ASSERT_TRUE(run->WriteArtifact("ncu/cmd.txt", "ncu ...\n").ok());
  StepRecord step;
  step.name = "ncu";
  step.status = StepStatus::kFailed;
  step.reason = "why";
  step.argv = {"ncu", "--version"};
  step.exit_code = 1;
  run->AddStep(step);
  ASSERT_TRUE(run->WriteManifest(RunStatus::kPartial, "because").ok());

  auto text = ReadWholeFile(dir.path() / "r1" / "run.json");
  ASSERT_TRUE(text.ok());
  const auto manifest = nlohmann::json::parse(*text);
  EXPECT_EQ(manifest["schema_version"], kRunSchemaVersion);
  EXPECT_EQ(manifest["status"], "partial");
  EXPECT_EQ(manifest["status_reason"], "because");
  EXPECT_FALSE(manifest["end_time"].is_null());
  EXPECT_EQ(manifest["steps"][0]["name"], "ncu");
  EXPECT_EQ(manifest["steps"][0]["exit_code"], 1);
  EXPECT_EQ(manifest["artifacts"][1]["path"], "ncu/cmd.txt");
  EXPECT_EQ(manifest["artifacts"][1]["bytes"], 8);
}

TEST(IsoTimestamp, UtcWithMilliseconds) {
  const auto t = std::chrono::system_clock::from_time_t(1700000000) + std::chrono::milliseconds(42);
  EXPECT_EQ(IsoTimestamp(t), "2023-11-14T22:13:20.042Z");
}

TEST(RunFolder, RunningManifestHasNoEndTime) {
  testing::TempDir dir;
  auto run = RunFolder::Create(dir.path() / "r", {});
  ASSERT_TRUE(run.ok());
  ASSERT_TRUE(run->WriteManifest(RunStatus::kRunning).ok());
  const auto manifest = nlohmann::json::parse(*ReadWholeFile(dir.path() / "r" / "run.json"));
  EXPECT_TRUE(manifest["end_time"].is_null());
  EXPECT_EQ(manifest["status"], "running");
}

TEST(RunFolder, RefusesAFolderThatHoldsARun) {
  testing::TempDir dir;
  dir.Write("old/run.json", "{}");
  auto run = RunFolder::Create(dir.path() / "old", {});
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.error().Render().find("hydra.run.dir"), std::string::npos);
}

}  // namespace
}  // namespace llmpo::pipeline
