// NVTX-heavy CPU loop for the tracer overhead benchmark
// (bench/run_trace_bench.py): ITERATIONS times, an outer push/pop range with
// a nested one around WORK_NS of busy work. Prints the loop's wall time in
// ns. Without NVTX_INJECTION64_PATH the NVTX calls are near no-ops.
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  const long iterations = argc > 1 ? std::atol(argv[1]) : 1000000;
  const long work_ns = argc > 2 ? std::atol(argv[2]) : 1000;
  volatile unsigned sink = 0;
  nvtxRangePushA("warm-up");  // loads the injection library outside the timed loop
  nvtxRangePop();
  const auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < iterations; ++i) {
    nvtxRangePushA("iteration");
    nvtxRangePushA("work");
    const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(work_ns);
    while (std::chrono::steady_clock::now() < until) sink = sink + 1;
    nvtxRangePop();
    nvtxRangePop();
  }
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start);
  std::printf("%lld\n", static_cast<long long>(ns.count()));
  return 0;
}
