// A step is ok only when its outputs are there and the tool reported no
// error (step_outputs.h), on the words nsys 2022.4 and ncu 2022.3 print.
#include "src/pipeline/step_outputs.h"

#include <gtest/gtest.h>

#include "tests/unit/temp_dir.h"

namespace llmpo::pipeline {
namespace {

namespace fs = std::filesystem;

TEST(StepOutputs, NsysStatsErrorWithExitZeroFailsQuotingNsys) {
  testing::TempDir tmp;
  tmp.Write("out.log", "");
  tmp.Write("err.log", "\nERROR: Report 'cuda_gpu_kern_sum' could not be found.\n\n");
  const std::string summary = (tmp.path() / "nsys" / "summary").string();
  PlannedCommand cmd{"nsys-stats", {"nsys", "stats", "--report", "cuda_gpu_kern_sum", "--output", summary, "r"}, ""};
  EXPECT_EQ(StepOutputProblem(cmd, tmp.path(), tmp.path() / "out.log", tmp.path() / "err.log"),
            "nsys stats: \"ERROR: Report 'cuda_gpu_kern_sum' could not be found.\"");
  // The same run with the CSV written and no error: ok.
  tmp.Write("err.log", "");
  tmp.Write("nsys/summary_cuda_gpu_kern_sum.csv", "Time (%),Total Time (ns),Instances,Name\n");
  EXPECT_EQ(StepOutputProblem(cmd, tmp.path(), tmp.path() / "out.log", tmp.path() / "err.log"), "");
}

TEST(StepOutputs, NsysStatsSkippedIsNotAFailure) {
  testing::TempDir tmp;
  tmp.Write("out.log", "SKIPPED: run.sqlite does not contain CUDA kernel data.\n");
  tmp.Write("err.log", "");
  PlannedCommand cmd{"nsys-stats", {"nsys", "stats", "--report", "gpukernsum", "--output", "/nowhere/s", "r"}, ""};
  EXPECT_EQ(StepOutputProblem(cmd, tmp.path(), tmp.path() / "out.log", tmp.path() / "err.log"), "");
}

TEST(StepOutputs, NcuThatProfiledNothingWroteNoReport) {
  testing::TempDir tmp;
  tmp.Write("out.log", "==PROF== Disconnected from process 1\n==WARNING== No kernels were profiled.\n");
  tmp.Write("err.log", "");
  PlannedCommand cmd{"ncu", {"ncu", "--export", (tmp.path() / "ncu" / "profile").string(), "./app"}, ""};
  const std::string problem = StepOutputProblem(cmd, tmp.path(), tmp.path() / "out.log", tmp.path() / "err.log");
  EXPECT_TRUE(problem.starts_with("ncu profiled no kernel and wrote no report")) << problem;
  tmp.Write("ncu/profile.ncu-rep", "NVR");
  EXPECT_EQ(StepOutputProblem(cmd, tmp.path(), tmp.path() / "out.log", tmp.path() / "err.log"), "");
}

TEST(StepOutputs, NcuImportOfAReportItCannotReadFails) {
  testing::TempDir tmp;
  tmp.Write("ncu/details.csv", "");
  tmp.Write("err.log",
            "[libprotobuf ERROR google/protobuf/message_lite.cc:122] Can't parse message of type "
            "\"NV.Profiler.Messages.ProfileResult\"\n");
  tmp.Write("out.log", "");
  PlannedCommand cmd{"ncu-export-details", {"ncu", "--import", "r.ncu-rep", "--csv"}, "ncu/details.csv"};
  const std::string problem = StepOutputProblem(cmd, tmp.path(), tmp.path() / "out.log", tmp.path() / "err.log");
  EXPECT_TRUE(problem.starts_with("ncu: \"[libprotobuf ERROR")) << problem;
}

TEST(StepOutputs, NsysWithOnlyTheRawCaptureFailsNamingTheImporter) {
  testing::TempDir tmp;
  tmp.Write("nsys/run.qdstrm", "raw");
  tmp.Write("out.log", "Importer error status: The importer binary and its dependencies were not found.\n");
  tmp.Write("err.log", "");
  const std::string base = (tmp.path() / "nsys" / "run").string();
  PlannedCommand cmd{"nsys", {"nsys", "profile", "--output=" + base, "./app"}, ""};
  const std::string problem = StepOutputProblem(cmd, tmp.path(), tmp.path() / "out.log", tmp.path() / "err.log");
  EXPECT_NE(problem.find("only the raw capture run.qdstrm"), std::string::npos) << problem;
  EXPECT_NE(problem.find("\"Importer error status"), std::string::npos) << problem;
}

TEST(StepOutputs, CaptureRangeEndingIsNormalOnlyWithAReport) {
  testing::TempDir tmp;
  const std::string base = (tmp.path() / "nsys" / "run").string();
  PlannedCommand cmd{"nsys", {"nsys", "profile", "--capture-range=nvtx", "--output=" + base, "./app"}, ""};
  EXPECT_FALSE(NormalEnding(cmd, 143)) << "no report yet";
  tmp.Write("nsys/run.nsys-rep", "report");
  EXPECT_TRUE(NormalEnding(cmd, 143));
  EXPECT_FALSE(NormalEnding(cmd, 1));
  PlannedCommand whole{"nsys", {"nsys", "profile", "--output=" + base, "./app"}, ""};
  EXPECT_FALSE(NormalEnding(whole, 143)) << "143 without a capture range is a kill";
  // repeat:N writes run.1.nsys-rep, run.2.nsys-rep: those are the reports.
  fs::remove(tmp.path() / "nsys" / "run.nsys-rep");
  tmp.Write("nsys/run.1.nsys-rep", "report");
  tmp.Write("out.log", "");
  tmp.Write("err.log", "");
  EXPECT_EQ(StepOutputProblem(cmd, tmp.path(), tmp.path() / "out.log", tmp.path() / "err.log"), "");
}

TEST(StepOutputs, RepeatCapturesArePostProcessedEachAndImportedByName) {
  testing::TempDir tmp;
  const fs::path nsys = tmp.path() / "nsys";
  PlannedCommand exported{"nsys-export",
                          {"nsys", "export", "--type", "sqlite", "--output", (nsys / "run.sqlite").string(),
                           (nsys / "run.nsys-rep").string()},
                          ""};
  PlannedCommand stats{"nsys-stats",
                       {"nsys", "stats", "--report", "gpukernsum", "--output", (nsys / "summary").string(),
                        (nsys / "run.nsys-rep").string()},
                       ""};
  EXPECT_EQ(PerNumberedReport(exported).size(), 1u) << "no report at all: the command as it is (it will fail)";
  tmp.Write("nsys/run.1.nsys-rep", "r");
  tmp.Write("nsys/run.2.nsys-rep", "r");
  tmp.Write("nsys/run.10.nsys-rep", "r");
  const auto each = PerNumberedReport(exported);
  ASSERT_EQ(each.size(), 3u);
  EXPECT_EQ(each[0].step, "nsys-export.1");
  EXPECT_EQ(each[2].step, "nsys-export.10");
  EXPECT_EQ(ArgValue(each[1].argv, "--output"), (nsys / "run.2.sqlite").string());
  EXPECT_EQ(each[1].argv.back(), (nsys / "run.2.nsys-rep").string());
  EXPECT_EQ(ArgValue(PerNumberedReport(stats)[0].argv, "--output"), (nsys / "summary.1").string());
  tmp.Write("nsys/run.nsys-rep", "r");
  EXPECT_EQ(PerNumberedReport(exported).size(), 1u) << "the report is there: nothing to expand";
}

TEST(StepOutputs, NsysEndOfFileAloneIsTheSessionFlake) {
  testing::TempDir tmp;
  PlannedCommand cmd{"nsys", {"nsys", "profile", "./app"}, ""};
  tmp.Write("out.log", "End of file\n");
  tmp.Write("err.log", "");
  EXPECT_TRUE(NsysSessionFlake(cmd, 1, tmp.path() / "out.log", tmp.path() / "err.log"));
  EXPECT_FALSE(NsysSessionFlake(cmd, 0, tmp.path() / "out.log", tmp.path() / "err.log"));
  tmp.Write("out.log", "Generating '/tmp/nsys-report-1.qdstrm'\nEnd of file\n");
  EXPECT_FALSE(NsysSessionFlake(cmd, 1, tmp.path() / "out.log", tmp.path() / "err.log")) << "it had started";
}

}  // namespace
}  // namespace llmpo::pipeline
