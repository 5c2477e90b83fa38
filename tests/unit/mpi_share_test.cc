// import --mpi (src/pipeline/mpi_share.h): the rank from the MPI launchers'
// variables, the share of each rank, and rank 0's wait for the partials.
#include "src/pipeline/mpi_share.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "src/core/atomic_file.h"
#include "src/report/partial_set.h"
#include "tests/unit/temp_dir.h"

namespace llmpo::pipeline {
namespace {
namespace fs = std::filesystem;
using Env = std::map<std::string, std::string>;

Result<MpiRank> FromEnv(const Env& env) {
  return MpiRankFromEnv([&](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

TEST(MpiRank, OpenMpiFirstAndItsJobId) {
  const auto who = FromEnv({{"OMPI_COMM_WORLD_RANK", "2"},
                            {"OMPI_COMM_WORLD_SIZE", "4"},
                            {"PMIX_RANK", "2"},
                            {"PMIX_NAMESPACE", "1778122753"},
                            {"SLURM_PROCID", "0"},
                            {"SLURM_NTASKS", "1"}});
  ASSERT_TRUE(who.ok()) << who.error().Render();
  EXPECT_EQ(who->rank, 2);
  EXPECT_EQ(who->size, 4);
  EXPECT_EQ(who->rank_from, "OMPI_COMM_WORLD_RANK");
  EXPECT_EQ(who->job, "1778122753");
}

TEST(MpiRank, PmixUnderSrunAndMpichHydra) {
  const auto pmix = FromEnv({{"PMIX_RANK", "3"},
                             {"SLURM_STEP_NUM_TASKS", "8"},
                             {"SLURM_NTASKS", "16"},
                             {"SLURM_JOB_ID", "41"},
                             {"SLURM_STEP_ID", "0"}});
  ASSERT_TRUE(pmix.ok()) << pmix.error().Render();
  EXPECT_EQ(pmix->size, 8);
  EXPECT_EQ(pmix->size_from, "SLURM_STEP_NUM_TASKS");
  EXPECT_EQ(pmix->job, "41.0");
  const auto hydra = FromEnv({{"PMI_RANK", "1"}, {"PMI_SIZE", "3"}});
  ASSERT_TRUE(hydra.ok()) << hydra.error().Render();
  EXPECT_EQ(hydra->rank, 1);
  EXPECT_EQ(hydra->size, 3);
  EXPECT_EQ(hydra->job, "");
}

TEST(MpiRank, RefusedWithoutMpiVariablesOrWithBadOnes) {
  // SLURM_PROCID alone is not an MPI rank (it is inherited by mpirun's ranks in sbatch).
  for (const Env& env : {Env{}, Env{{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}, {"RANK", "0"}},
                         Env{{"OMPI_COMM_WORLD_RANK", "1"}}, Env{{"PMI_RANK", "x"}, {"PMI_SIZE", "2"}},
                         Env{{"PMI_RANK", "2"}, {"PMI_SIZE", "2"}}, Env{{"PMI_RANK", "0"}, {"PMI_SIZE", "0"}}}) {
    const auto who = FromEnv(env);
    ASSERT_FALSE(who.ok());
    EXPECT_EQ(who.error().kind, ExitStatus::kUsage) << who.error().Render();
  }
  EXPECT_NE(FromEnv({}).error().message.find("no MPI rank variable is set"), std::string::npos);
}

TEST(MpiShare, ContiguousInOrderCoveringEveryInputOnce) {
  for (std::size_t inputs : {0u, 1u, 4u, 8u, 1024u}) {
    for (std::int64_t size : {1, 3, 6, 16}) {
      std::size_t next = 0;
      for (std::int64_t r = 0; r < size; ++r) {
        const Share s = ShareOf(inputs, r, size);
        EXPECT_EQ(s.begin, next) << inputs << " on " << size;
        EXPECT_LE(s.end - s.begin, inputs / size + 1);
        EXPECT_GE(s.end - s.begin, inputs / size);
        next = s.end;
      }
      EXPECT_EQ(next, inputs);
    }
  }
  EXPECT_EQ(ShareOf(8, 2, 3).begin, 6u);  // 3, 3, 2
  EXPECT_EQ(ShareOf(8, 2, 3).end, 8u);
}

TEST(MpiShare, FolderNamedByTheJobOnlyWithSafeCharacters) {
  EXPECT_EQ(MpiPartialFolder("out", "slurm.pmix.41.0"), fs::path("out/.mpi-partials/job-slurm.pmix.41.0"));
  EXPECT_EQ(MpiPartialFolder("out", "../x/y"), fs::path("out/.mpi-partials/job-.._x_y"));
  EXPECT_EQ(MpiPartialFolder("out", ""), fs::path("out/.mpi-partials/job-none"));
}

TEST(MpiGather, FailureFileStopsTheWaitWithThatRanksCode) {
  testing::TempDir dir;
  const fs::path folder = MpiPartialFolder(dir.path(), "j");
  ASSERT_TRUE(CreateMpiPartialFolder(folder).ok());
  ASSERT_TRUE(WriteFileAtomically(MpiPartialFile(folder, 0), report::PartialSetJson(report::PartialSet{})).ok());
  ASSERT_TRUE(WriteMpiFailure(folder, 2, MakeError(ExitStatus::kInput, "x.json: not JSON")).ok());
  MpiWait wait;
  wait.timeout = std::chrono::milliseconds(5000);
  const auto got = GatherMpiPartials(folder, 3, wait);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().kind, ExitStatus::kInput);
  EXPECT_NE(got.error().message.find("rank 2 of 3 failed: x.json: not JSON"), std::string::npos) << got.error().message;
}

// A partial holding one input named after its rank.
std::string RankPartial(std::int64_t rank) {
  report::PartialSet set;
  report::SourceInfo source;
  source.path = fmt::format("rank{}.json", rank);
  source.format = "kineto";
  source.family = model::SourceFamily::kTimeline;
  set.sources.push_back(source);
  return report::PartialSetJson(set);
}

TEST(MpiGather, TimeoutNamesTheRanksThatDeliveredNothing) {
  testing::TempDir dir;
  const fs::path folder = MpiPartialFolder(dir.path(), "j");
  ASSERT_TRUE(CreateMpiPartialFolder(folder).ok());
  ASSERT_TRUE(WriteFileAtomically(MpiPartialFile(folder, 1), RankPartial(1)).ok());
  MpiWait wait;
  wait.timeout = std::chrono::milliseconds(200);
  const auto got = GatherMpiPartials(folder, 4, wait);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().kind, ExitStatus::kFailure);
  EXPECT_NE(got.error().message.find("rank(s) 0, 2, 3 of 4 delivered no partial"), std::string::npos)
      << got.error().message;
  for (std::int64_t r : {3, 0, 2}) ASSERT_TRUE(WriteFileAtomically(MpiPartialFile(folder, r), RankPartial(r)).ok());
  const auto all = GatherMpiPartials(folder, 4, wait);
  ASSERT_TRUE(all.ok()) << all.error().Render();
  ASSERT_EQ(all->sources.size(), 4u);  // merged in rank order, whatever order the files came in
  for (std::size_t r = 0; r < 4; ++r) EXPECT_EQ(all->sources[r].path, fmt::format("rank{}.json", r));
  RemoveMpiPartials(folder);
  EXPECT_FALSE(fs::exists(dir.path() / ".mpi-partials"));
}

TEST(MpiGather, AnInputInTwoRanksPartialsIsRefusedNamingThem) {
  testing::TempDir dir;
  const fs::path folder = MpiPartialFolder(dir.path(), "j");
  ASSERT_TRUE(CreateMpiPartialFolder(folder).ok());
  ASSERT_TRUE(WriteFileAtomically(MpiPartialFile(folder, 0), RankPartial(5)).ok());
  ASSERT_TRUE(WriteFileAtomically(MpiPartialFile(folder, 1), RankPartial(5)).ok());
  MpiWait wait;
  wait.timeout = std::chrono::milliseconds(2000);
  const auto got = GatherMpiPartials(folder, 2, wait);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().kind, ExitStatus::kInput);
  EXPECT_NE(got.error().Render().find("input rank5.json is in both rank 0"), std::string::npos) << got.error().Render();
}

TEST(MpiStop, RemovesOnlyThisRanksTempFilesThenTheEmptyFolders) {
  testing::TempDir dir;
  const fs::path folder = MpiPartialFolder(dir.path(), "j");
  ASSERT_TRUE(CreateMpiPartialFolder(folder).ok());
  const auto touch = [&](const std::string& name) { ASSERT_TRUE(WriteFileAtomically(folder / name, "x").ok()); };
  touch("rank-2.json.tmp.abcdefghijkl");
  touch("rank-2.failed.tmp.abcdefghijkl");
  touch("rank-3.json.tmp.abcdefghijkl");
  touch("rank-2.json");
  RemoveMpiTempFiles(folder, 2);
  EXPECT_FALSE(fs::exists(folder / "rank-2.json.tmp.abcdefghijkl"));
  EXPECT_FALSE(fs::exists(folder / "rank-2.failed.tmp.abcdefghijkl"));
  EXPECT_TRUE(fs::exists(folder / "rank-3.json.tmp.abcdefghijkl"));  // another rank's, maybe still being written
  EXPECT_TRUE(fs::exists(folder / "rank-2.json"));                   // finished: rank 0 may still read it
  fs::remove(folder / "rank-3.json.tmp.abcdefghijkl");
  fs::remove(folder / "rank-2.json");
  RemoveMpiTempFiles(folder, 2);
  EXPECT_FALSE(fs::exists(dir.path() / ".mpi-partials"));
}

}  // namespace
}  // namespace llmpo::pipeline
