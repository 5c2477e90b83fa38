// A CPU-only "rank" of a multi-rank job for the launcher tests
// (tests/cli/mpirun_trace_test.sh): its rank from the launcher's variables
// (RANK, OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID), then --steps top-level
// NVTX ranges "step N", each holding "forward" and "allreduce", spinning
// --ms milliseconds in forward; rank --slow-rank spins --slow-ms instead at
// step --slow-step: the built-in straggler.
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

void Spin(int us) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (std::chrono::steady_clock::now() < until) {
  }
}

int Rank() {
  for (const char* var : {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    if (const char* v = std::getenv(var); v != nullptr && *v != '\0') return std::atoi(v);
  }
  return 0;
}

int Arg(int argc, char** argv, const char* name, int fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return std::atoi(argv[i + 1]);
  }
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = Arg(argc, argv, "--steps", 4), ms = Arg(argc, argv, "--ms", 5);
  const int slow_rank = Arg(argc, argv, "--slow-rank", 2), slow_step = Arg(argc, argv, "--slow-step", 3);
  const int slow_ms = Arg(argc, argv, "--slow-ms", 60);
  const int rank = Rank();
  for (int step = 0; step < steps; ++step) {
    const std::string name = "step " + std::to_string(step);
    nvtxRangePushA(name.c_str());
    nvtxRangePushA("forward");
    Spin(1000 * (rank == slow_rank && step == slow_step ? slow_ms : ms));
    nvtxRangePop();
    nvtxRangePushA("allreduce");
    Spin(1000);
    nvtxRangePop();
    nvtxRangePop();
  }
  return 0;
}
