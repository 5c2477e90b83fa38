// A CPU program whose NVTX work grows with its argument, for the sweep test
// (tests/cli/sweep_test.py): `nvtx_sleep_program UNITS MS` records one
// top-level range "work" that sleeps UNITS x MS milliseconds (sleeping, not
// spinning, so a loaded machine stretches it little), and a range "fixed"
// of MS milliseconds whatever UNITS is.
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdlib>
#include <thread>

int main(int argc, char** argv) {
  const long units = argc > 1 ? std::atol(argv[1]) : 1;
  const long ms = argc > 2 ? std::atol(argv[2]) : 10;
  nvtxRangePushA("fixed");
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  nvtxRangePop();
  nvtxRangePushA("work");
  std::this_thread::sleep_for(std::chrono::milliseconds(units * ms));
  nvtxRangePop();
  return 0;
}
