// Who a rank is, from the variables its launcher set (multirank reference
// §1): global rank from the first of RANK, OMPI_COMM_WORLD_RANK, PMIX_RANK,
// PMI_RANK, SLURM_PROCID; local rank from LOCAL_RANK,
// OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID; world size
// from WORLD_SIZE, OMPI_COMM_WORLD_SIZE, PMI_SIZE, SLURM_NTASKS. Innermost
// launcher first: an outer SLURM_PROCID is inherited by the ranks of an
// inner mpirun or torchrun and is never taken over their own variables.
// Every candidate's raw value is kept, so a duplicate or a stale variable
// can be told apart afterwards. Also: the rank record `rank-exec` writes
// (ranks/STEP.rankN.json) and the check of a step's records.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/core/result.h"

namespace llmpo::pipeline {

using GetEnv = std::function<const char*(const char*)>;

struct RankIdentity {
  std::optional<std::int64_t> rank, local_rank, world_size;
  std::string rank_from, local_rank_from, world_size_from;  // the variable each came from ("" : none)
  std::string node;                  // SLURMD_NODENAME, else the node index (GROUP_RANK, SLURM_NODEID) as text
  std::string host;                  // gethostname
  std::string cuda_visible_devices;  // as set ("" : unset): the rank's device(s)
  std::map<std::string, std::string> variables;  // every candidate variable that was set, raw

  // "rank3", or "rank-unknown" when no variable gave one: the name part of
  // this rank's outputs.
  std::string Label() const;
};

RankIdentity IdentityFromEnv(const GetEnv& getenv, const std::string& host);

// `text` with every "{rank}" replaced by the rank's number ("unknown" when
// there is none).
std::string ExpandRank(const std::string& text, const RankIdentity& who);

// The placeholder for the number of ranks ncu profiles (its TCP
// communicator's peers), and its value: the ranks of `ranks` ("0,2"), or
// the world size for "all" (1 when no variable gave one: ncu then waits for
// no peer).
inline constexpr const char* kNcuPeers = "{ncu_peers}";
std::string ExpandNcuPeers(const std::string& text, const std::string& ranks, const RankIdentity& who);

// How a rank's run ended, as rank-exec records it.
struct RankRecord {
  RankIdentity who;
  std::string step;
  std::int64_t pid = 0;
  bool profiled = true;           // false: the profiler was left out (not a chosen rank)
  bool finished = false;          // false: the record of a rank still running (or killed by SIGKILL)
  std::optional<int> exit_code;   // when it exited
  std::optional<int> signal;      // when a signal ended it
  bool stopped_from_outside = false;  // the launcher or the step timeout sent the signal that ended it
  double start_unix_s = 0, end_unix_s = 0;
};

std::string RankRecordJson(const RankRecord& record);
Result<RankRecord> ParseRankRecord(const std::string& text, const std::string& file);

// The records a step left in DIR (STEP.rank*.json), by rank.
std::vector<RankRecord> ReadRankRecords(const std::string& dir, const std::string& step);

// What went wrong with a step's ranks, one sentence per problem, "" for
// none: ranks that exited non-zero or were ended by a signal (the first to
// fail named first), ranks still running when the step ended (a hang:
// `timed_out`), ranks claimed twice, and ranks below the world size that
// left no record.
std::string RankProblems(const std::vector<RankRecord>& records, bool timed_out);

// A short line for run.json's step reason: "4 ranks (0-3) on 1 host".
std::string RankSummary(const std::vector<RankRecord>& records);

}  // namespace llmpo::pipeline
