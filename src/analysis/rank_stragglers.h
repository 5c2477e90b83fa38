// Stragglers: per region that several ranks ran (their scopes in the
// combined regions, one tree per process and device), the slowest rank and
// by how much it exceeds the median rank. Steps (ProfilerStep#N, "step N")
// come first, one row each; then the other regions with the largest excess.
// A rank's value is its devices' values added; the quantity is the regions'
// GPU total where every rank has one, else their CPU range time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/analysis/region_combine.h"
#include "src/model/gpu_breakdown.h"

namespace llmpo::analysis {

// Per rank, its communication kernel time (NCCL and the like, the union of
// their intervals, devices added) and how much it exceeds the rank with the
// least: ranks move the same bytes in a collective, so the excess is time
// spent waiting for later ranks (an upper bound: unequal work also shows).
struct RankCollectives {
  std::int64_t rank = 0;
  double communication_ns = 0;
  double beyond_least_ns = 0;
};

struct StragglerRow {
  std::string region;    // the label path, outermost first, joined by " > "
  std::string quantity;  // "total" (GPU) or "cpu"
  int ranks = 0;         // ranks that ran it
  std::int64_t slowest_rank = 0, fastest_rank = 0;
  double slowest_ns = 0, median_ns = 0, fastest_ns = 0;
  double excess_ns = 0;                                      // slowest - median
  std::optional<double> excess_pct;                          // of the median; none when the median is 0
  std::vector<std::pair<std::int64_t, double>> per_rank_ns;  // (rank, value), rank order: steps only
  // Steps of PyTorch traces (ProfilerStep#N) only: per rank, the communication
  // kernels launched in the step (sum of durations) and the excess over the
  // rank with the least; empty unless two ranks communicated in the step.
  std::vector<RankCollectives> collectives;
};

// When each rank began a step, against the rank that began it first, on
// Unix time (every rank's start known: model::NvtxRange::unix_offset_ns,
// model::StepTimes::start_unix_ns). A blocking collective ends at about the
// same time on every rank, so a rank that starts the next step late was held
// up before it, or is slow to leave it (HTA's late-start straggler idea, by
// step rather than by kernel).
struct LateStart {
  std::string step;  // as StragglerRow::region
  int ranks = 0;
  std::int64_t first_rank = 0, latest_rank = 0;
  double latest_after_first_ns = 0;
  std::vector<std::pair<std::int64_t, double>> after_first_ns;  // (rank, ns after the first), rank order
};

// Who a rank is, as its inputs said: where it ran and which process and
// devices it was, so that a straggler can be traced to a machine. Each list
// in order, without repeats; empty where no input said.
struct RankWho {
  std::int64_t rank = 0;
  std::vector<std::string> hosts;
  std::vector<std::string> processes;      // "python3 (1234)", "pid 1234" (model::ProcessId::Label without the rank)
  std::vector<std::string> devices;        // as the inputs name them ("0", "GPU 0")
  std::optional<std::int64_t> world_size;  // the first input to give one (Kineto's distributedInfo)
  std::vector<std::string> inputs;         // the files (archive:member) its numbers come from
  // From the launcher's rank records (a profile or trace run under a
  // launcher, docs/multirank.md); unset for an import:
  std::optional<std::int64_t> local_rank;
  std::string node;             // SLURMD_NODENAME or the node index ("" : not said)
  std::string visible_devices;  // CUDA_VISIBLE_DEVICES as set ("" : unset)
  std::string ended;            // "exit 0", "exit 3", "signal 9", "stopped (signal 15)", "no end recorded"
};

// What the step starts were compared on.
enum class StartClock {
  kOneHost,    // every rank on one named host: one clock
  kHostClocks  // Unix time as each host's clock gave it: as good as their synchronisation (NTP)
};

struct Stragglers {
  int ranks = 0;                             // ranks with regions
  std::vector<StragglerRow> steps;           // in step order, at most kMaxStepRows
  std::size_t steps_omitted = 0;             // steps past kMaxStepRows
  std::vector<StragglerRow> regions;         // largest excess first, at most `top`
  std::vector<RankCollectives> collectives;  // rank order; empty without communication on two ranks
  // In the order of `steps`, for the steps whose every rank's start is known.
  std::vector<LateStart> late_starts;
  StartClock start_clock = StartClock::kHostClocks;
  std::vector<RankWho> who;  // rank order: every rank a ranked scope or GPU breakdown device names
};

std::string_view ToString(StartClock c);

// Joins a launcher run's rank records into `s.who`: each record's local
// rank, node, devices as set and how it ended go to its rank's identity (a
// rank that left no input gets one of its own), its host and world size
// where the inputs gave none. Rank order is kept.
void AddLauncherRanks(Stragglers& s, const std::vector<RankWho>& launched);  // "one_host", "host_clocks"

inline constexpr std::size_t kMaxStepRows = 1024;

// Empty (ranks < 2) unless two ranked scopes hold regions. Steps are
// top-level regions named as steps: one region per step ("step 3"), one
// folded region of numbered steps ("step N", per number), and Kineto's
// ProfilerStep#N from the GPU breakdown (none: no PyTorch trace), which also
// gives the time in collectives.
Stragglers FindStragglers(const CombinedRegions& regions, const model::GpuBreakdown* breakdown, std::size_t top);

// Communication per rank from the GPU breakdown's devices (rank, union of
// communication kernels); empty unless two ranks communicated.
std::vector<RankCollectives> CollectiveWait(const model::GpuBreakdown& breakdown);

// A step's collective wait in brief: the rank whose communication exceeds
// the least by most (it waited longest) and the rank with the least (it
// arrived last); none for a step without `collectives`.
struct StepWait {
  RankCollectives waited_longest, arrived_last;
};
std::optional<StepWait> LongestWait(const StragglerRow& step);

// The step number a region name gives ("ProfilerStep#12", "step 3",
// "step_3", "Step3"); none for another name.
std::optional<std::int64_t> StepNumber(const std::string& name);

}  // namespace llmpo::analysis
