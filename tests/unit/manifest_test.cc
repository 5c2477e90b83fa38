#include "src/pipeline/manifest.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/unit/temp_dir.h"

namespace llmpo::pipeline {
namespace {

void Write(const std::filesystem::path& dir, const std::string& text) { std::ofstream(dir / "run.json") << text; }

TEST(Manifest, StepsAndArtifactsAreTyped) {
  testing::TempDir dir;
  Write(dir.path(), R"({"schema_version": "1.0.0", "status": "partial",
    "steps": [{"name": "ncu-profile", "status": "failed", "reason": "no kernels", "exit_code": 9, "argv": ["ncu", "-o"]},
              {"name": "trace-reports", "status": "ok", "exit_code": null}],
    "artifacts": [{"path": "ncu/ncu.log", "bytes": 10}]})");
  auto m = ReadManifest(dir.path());
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->status, RunStatus::kPartial);
  ASSERT_EQ(m->steps.size(), 2u);
  EXPECT_EQ(m->steps[0].exit_code, 9);
  EXPECT_EQ(m->steps[0].argv, (std::vector<std::string>{"ncu", "-o"}));
  EXPECT_FALSE(m->steps[1].exit_code.has_value());
  EXPECT_FALSE(m->Succeeded("ncu-profile"));
  EXPECT_TRUE(m->Succeeded("trace-reports"));
  EXPECT_EQ(m->artifacts, (std::vector<std::string>{"ncu/ncu.log"}));
}

TEST(Manifest, AStepIsFoundByItsNameNotByTextInAReason) {
  testing::TempDir dir;
  // The old check searched the file's text for "name": "trace-reports".
  Write(dir.path(), R"({"status": "failed", "steps": [{"name": "ncu-profile", "status": "failed",
    "reason": "\"name\": \"trace-reports\""}]})");
  auto m = ReadManifest(dir.path());
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->Step("trace-reports"), nullptr);
  EXPECT_FALSE(m->Succeeded("trace-reports"));
}

TEST(Manifest, WrongTypesAreInputErrorsNamingTheField) {
  testing::TempDir dir;
  Write(dir.path(), R"({"status": "ok", "steps": [{"name": "x", "status": "ok", "exit_code": "nine"}]})");
  auto m = ReadManifest(dir.path());
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind, ExitStatus::kInput);
  EXPECT_NE(m.error().message.find("exit_code"), std::string::npos);
  Write(dir.path(), "[1, 2");
  EXPECT_FALSE(ReadManifest(dir.path()).ok());
}

// Statuses are typed: a status run.json cannot hold is refused, named.
TEST(Manifest, AnUnknownStatusIsAnInputErrorNamingIt) {
  testing::TempDir dir;
  Write(dir.path(), R"({"status": "ok", "steps": [{"name": "ncu", "status": "done"}]})");
  auto m = ReadManifest(dir.path());
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind, ExitStatus::kInput);
  EXPECT_NE(m.error().message.find("step 'ncu': status 'done'"), std::string::npos) << m.error().message;
  Write(dir.path(), R"({"status": "finished", "steps": []})");
  m = ReadManifest(dir.path());
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("status 'finished'"), std::string::npos) << m.error().message;
}

}  // namespace
}  // namespace llmpo::pipeline
