// `import --mpi`: one import spread over the ranks of an MPI launcher
// (mpirun, mpiexec, srun --mpi=pmix) without linking an MPI library. Each
// rank imports a contiguous share of the inputs (in argument order) into a
// partial result, written atomically to OUT/.mpi-partials/JOB/rank-N.json;
// a rank that fails writes rank-N.failed instead. Rank 0 waits for every
// rank's file, merges the partials in rank order (the same as one import of
// all inputs in order) and removes the folder. The output folder is the only
// channel, so it must be a filesystem every rank sees.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "src/core/result.h"
#include "src/pipeline/partial_merge.h"

namespace llmpo::pipeline {

using MpiGetEnv = std::function<const char*(const char*)>;

struct MpiRank {
  std::int64_t rank = 0, size = 1;
  std::string rank_from, size_from;  // the variables they came from
  std::string job;                   // the launcher's job id ("" : none found)
  std::string job_from;
};

// The rank and world size from OMPI_COMM_WORLD_RANK/_SIZE, PMIX_RANK (size
// from OMPI_COMM_WORLD_SIZE, or SLURM_STEP_NUM_TASKS/SLURM_NTASKS under srun
// --mpi=pmix), PMI_RANK/PMI_SIZE (MPICH); the job id from PMIX_NAMESPACE,
// OMPI_MCA_ess_base_jobid or SLURM_JOB_ID.SLURM_STEP_ID. A usage error (exit
// 2) when no MPI rank variable is set or the values do not make sense.
Result<MpiRank> MpiRankFromEnv(const MpiGetEnv& getenv);

// The inputs [begin, end) of `rank` among `size` ranks: contiguous groups in
// order, sizes differing by at most one (the first ranks get the larger).
struct Share {
  std::size_t begin = 0, end = 0;
};
Share ShareOf(std::size_t inputs, std::int64_t rank, std::int64_t size);

// OUT/.mpi-partials/JOB ("job-" + the job with unsafe characters replaced,
// "job-none" when empty).
std::filesystem::path MpiPartialFolder(const std::filesystem::path& out_dir, const std::string& job);
std::filesystem::path MpiPartialFile(const std::filesystem::path& folder, std::int64_t rank);
std::filesystem::path MpiFailureFile(const std::filesystem::path& folder, std::int64_t rank);

// The folder, made without following a symbolic link below the output folder.
Status CreateMpiPartialFolder(const std::filesystem::path& folder);

// A rank's failure, for rank 0 to report: its exit code and message.
Status WriteMpiFailure(const std::filesystem::path& folder, std::int64_t rank, const Error& error);

struct MpiWait {
  std::chrono::milliseconds timeout{std::chrono::hours(1)};
  std::chrono::milliseconds poll_start{50}, poll_max{1000};
  std::function<void(std::int64_t rank)> on_arrival;  // progress, optional
};

// Rank 0: waits until every rank 0..size-1 left its partial or failure file,
// merging the partials in rank order as they arrive (each read, merged and
// dropped). The first failure file found stops the wait: its rank's error
// (its exit code, the rank named). Ranks that left nothing within the
// timeout: an error (exit 1) naming them. A merge refusal (a rank claimed
// twice, different jobs): exit 3, the ranks' partials named.
Result<report::PartialSet> GatherMpiPartials(const std::filesystem::path& folder, std::int64_t size,
                                             const MpiWait& wait);

// Removes the folder, then OUT/.mpi-partials when nothing else is left in it.
void RemoveMpiPartials(const std::filesystem::path& folder);

// A rank stopped (the launcher's SIGTERM once another rank failed): its
// half-written partial or failure file goes, then the folders when empty.
// Other ranks' files are left alone.
void RemoveMpiTempFiles(const std::filesystem::path& folder, std::int64_t rank);

}  // namespace llmpo::pipeline
